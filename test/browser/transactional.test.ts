/**
 * D25.8 in a real browser: the Transactional page. A marketer sees what transactional mail is and
 * how an application sends it; sends a test from a starter of the gallery through the dialog (its
 * mistakes named: malformed data by the form, a bad address by the API), which reaches a real SMTP
 * server and shows in the list as SENT; opens its fields and events; filters by status; schedules
 * one and cancels it; and the page, its drawer and its dialog fit a 390 px screen. The sender's
 * rounds are run by hand (`runOnce`), so the test knows what was sent when.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

/** A send renders its content before answering (D25.1), on a machine shared with other work: more than expect.poll's default second. */
const SEND = { timeout: 15_000 };
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

/** A `datetime-local` value `days` ahead, in the local time the browser shares with this process. */
function localInputDaysAhead(days: number): string {
  const d = new Date(Date.now() + days * 24 * 3600 * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

describe.skipIf(!haveChromium)('D25.8: the Transactional page in the browser', () => {
  let sink: SmtpSink;
  // The sink is up before the server starts (withDashboard's beforeAll runs after this one and reads env then).
  const env: Record<string, string> = {};
  beforeAll(async () => {
    sink = await startSmtpSink();
    env.SMTP_URL = sink.url;
  });
  const d = withDashboard({ env });
  afterAll(async () => {
    await sink?.close();
  });

  async function drain(): Promise<void> {
    for (let round = 0; round < 20; round++) if ((await d.server.sender.dispatcher.runOnce(0)) === 0) break;
  }

  it('sends a test from a starter, sees it SENT with its events, filters by status, schedules one and cancels it; fits 390 px', { timeout: 180_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signUpWithApi(d);
    const listed = async () => (await call('GET', '/api/v1/messages')).messages as { id: number; status: string; to: string; subject: string; tags: string[] }[];
    const [starter] = (await call('GET', '/api/v1/templates?kind=starter')).templates as { id: number; name: string }[];

    await page.getByRole('link', { name: 'Transactional' }).click();
    // Empty: what transactional mail is, and a request against this very server.
    await expect.poll(() => page.getByText('No transactional messages yet').isVisible()).toBe(true);
    const example = await page.getByLabel('Example request').innerText();
    expect(example).toContain(`curl -s -X POST ${d.server.url}/api/v1/messages`);
    expect(example).toContain('"from_email"');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });

    // The dialog names malformed data itself, and sends nothing.
    await page.getByRole('button', { name: 'Send a test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a test' });
    await dialog.getByRole('textbox', { name: /^To/ }).fill('nobody');
    await dialog.getByRole('textbox', { name: /^From e-mail/ }).fill('app@example.com');
    await dialog.getByRole('textbox', { name: /^Subject/ }).fill('Your order {{ data.order }}');
    await choose(page, 'Content', `Starter: ${starter.name}`);
    expect(await dialog.getByRole('textbox', { name: /^Text/ }).count()).toBe(0);
    await dialog.getByRole('textbox', { name: /^Data \(JSON\)/ }).fill('{"order": ');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => dialog.getByText(/^Not JSON: /).isVisible()).toBe(true);
    expect(await listed()).toEqual([]);

    // What only the API judges comes back in its words (400 naming the field).
    await dialog.getByRole('textbox', { name: /^Data \(JSON\)/ }).fill('{"order": "A-42"}');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => dialog.getByRole('alert').filter({ hasText: 'to is not a valid e-mail address' }).isVisible(), SEND).toBe(true);
    expect(await listed()).toEqual([]);
    await screenshot(page, 'transactional-send-test');

    await dialog.getByRole('textbox', { name: /^To/ }).fill('buyer@example.com');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => dialog.isVisible(), SEND).toBe(false);
    const [sent] = await listed();
    expect(sent).toMatchObject({ to: 'buyer@example.com', subject: 'Your order A-42', tags: ['test'] });
    const sentRow = page.getByRole('row').filter({ hasText: 'buyer@example.com' });
    await expect.poll(() => sentRow.isVisible(), SEND).toBe(true);

    // The sender's lane sends it to the real SMTP server; the page follows it to SENT on its own.
    await drain();
    const [mail] = await sink.waitFor(1);
    expect(mail.envelope.to).toEqual(['buyer@example.com']);
    expect(mail.subject).toBe('Your order A-42');
    expect(mail.html).toMatch(/<html/i);
    await expect.poll(() => sentRow.getByText('SENT', { exact: true }).isVisible(), SEND).toBe(true);

    // Its fields and events, from the message's own times.
    await sentRow.getByRole('button', { name: /^Details of message/ }).click();
    const drawer = page.getByRole('dialog', { name: `Message ${sent.id}` });
    await expect.poll(() => drawer.getByLabel('Events').isVisible()).toBe(true);
    expect(await drawer.getByLabel('Status').innerText()).toBe('SENT');
    const fields = await drawer.getByRole('table', { name: 'Message fields' }).innerText();
    expect(fields).toMatch(/To\s+buyer@example\.com/);
    expect(fields).toMatch(/From\s+app@example\.com/);
    const events = await drawer.getByLabel('Events').innerText();
    expect(events).toMatch(/Created[\s\S]*Sent/);
    expect(events).not.toMatch(/Queued/);
    expect(await drawer.getByRole('button', { name: 'Cancel message' }).count()).toBe(0);
    await screenshot(page, 'transactional-message');
    await page.keyboard.press('Escape');
    await expect.poll(() => drawer.isVisible()).toBe(false);

    // A message for later: written text, scheduled two days ahead.
    await page.getByRole('button', { name: 'Send a test' }).click();
    await dialog.getByRole('textbox', { name: /^To/ }).fill('later@example.com');
    await dialog.getByRole('textbox', { name: /^From e-mail/ }).fill('app@example.com');
    await dialog.getByRole('textbox', { name: /^Subject/ }).fill('See you soon');
    await dialog.getByRole('textbox', { name: /^Text/ }).fill('Your appointment is on Tuesday.');
    await dialog.getByLabel('Send at').fill(localInputDaysAhead(2));
    await dialog.getByRole('button', { name: 'Schedule' }).click();
    await expect.poll(() => dialog.isVisible(), SEND).toBe(false);
    await expect.poll(async () => (await listed()).map((m) => [m.to, m.status]), SEND).toEqual([
      ['later@example.com', 'SCHEDULED'],
      ['buyer@example.com', 'SENT'],
    ]);
    await drain();
    expect(sink.messages).toHaveLength(1);

    // Filtered by status: only the scheduled one; cancel it from its drawer.
    await choose(page, 'Status', 'SCHEDULED');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'buyer@example.com' }).count()).toBe(0);
    const laterRow = page.getByRole('row').filter({ hasText: 'later@example.com' });
    await expect.poll(() => laterRow.isVisible()).toBe(true);
    expect(await laterRow.innerText()).toMatch(/SCHEDULED[\s\S]*Scheduled /);
    await laterRow.getByRole('button', { name: /^Details of message/ }).click();
    const later = (await listed()).find((m) => m.to === 'later@example.com')!;
    const laterDrawer = page.getByRole('dialog', { name: `Message ${later.id}` });
    await expect.poll(() => laterDrawer.getByLabel('Events').innerText()).toMatch(/Scheduled: waiting to be sent/);
    await laterDrawer.getByRole('button', { name: 'Cancel message' }).click();
    await page.getByRole('dialog', { name: 'Cancel this message?' }).getByRole('button', { name: 'Cancel message' }).click();
    await expect.poll(() => laterDrawer.getByLabel('Status').innerText()).toBe('CANCELED');
    expect(await laterDrawer.getByLabel('Events').innerText()).toMatch(/Canceled: not sent/);
    expect(await laterDrawer.getByRole('button', { name: 'Cancel message' }).count()).toBe(0);
    expect((await call('GET', `/api/v1/messages/${later.id}`)).status).toBe('CANCELED');
    await page.keyboard.press('Escape');
    // Canceled, it no longer matches SCHEDULED.
    await expect.poll(() => page.getByText('No message matches these filters.').isVisible()).toBe(true);

    await choose(page, 'Status', 'SENT');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'buyer@example.com' }).isVisible()).toBe(true);
    expect(await page.getByRole('row').filter({ hasText: 'later@example.com' }).count()).toBe(0);
    await page.getByRole('textbox', { name: 'Tag' }).fill('nosuchtag');
    await expect.poll(() => page.getByText('No message matches these filters.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    expect(await page.getByRole('textbox', { name: 'Tag' }).inputValue()).toBe('');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'later@example.com' }).isVisible()).toBe(true);

    // By address (asked for only once it is whole) and by day, in the reader's days.
    await page.getByRole('textbox', { name: 'To' }).fill('buyer@example.com');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'later@example.com' }).count()).toBe(0);
    expect(await page.getByRole('row').filter({ hasText: 'buyer@example.com' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    const day = (offset: number) => localInputDaysAhead(offset).slice(0, 10);
    await page.getByLabel('Since').fill(day(1));
    await expect.poll(() => page.getByText('No message matches these filters.').isVisible()).toBe(true);
    await page.getByLabel('Since').fill(day(0));
    await page.getByLabel('Until (included)').fill(day(0));
    await expect.poll(() => page.getByText('2 messages').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'later@example.com' }).isVisible()).toBe(true);
    await screenshot(page, 'transactional');

    // At phone width the list, the drawer and the dialog fit the screen: the table scrolls inside its box.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.getByRole('button', { name: 'Toggle navigation' }).isVisible()).toBe(true);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-transactional');
    await page.getByRole('row').filter({ hasText: 'buyer@example.com' }).getByRole('button', { name: /^Details of message/ }).click();
    await expect.poll(() => drawer.getByLabel('Events').isVisible()).toBe(true);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-transactional-message');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Send a test' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(d.browser.problems).toEqual([]);
  });
});
