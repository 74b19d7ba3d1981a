/**
 * Issue 6 in a real browser: contacts imported from a CSV file in chunks with progress (through
 * POST /v1/contacts/bulk, D14), filtered, and one edited: tags, custom fields, lists (D11, D12).
 */
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('contacts page', () => {
  const d = withDashboard();

  it('imports a CSV file into a list with progress, filters, and edits a contact', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signUp(page, d.server.url);
    await page.goto(d.server.url + '/lists');
    for (const name of ['Customers', 'Partners']) {
      await page.getByRole('button', { name: 'New list' }).click();
      await page.getByRole('textbox', { name: /^List name/ }).fill(name);
      await page.getByRole('button', { name: 'Save list' }).click();
      await expect.poll(() => page.getByRole('row').filter({ hasText: name }).isVisible()).toBe(true);
    }

    await page.goto(d.server.url + '/contacts');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import contacts from CSV' });
    const rows = ['email,first_name,tags,plan', 'ann@example.com,Ann,vip;beta,gold', 'bob@example.com,Bob,,silver', 'not-an-email,Broken,,', 'ANN@example.com,Ann again,,'];
    await dialog.locator('input[type=file]').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
    await choose(page, 'Add everyone to list', 'Customers');
    await dialog.getByRole('checkbox', { name: 'These people agreed to hear from us' }).check();
    await dialog.getByRole('button', { name: 'Import' }).click();
    const status = dialog.getByRole('status');
    await expect.poll(() => status.innerText()).toBe('4 of 4 rows · 2 created · 0 updated · 1 skipped · 1 failed');
    expect(await dialog.getByText(/Row 4 \(not-an-email\)/).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // Filters: by tag, by list.
    await expect.poll(() => page.getByRole('link', { name: 'bob@example.com' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Tag' }).fill('vip');
    await expect.poll(() => page.getByRole('link', { name: 'bob@example.com' }).isVisible()).toBe(false);
    expect(await page.getByRole('link', { name: 'ann@example.com' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Tag' }).fill('');

    // Edit Ann: a tag more, a custom field changed, a second list, a name.
    await page.getByRole('link', { name: 'ann@example.com' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'ann@example.com' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Last name' }).fill('Lovelace');
    await page.getByRole('combobox', { name: 'Tags' }).fill('newsletter');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Value' }).fill('platinum');
    await choose(page, 'Lists', 'Partners');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save contact' }).click();
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);
    await screenshot(page, 'contact');

    const cookie = (await d.browser.context.cookies(d.server.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const ann = (await d.server.request('GET', '/api/v1/contacts/ann%40example.com', { headers: { cookie } })).body.data;
    const lists = (await d.server.request('GET', '/api/v1/lists', { headers: { cookie } })).body.data.lists;
    expect(ann).toMatchObject({ first_name: 'Ann', last_name: 'Lovelace', tags: ['vip', 'beta', 'newsletter'], custom_fields: { plan: 'platinum' } });
    expect([...ann.list_ids].sort()).toEqual(lists.map((l: any) => l.id).sort());
    expect(d.browser.problems).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('contact page (D17.5, D17.6)', () => {
  const d = withDashboard();

  it('saves without turning typed custom fields into text, and an explicit choice leaves COMPLAINED', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const owner = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', owner).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const api = (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body });
    expect((await api('POST', '/api/v1/contacts', { email: 'cora@example.com', custom_fields: { vip: true, seats: 3, note: 'x' } })).status).toBe(200);
    expect((await api('POST', '/v1/contacts/bulk', { contacts: [{ email: 'cora@example.com', status: 'COMPLAINED' }] })).status).toBe(200);

    await page.goto(d.server.url + '/contacts/cora%40example.com');
    await expect.poll(() => page.getByText('reported your mail as spam').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'First name' }).fill('Cora');
    await page.getByRole('button', { name: 'Save contact' }).click();
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);
    // Saving sent the unchanged fields as they were (it sent "true" and "3"), and no status.
    expect((await api('GET', '/api/v1/contacts/cora%40example.com')).body.data).toMatchObject({ first_name: 'Cora', status: 'COMPLAINED', custom_fields: { vip: true, seats: 3, note: 'x' } });

    // D17.5: an explicit PUT may leave COMPLAINED; the page offers it (it was disabled).
    await choose(page, 'Subscription', 'SUBSCRIBED');
    await page.getByRole('button', { name: 'Save contact' }).click();
    await expect.poll(async () => (await api('GET', '/api/v1/contacts/cora%40example.com')).body.data.status).toBe('SUBSCRIBED');
    expect(d.browser.problems).toEqual([]);
  });
});
