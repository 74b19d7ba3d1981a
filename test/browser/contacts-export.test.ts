/**
 * Issue 34 item 7 in Chromium, at 1280 and 390 px: the Contacts page downloads the contacts its
 * filters show as the CSV file `sendwell export` writes (GET /api/v1/contacts/export, D17.6), a
 * formula typed into a field quoted for spreadsheets (issue 28 L3).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard, type Dashboard } from './browser.ts';

async function exportFiltered(d: Dashboard, width: number, shot: string) {
  const { page } = d.browser;
  const { call } = await signUpWithApi(d);
  const list = await call('POST', '/api/v1/lists', { name: 'Customers' });
  await call('POST', '/api/v1/contacts', { email: 'ann@example.com', first_name: 'Ann', tags: ['vip'], custom_fields: { plan: 'gold' }, list_id: list.id });
  await call('POST', '/api/v1/contacts', { email: 'bo@example.com', first_name: '=HYPERLINK("http://evil.test")', tags: ['vip'], list_id: list.id });
  await call('POST', '/api/v1/contacts', { email: 'cy@example.com', first_name: 'Cy', tags: ['vip'], custom_fields: { shoe: 44 } });
  await call('POST', '/api/v1/contacts', { email: 'dee@example.com', first_name: 'Dee', custom_fields: { plan: 'free' }, list_id: list.id });

  await page.setViewportSize({ width, height: width < 500 ? 844 : 860 });
  await page.goto(d.server.url + '/contacts');
  await page.getByRole('textbox', { name: 'Tag' }).fill('vip');
  await choose(page, 'List', 'Customers');
  await expect.poll(() => page.getByText('2 contacts', { exact: true }).isVisible()).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  await screenshot(page, shot, { fullPage: true });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('contacts.csv');
  const text = readFileSync((await download.path())!, 'utf8');
  // Only the contacts the filters show (a vip in Customers), with the keys they hold; oldest first.
  expect(parse(text)).toEqual([
    ['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists', 'plan'],
    ['ann@example.com', 'Ann', '', '', 'SUBSCRIBED', 'vip', 'Customers', 'gold'],
    ['bo@example.com', `'=HYPERLINK("http://evil.test")`, '', '', 'SUBSCRIBED', 'vip', 'Customers', ''],
  ]);

  // Without filters, everyone.
  await page.goto(d.server.url + '/contacts');
  await expect.poll(() => page.getByText('4 contacts', { exact: true }).isVisible()).toBe(true);
  const [all] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const rows = parse(readFileSync((await all.path())!, 'utf8')) as string[][];
  expect(rows[0]).toEqual(['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists', 'plan', 'shoe']);
  expect(rows.slice(1).map((r) => r[0])).toEqual(['ann@example.com', 'bo@example.com', 'cy@example.com', 'dee@example.com']);
  expect(d.browser.problems).toEqual([]);
}

for (const [width, name] of [
  [1280, 'desktop'],
  [390, 'phone'],
] as const) {
  describe.skipIf(!haveChromium)(`the Contacts page exports what its filters show at ${width} px (issue 34 item 7)`, () => {
    const d = withDashboard();
    it('downloads the filtered contacts as the CSV `sendwell export` writes', { timeout: 120_000 }, async () => {
      await exportFiltered(d, width, `contacts-export-${name}`);
    });
  });
}
