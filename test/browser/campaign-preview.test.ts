/**
 * D22 in a real browser: the campaign page's preview shows the inbox line, switches between
 * desktop and phone widths, renders for a contact picked by e-mail, and never runs a script the
 * content holds. The archive switch saves at once; Settings shows the slug and the archive link.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('the campaign preview (D22)', () => {
  const d = withDashboard();
  /** The browser signs up once (it stays signed in), and API calls as that account. */
  let session: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (session ??= signUpWithApi(d));

  it('shows desktop and phone widths, renders for a picked contact, and runs no script', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    await call('POST', '/api/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', list_id: list.id });
    await call('POST', '/api/v1/contacts', { email: 'grace@example.com', first_name: 'Grace' });
    const campaign = await call('POST', '/api/v1/campaigns', {
      name: 'Spring',
      subject: 'Spring news for {{ first_name }}',
      preheader: 'Three things worth your time',
      from_email: 'news@acme.example',
      html:
        '<html><body style="margin:0;font-family:sans-serif"><div style="padding:16px;background:#e7f5ff"><h1>Dear {{ first_name }}</h1><p>Our spring issue is here.</p>' +
        '<script>window.parent.document.title = "pwned"; document.body.innerHTML = "<h1>script ran</h1>";</script>' +
        '<img src="x" onerror="document.body.innerHTML=\'<h1>handler ran</h1>\'"></div></body></html>',
      list_ids: [list.id],
    });

    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const title = await page.title();
    const preview = page.frameLocator('iframe[title="Campaign preview"]');
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Ada' }).isVisible(), { timeout: 15_000 }).toBe(true);
    const inbox = page.getByLabel('Inbox line');
    expect(await inbox.getByText('Spring news for Ada').isVisible()).toBe(true);
    expect(await inbox.getByText('Three things worth your time').isVisible()).toBe(true);

    // The content's script and event handler never ran: the sandbox allows no script.
    expect(await preview.getByRole('heading', { name: /script ran|handler ran/ }).count()).toBe(0);
    expect(await page.title()).toBe(title);

    const frameWidth = () => page.locator('iframe[title="Campaign preview"]').evaluate((el) => el.getBoundingClientRect().width);
    expect(await frameWidth()).toBeGreaterThan(600);
    await page.locator('iframe[title="Campaign preview"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'campaign-preview-desktop');
    await page.locator('label', { hasText: /^Phone$/ }).click();
    await expect.poll(frameWidth).toBeLessThanOrEqual(375);
    expect(await frameWidth()).toBeGreaterThan(300);
    await screenshot(page, 'campaign-preview-phone');

    // A picked contact's data fills the merge fields.
    await page.getByRole('combobox', { name: 'Preview for' }).fill('grace@');
    await page.getByRole('option', { name: 'grace@example.com' }).click();
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Grace' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await inbox.getByText('Spring news for Grace').isVisible()).toBe(true);
    expect(await inbox.getByText('With this contact').isVisible()).toBe(true);
    expect(await page.title()).toBe(title);
  });

  it('the archive switch saves at once; Settings shows the slug and the archive link', { timeout: 60_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Archived one', subject: 'S', html: '<p>x</p>' });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    // The switch shows the saved state: it turns on once the server has it.
    await page.getByRole('switch', { name: 'Show in the public archive' }).click({ force: true });
    await expect.poll(() => page.getByRole('switch', { name: 'Show in the public archive' }).isChecked(), { timeout: 10_000 }).toBe(true);
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).archive, { timeout: 10_000 }).toBe(true);
    expect(await page.getByText('Shown there once sent').isVisible()).toBe(true);

    const me = await d.server.request('GET', '/api/v1/auth/me', { headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } });
    const slug = me.body.data.account.slug as string;
    expect(slug).toMatch(/^acme-inc/);
    await page.goto(`${d.server.url}/settings`);
    const account = page.getByRole('table', { name: 'Account' });
    await expect.poll(() => account.getByText(slug, { exact: true }).isVisible()).toBe(true);
    expect(await account.getByRole('link', { name: `${d.server.url}/archive/${slug}` }).getAttribute('href')).toBe(`/archive/${slug}`);
  });
});
