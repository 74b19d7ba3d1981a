/**
 * Issue 6 in a real browser: sign up, then manage an API key from the dashboard and watch the API
 * answer to each change (spec Authentication; D8, D9).
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('API keys page', () => {
  const d = withDashboard();

  let email = '';
  const call = (key: string, path: string) => d.server.request('GET', path, { key }).then((r) => r.status);

  it('creates a key with two permissions, and deactivates, activates and regenerates it', { timeout: 120_000 }, async () => {
    const { page, context } = d.browser;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.server.url });
    email = await signUp(page, d.server.url);
    await page.goto(d.server.url + '/keys');
    await expect.poll(() => page.getByText('No API keys yet').isVisible()).toBe(true);

    // Create: name, two permission checkboxes; the value is shown once, with a copy button.
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create an API key' });
    await form.getByLabel('Name').fill('Shop backend');
    await form.getByLabel(/^contacts\.read/).check();
    await form.getByLabel(/^lists\.read/).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: /created/ });
    const key = await shown.getByLabel('API key').inputValue();
    expect(key).toMatch(/^sw_[0-9A-Za-z]{38,}$/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => shown.getByRole('button', { name: 'Copied' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('row').filter({ hasText: 'Shop backend' });
    await expect.poll(() => row.getByText('contacts.read').isVisible()).toBe(true);
    expect(await row.getByText('lists.read').isVisible()).toBe(true);
    expect(await row.locator('[data-label=requests]').innerText()).toBe('0');
    await screenshot(page, 'api-keys');

    // The key works for what it holds, and only that.
    expect(await call(key, '/api/v1/contacts')).toBe(200);
    expect(await call(key, '/api/v1/campaigns')).toBe(403);

    const act = async (item: string) => {
      await row.getByRole('button', { name: 'Actions for Shop backend' }).click();
      await page.getByRole('menuitem', { name: item }).click();
    };

    await act('Deactivate');
    await expect.poll(() => row.getByText('Revoked').isVisible()).toBe(true);
    await expect.poll(() => call(key, '/api/v1/contacts')).toBe(401);

    await act('Activate');
    await expect.poll(() => row.getByText('Active').isVisible()).toBe(true);
    await expect.poll(() => call(key, '/api/v1/contacts')).toBe(200);

    await act('Regenerate');
    await page.getByRole('dialog', { name: 'Regenerate this key?' }).getByRole('button', { name: 'Regenerate' }).click();
    const renewed = page.getByRole('dialog', { name: /New value/ });
    const newKey = await renewed.getByLabel('API key').inputValue();
    expect(newKey).not.toBe(key);
    await renewed.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => call(key, '/api/v1/contacts')).toBe(401);
    expect(await call(newKey, '/api/v1/contacts')).toBe(200);

    // Every authenticated call counted (D9: 403 included; the 401s were not authenticated): 4.
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return Number(await row.locator('[data-label=requests]').innerText());
      })
      .toBeGreaterThanOrEqual(4);
    await expect.poll(() => page.getByLabel(/^API requests: \d+$/).innerText().then(Number)).toBeGreaterThanOrEqual(4);
    expect(await page.getByRole('table', { name: 'Top endpoints' }).innerText()).toContain('/api/v1/contacts');
    await screenshot(page, 'api-keys-used');
  });

  it('filters by status and by a fragment of the key, and revokes and deletes behind a confirmation', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const row = page.getByRole('row').filter({ hasText: 'Shop backend' });
    const masked = await row.locator('td').nth(1).innerText();
    await page.getByLabel('Search keys').fill(masked.slice(-4));
    await expect.poll(() => row.isVisible()).toBe(true);
    await page.getByLabel('Search keys').fill('no such key');
    await expect.poll(() => page.getByText('No key matches.').isVisible()).toBe(true);
    await page.getByLabel('Search keys').fill('');

    await row.getByRole('button', { name: 'Actions for Shop backend' }).click();
    await page.getByRole('menuitem', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key permanently?' }).getByRole('button', { name: 'Revoke permanently' }).click();
    await expect.poll(() => row.getByText('Revoked permanently').isVisible()).toBe(true);

    const statusFilter = (name: string) => page.getByRole('radiogroup').getByText(name, { exact: true }).click();
    await statusFilter('Active');
    await expect.poll(() => page.getByText('No key matches.').isVisible()).toBe(true);
    await statusFilter('Revoked');
    await expect.poll(() => row.isVisible()).toBe(true);

    await row.getByRole('button', { name: 'Actions for Shop backend' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this key?' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('No key matches.').isVisible()).toBe(true);
    // The summary is a read of its own, which may answer after the list's.
    await expect.poll(() => page.getByLabel(/^Total keys: \d+$/).innerText()).toBe('0');
    expect(d.browser.problems).toEqual([]);
  });

  it('signs out (the session ends on the server) and signs back in with the keyboard alone', { timeout: 60_000 }, async () => {
    const { page, context } = d.browser;
    const cookieOf = async () => (await context.cookies(d.server.url)).find((c) => c.name === 'sendwell_session')?.value;
    const before = await cookieOf();
    expect(before).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    const old = await d.server.request('GET', '/api/v1/auth/me', { headers: { cookie: `sendwell_session=${before}` } });
    expect(old.status).toBe(401);

    // Tab reaches the labelled fields in order; Enter submits.
    const focusedLabel = () => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? '');
    for (let i = 0; i < 10 && !(await focusedLabel()).startsWith('E-mail'); i++) await page.keyboard.press('Tab');
    expect(await focusedLabel()).toMatch(/^E-mail/);
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focusedLabel()).toMatch(/^Password/);
    await page.keyboard.type('a long enough password');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await cookieOf()).not.toBe(before);
  });
});
