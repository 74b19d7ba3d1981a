/**
 * Issue 15 in a real browser: outbound webhooks had no dashboard page. At /settings/webhooks a
 * marketer adds an endpoint (its signing secret shown once), sees it, turns it off, and deletes it;
 * each change read back through the API.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('webhooks page', () => {
  const d = withDashboard();

  it('adds an endpoint with chosen events, shows its secret once, turns it off and deletes it', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const endpoints = async () => (await d.server.request('GET', '/api/v1/webhooks', { key })).body.data.webhooks;

    await page.goto(d.server.url + '/settings');
    await page.getByRole('link', { name: 'Webhooks' }).first().click();
    await expect.poll(() => page.getByText('No webhook endpoints yet.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByRole('textbox', { name: /^URL/ }).fill('https://hooks.example.com/sendwell');
    await dialog.getByRole('checkbox', { name: 'contact.unsubscribed' }).check();
    await dialog.getByRole('checkbox', { name: 'email.bounced' }).check();
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();

    await expect.poll(() => page.getByLabel('Signing secret').isVisible()).toBe(true);
    expect(await page.getByLabel('Signing secret').innerText()).toMatch(/\S{16,}/);
    const row = page.getByRole('row').filter({ hasText: 'https://hooks.example.com/sendwell' });
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.innerText()).toContain('contact.unsubscribed, email.bounced');
    const [created] = await endpoints();
    expect(created).toMatchObject({ url: 'https://hooks.example.com/sendwell', event_types: ['contact.unsubscribed', 'email.bounced'], is_active: true });
    await screenshot(page, 'webhooks');

    // Mantine's switch input is visually hidden; people click its track.
    await row.locator('.mantine-Switch-track').click();
    await expect.poll(async () => (await endpoints())[0].is_active).toBe(false);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(async () => (await endpoints()).length).toBe(0);
    await expect.poll(() => page.getByText('No webhook endpoints yet.').isVisible()).toBe(true);
  });
});
