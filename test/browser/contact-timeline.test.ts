/**
 * Issue 34, items 9 and 10 in Chromium at 1280 and 390 px: a contact gets a campaign (the dev
 * inbox), a scanner follows its links, the person opens it, clicks, and unsubscribes on the
 * unsubscribe page. The contact page's Activity shows these newest first, opens and clicks by a
 * person and by a machine told apart, a page at a time ("Show older"); the campaign's recipients
 * show the unsubscribe with its time.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { linksIn } from '../sending/send-helpers.ts';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const EMAIL = 'ann@example.com';
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
/** Scrolls the Activity heading to the top, below the page's fixed header, for the picture. */
const showActivity = (page: Page) => page.getByRole('heading', { name: 'Activity' }).evaluate((h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 72));
const kindsShown = (page: Page) => page.getByLabel('Activity').locator('[data-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));

describe.skipIf(!haveChromium)('the contact timeline and the recipient ledger (issue 34)', () => {
  const d = withDashboard({ env: { SEND_POLL_MS: '50' }, start: (s) => s.sender.dispatcher.start() });

  it('shows a campaign, its opens and clicks by people and machines, and the unsubscribe, newest first and paged', { timeout: 180_000 }, async () => {
    const { page } = d.browser;
    const owner = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', owner).executeTakeFirstOrThrow();
    // An unlimited plan: the seeding below makes more calls a second than a free account's limit (D10).
    await d.server.db.updateTable('accounts').set({ plan: 'enterprise' }).where('id', '=', Number(user.account_id)).execute();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await d.server.request(method, path, { key, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.body.data;
    };
    const list = (await call('POST', '/api/v1/lists', { name: 'Readers' })).id;
    await call('POST', '/api/v1/contacts', { email: EMAIL, first_name: 'Ann', list_id: list });
    // Older activity, enough to need a second page after the campaign's.
    for (let i = 1; i <= 8; i++) await call('POST', '/v1/events', { email: EMAIL, event: `visited_page_${i}` });
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Autumn news', subject: 'Autumn', from_name: 'Acme', from_email: 'news@acme.test', html: '<p>Hi</p><a href="https://example.com/autumn">Read</a>', list_ids: [list] });
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).status, { timeout: 30_000 }).toBe('SENT');
    const mail = (await call('GET', '/api/v1/dev/inbox?size=100')).messages.find((m: any) => m.to === EMAIL);
    const { hrefs, imgs, traps } = linksIn(mail.html);
    // The dev inbox holds the links under PUBLIC_URL; the same paths on this server.
    const here = (url: string) => d.server.url + new URL(url).pathname;
    const asPerson = { headers: { 'user-agent': CHROME } };
    // A security gateway follows every link on arrival, the hidden one too: a machine (D23).
    await fetch(here(traps[0]!), { redirect: 'manual', ...asPerson });
    // D23: a click within 2 seconds of delivery is a scanner's; the person reads first.
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(here(imgs.find((u) => u.includes('/t/o/'))!), asPerson)).status).toBe(200);
    expect((await fetch(here(hrefs.find((u) => u.includes('/t/c/'))!), { redirect: 'manual', ...asPerson })).status).toBe(302);
    // The person unsubscribes on the page the message's link opens.
    await page.goto(here(hrefs.find((u) => u.includes('/u/'))!));
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'You are unsubscribed' }).isVisible()).toBe(true);

    await page.goto(`${d.server.url}/contacts/${encodeURIComponent(EMAIL)}`);
    const activity = page.getByLabel('Activity');
    await expect.poll(() => activity.locator('[data-kind]').count()).toBe(10);
    expect(await kindsShown(page)).toEqual(['unsubscribed', 'clicked', 'opened', 'clicked_by_machine', 'opened_by_machine', 'sent', 'event', 'event', 'event', 'event']);
    const said = (await activity.textContent()) ?? '';
    for (const words of ['Unsubscribed', 'Autumn news', 'Person', 'Machine', 'visited_page_8']) expect(said).toContain(words);
    expect(said).not.toContain('visited_page_4');
    expect(await activity.locator('[data-kind="opened_by_machine"]').getByText('Machine').isVisible()).toBe(true);
    expect(await activity.locator('[data-kind="opened"]').getByText('Person').isVisible()).toBe(true);
    await showActivity(page);
    await screenshot(page, 'contact-timeline-desktop');

    await page.getByRole('button', { name: 'Show older' }).click();
    await expect.poll(() => activity.locator('[data-kind]').count()).toBe(15);
    expect((await kindsShown(page)).slice(10)).toEqual(['event', 'event', 'event', 'event', 'subscribed']);
    expect(await activity.textContent()).toContain('visited_page_1');
    expect(await page.getByRole('button', { name: 'Show older' }).count()).toBe(0);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect.poll(() => activity.locator('[data-kind]').count()).toBe(10);
    await showActivity(page);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'contact-timeline-phone');
    await page.setViewportSize({ width: 1280, height: 860 });

    // Item 10: the campaign's recipients say who unsubscribed, and when.
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await page.getByRole('tab', { name: 'Recipients' }).click();
    const recipients = page.getByRole('table', { name: 'Recipients' });
    const row = recipients.getByRole('row').filter({ hasText: EMAIL });
    await expect.poll(() => row.getByText('Unsubscribed', { exact: true }).isVisible()).toBe(true);
    await recipients.scrollIntoViewIfNeeded();
    expect(await row.getByText('Complained', { exact: true }).count()).toBe(0);
    await screenshot(page, 'campaign-recipients-left-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    // Beside the status, so a phone shows it without scrolling the table.
    // Polled: the table lays itself out again after the resize (its columns' widths settle).
    const badgeRight = async () => {
      const badge = await row.getByText('Unsubscribed', { exact: true }).boundingBox();
      return badge ? badge.x + badge.width : Infinity;
    };
    await expect.poll(badgeRight).toBeLessThanOrEqual(390);
    await screenshot(page, 'campaign-recipients-left-phone', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(d.browser.problems).toEqual([]);
  });

});
