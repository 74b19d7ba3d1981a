/**
 * Issue 6 in a real browser: a list, a contact, a campaign written and sent to the dev inbox, the
 * mail seen there and the campaign's statistics; and campaign HTML that holds scripts runs
 * nothing anywhere in the dashboard (preview, sent view, inbox).
 */
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('contacts, lists, campaigns and the dev inbox', () => {
  const d = withDashboard({
    env: { SEND_POLL_MS: '50' },
    start: (s) => s.sender.dispatcher.start(), // the sender role, as `serve` runs it
  });

  /** Fills the campaign editor and sends; the page follows the campaign to SENT. */
  async function writeAndSend(name: string, subject: string, html: string) {
    const { page } = d.browser;
    await page.goto(d.server.url + '/campaigns');
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: /^Campaign name/ }).fill(name);
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('textbox', { name: /^Subject/ }).fill(subject);
    await page.getByRole('textbox', { name: /^From name/ }).fill('Acme news');
    await page.getByRole('textbox', { name: /^From e-mail/ }).fill('news@acme.example');
    // D22: the content opens in the visual editor; raw HTML is typed in source mode.
    await page.getByText('Source', { exact: true }).click();
    await page.getByRole('textbox', { name: /^HTML content/ }).fill(html);
    await choose(page, 'Lists', 'Newsletter (1)');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByText('About 1 subscribed recipients').isVisible()).toBe(true);
    return async () => {
      await page.getByRole('button', { name: 'Send now' }).click();
      await page.getByRole('dialog', { name: 'Send this campaign now?' }).getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByLabel('Status SENT').isVisible(), { timeout: 30_000 }).toBe(true);
    };
  }

  it('creates a list and a contact, sends a campaign to the dev inbox, and shows its statistics', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signUp(page, d.server.url);

    await page.goto(d.server.url + '/lists');
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('textbox', { name: /^List name/ }).fill('Newsletter');
    await page.getByRole('button', { name: 'Save list' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Newsletter' }).isVisible()).toBe(true);

    await page.goto(d.server.url + '/contacts');
    await page.getByRole('button', { name: 'New contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'New contact' });
    await dialog.getByRole('textbox', { name: /^E-mail/ }).fill('Reader@Example.com');
    await dialog.getByRole('textbox', { name: 'First name' }).fill('Ada');
    await choose(page, 'Add to list', 'Newsletter');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'reader@example.com' }).isVisible()).toBe(true);
    await screenshot(page, 'contacts');

    await page.goto(d.server.url + '/lists');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Newsletter' }).getByText('1 contacts').isVisible()).toBe(true);

    const send = await writeAndSend('Spring news', 'Hello {{first_name}}', '<h1>Spring is here</h1><p><a href="https://acme.example/spring">Read more</a></p>');
    // Rendered by the server (issue 15), on a render thread started on first use.
    await expect.poll(() => page.frameLocator('iframe[title="Campaign preview"]').getByRole('heading', { name: 'Spring is here' }).isVisible(), { timeout: 15_000 }).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'campaign-editor');
    await send();

    // SENT: statistics with the funnel and the engagement charts.
    await expect.poll(() => page.getByText('Delivery funnel').isVisible()).toBe(true);
    expect(await page.getByLabel('Statistics').innerText()).toMatch(/SENT\s+1/i);

    // The mail is in the dev inbox, rendered in a sandboxed frame.
    await page.goto(d.server.url + '/inbox');
    const message = page.getByRole('navigation', { name: 'Messages' }).getByText('Hello Ada');
    await expect.poll(() => message.isVisible()).toBe(true);
    const frame = page.locator('iframe[title="Message: Hello Ada"]');
    // Issue 34: links open in a new tab (popups leave the sandbox); scripts stay off.
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    await expect.poll(() => page.frameLocator('iframe[title="Message: Hello Ada"]').getByRole('heading', { name: 'Spring is here' }).isVisible()).toBe(true);
    await screenshot(page, 'dev-inbox');

    // An open and a click through the mail's own tracking links, then the charts have a point.
    const html = (await d.server.request('GET', '/api/v1/dev/inbox', { headers: { cookie: await cookieHeader() } })).body.data.messages[0].html as string;
    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1];
    const click = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1];
    // PUBLIC_URL names no real port here: the same paths on the test server.
    const onServer = (url: string) => { const u = new URL(url.replace(/&amp;/g, '&')); return d.server.url + u.pathname + u.search; };
    // The open from a browser is a person's; the click from an HTTP library is a scanner's (D23).
    const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' };
    expect((await fetch(onServer(pixel), { headers: browser })).status).toBe(200);
    expect((await fetch(onServer(click), { redirect: 'manual', headers: { 'user-agent': 'curl/8.5.0' } })).status).toBe(302);
    await page.goto(d.server.url + '/campaigns');
    await page.getByRole('link', { name: 'Spring news' }).click();
    await expect.poll(() => page.getByLabel('Statistics').innerText()).toMatch(/OPENED \(ALL\)\s+1/i);
    // Human figures first, and the page says why they differ from the totals.
    const cards = await page.getByLabel('Statistics').innerText();
    expect(cards).toMatch(/HUMAN OPENS\s+1 · 100\.0%/i);
    expect(cards).toMatch(/HUMAN CLICKS\s+0 · 0\.0%/i);
    expect(cards).toMatch(/CLICKED \(ALL\)\s+1/i);
    expect(cards.search(/HUMAN OPENS/i)).toBeLessThan(cards.search(/OPENED \(ALL\)/i));
    expect(await page.getByLabel('About human opens').innerText()).toMatch(/Apple Mail's privacy proxy .*\(1 machine open, 1 machine click\)/s);
    // Issue 34: bars (a line of one hour is a lone point), one series each for opens and clicks.
    await expect.poll(() => page.getByLabel('Opens and clicks over time chart').locator('.recharts-bar').count()).toBe(2);
    await screenshot(page, 'campaign-statistics');

    // At phone width the page fits the screen: navigation folds behind a button, nothing overflows sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.getByRole('button', { name: 'Toggle navigation' }).isVisible()).toBe(true);
    // The charts follow the new width through a ResizeObserver, a frame or more after the resize: wait for it.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, 'phone-campaign-statistics');
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.getByRole('link', { name: 'Contacts' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'reader@example.com' }).isVisible()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(d.browser.problems).toEqual([]);
  });

  it('runs no script from campaign HTML: not in the preview, the sent view or the inbox (sandbox and CSP)', { timeout: 120_000 }, async () => {
    const { page, requested } = d.browser;
    const evil = [
      '<h1>Totally normal</h1>',
      '<script>window.parent.__pwned = true; window.top.__pwned = true; fetch("/pwned-script");</script>',
      '<img src="/pwned-image" onerror="fetch(\'/pwned-onerror\'); window.parent.__pwned = true">',
      '<a href="javascript:fetch(\'/pwned-link\')">link</a>',
    ].join('');
    const send = await writeAndSend('Evil', 'Evil subject', evil);
    await expect.poll(() => page.frameLocator('iframe[title="Campaign preview"]').getByRole('heading', { name: 'Totally normal' }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('iframe[title="Campaign preview"]').getAttribute('sandbox')).toBe('');
    await send();
    await page.goto(d.server.url + '/inbox');
    await expect.poll(() => page.frameLocator('iframe[title="Message: Evil subject"]').getByRole('heading', { name: 'Totally normal' }).isVisible()).toBe(true);

    expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(requested.filter((u) => /pwned-(script|onerror|link)/.test(u))).toEqual([]);

    // The HTML carries a CSP that forbids inline scripts and framing.
    const res = await fetch(d.server.url + '/campaigns');
    const csp = res.headers.get('content-security-policy') ?? '';
    const scriptSrc = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
    expect(scriptSrc).toBe("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
  });

  it('sends a test without changing the status, schedules a draft, and unschedules it', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await writeAndSend('Later', 'Coming soon', '<p>Soon</p>');
    await page.getByRole('textbox', { name: 'Send a test to' }).fill('boss@example.com, me@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.getByText('Test sent.').isVisible()).toBe(true);
    expect(await page.getByLabel('Status DRAFT').isVisible()).toBe(true);
    const inbox = (await d.server.request('GET', '/api/v1/dev/inbox?size=100', { headers: { cookie: await cookieHeader() } })).body.data.messages;
    expect(inbox.filter((m: any) => m.subject.includes('Coming soon')).map((m: any) => m.to).sort()).toEqual(['boss@example.com', 'me@example.com']);

    const at = new Date(Date.now() + 86_400_000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Schedule for').fill(local);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await expect.poll(() => page.getByLabel('Status SCHEDULED').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Unschedule' }).click();
    await expect.poll(() => page.getByLabel('Status DRAFT').isVisible()).toBe(true);
  });

  async function cookieHeader(): Promise<string> {
    const cookies = await d.browser.context.cookies(d.server.url);
    return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }
});
