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
