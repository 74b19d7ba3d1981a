/**
 * Issue 15 in a real browser: a marketer lands on an overview with the recent campaigns and their
 * rates (not on the API-keys page); `/login` and `/settings` are pages, not raw JSON (D17.10);
 * status badges keep their whole word at phone width.
 */
import { describe, expect, it } from 'vitest';
import { sendable } from '../sending/send-helpers.ts';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('overview, settings and dashboard paths', () => {
  const d = withDashboard({ env: { SEND_POLL_MS: '50' }, start: (s) => s.sender.dispatcher.start() });

  it('a new account lands on the overview with its first steps; then sees a sent campaign with its rates', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    await expect.poll(() => page.getByRole('heading', { name: 'Get started' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Create a list' }).isVisible()).toBe(true);

    // A sent campaign of this account, made through the API.
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    // Every call must succeed: a refused one (the free plan's 60 requests a minute) would show up
    // later as a row missing from the page.
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await d.server.request(method, path, { key, body });
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      return r.body.data;
    };
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    await call('POST', '/api/v1/contacts', { email: 'reader@example.com', list_id: list.id });
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Autumn letter', ...sendable([list.id]) });
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    // Read from the database, not the API: polling the API every 50 ms spent the plan's 60 requests a
    // minute on a slow send, and the next call was refused (CI saw the draft below missing).
    const status = () => d.server.db.selectFrom('campaigns').select('status').where('id', '=', campaign.id).executeTakeFirstOrThrow();
    await expect.poll(async () => (await status()).status, { timeout: 30_000 }).toBe('SENT');
    await call('POST', '/api/v1/campaigns', { name: 'Winter draft' });

    await page.goto(d.server.url + '/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    const table = page.getByRole('table', { name: 'Recent campaigns' });
    await expect.poll(() => table.getByRole('row').filter({ hasText: 'Autumn letter' }).isVisible()).toBe(true);
    const sent = table.getByRole('row').filter({ hasText: 'Autumn letter' });
    // One delivered, nothing opened yet: the rates are shown as percentages.
    expect(await sent.innerText()).toMatch(/SENT\s+1\s+0\.0%\s+0\.0%\s+0\.0%\s+0\.0%/);
    expect(await table.getByRole('row').filter({ hasText: 'Winter draft' }).innerText()).toMatch(/DRAFT(\s+—){5}/);
    expect(await page.getByLabel('Subscribed contacts').innerText()).toBe('1');
    await screenshot(page, 'overview');
  });

  it('status badges keep their whole word at phone width', { timeout: 60_000 }, async () => {
    const { page } = d.browser;
    const user = await d.server.db.selectFrom('users').select('account_id').executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    await d.server.request('POST', '/api/v1/contacts', { key, body: { email: 'someone-with-a-long-address@example.com', first_name: 'Someone', last_name: 'With A Long Name' } });
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(d.server.url + '/contacts');
    const badge = page.locator('.mantine-Badge-label', { hasText: 'SUBSCRIBED' }).first();
    await expect.poll(() => badge.isVisible()).toBe(true);
    const cut = await badge.evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(cut).toBe(false);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('D17.10: /login and /settings open as pages in the browser', { timeout: 60_000 }, async () => {
    const { page } = d.browser;
    await page.goto(d.server.url + '/settings');
    await expect.poll(() => page.getByRole('heading', { name: 'Settings' }).isVisible()).toBe(true);
    expect(await page.getByRole('table', { name: 'Account' }).innerText()).toMatch(/Plan\s+free/);
    await page.goto(d.server.url + '/login');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    // Signed out, /settings shows the sign-in page rather than JSON.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(d.server.url + '/settings');
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain('"success":false');
  });

});
