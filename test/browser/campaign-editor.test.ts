/**
 * Issue 15 in a real browser: the editor's preview shows a real contact's data (it showed raw
 * `{{ first_name }}`) and names a Liquid error as it is typed (D17.4); Duplicate copies a campaign
 * into a new draft; a FAILED campaign can be edited.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('the campaign editor', () => {
  const d = withDashboard();

  it('previews with the first list member, names a Liquid error, duplicates, and edits a FAILED campaign', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const call = (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body }).then((r) => r.body.data);
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    await call('POST', '/api/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', list_id: list.id });
    const campaign = await call('POST', '/api/v1/campaigns', {
      name: 'Autumn',
      subject: 'Hello {{ first_name }}',
      from_email: 'news@acme.example',
      html: '<h1>Dear {{ first_name }}</h1>',
      list_ids: [list.id],
    });

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const preview = page.frameLocator('iframe[title="Campaign preview"]');
    // The server renders the preview on its test-send render thread, started on first use.
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Ada' }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByText("Hello Ada · with your list's first contact").isVisible()).toBe(true);

    // A typo shows in the preview's place, naming the field, before anything is saved.
    await page.getByRole('textbox', { name: /^HTML content/ }).fill('<h1>Dear {{ first_name </h1>');
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'html has a Liquid syntax error' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^HTML content/ }).fill('<h1>Dear {{ first_name }}!</h1>');
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Ada!' }).isVisible(), { timeout: 5_000 }).toBe(true);
    await screenshot(page, 'campaign-preview-merge-data');

    // Duplicate: a new draft, opened at once.
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Copy of Autumn' }).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).not.toBe(`/campaigns/${campaign.id}`);

    // A FAILED campaign opens in the editor and saves.
    await d.server.db.updateTable('campaigns').set({ status: 'FAILED', error: 'the mail transport keeps failing' }).where('id', '=', campaign.id).execute();
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByText('the mail transport keeps failing').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Subject/ }).fill('Fixed {{ first_name }}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).subject).toBe('Fixed {{ first_name }}');
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).status).toBe('FAILED');
  });
});
