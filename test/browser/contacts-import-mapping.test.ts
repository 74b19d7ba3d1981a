/**
 * Issue 34 item 8 in Chromium, at 1280 and 390 px: the import dialog's mapping step. A
 * Mailchimp-style file's columns are guessed and shown with their first values; the last is mapped
 * to a new custom field named in the dialog; a list is made from the dialog; the import waits for
 * the "these people agreed to hear from us" confirmation, which each contact's consent record keeps
 * (D20). Read back through the API.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard, type Dashboard } from './browser.ts';

const MAILCHIMP = ['"Email Address","First Name","Last Name","Favourite colour"', 'ann@example.com,Ann,Lee,Teal', 'bo@example.com,Bo,Stone,', 'cy@example.com,Cy,,=Orange'].join('\r\n') + '\r\n';
const CONSENT = 'These people agreed to hear from us';

async function importWithMapping(d: Dashboard, width: number, shot: string) {
  const { page } = d.browser;
  // Signed up at desktop width: signUp waits for the header's Sign out.
  const { call } = await signUpWithApi(d);
  await page.setViewportSize({ width, height: width < 500 ? 844 : 860 });
  await page.goto(d.server.url + '/contacts');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import contacts from CSV' });
  await dialog.locator('input[type=file]').setInputFiles({ name: 'mailchimp.csv', mimeType: 'text/csv', buffer: Buffer.from(MAILCHIMP) });

  // The first guess, as `sendwell import` reads the header, with each column's first values.
  const as = (column: string) => dialog.getByRole('combobox', { name: `Import “${column}” as`, exact: true });
  await expect.poll(() => as('Email Address').inputValue()).toBe('E-mail address');
  expect(await as('First Name').inputValue()).toBe('First name');
  expect(await as('Last Name').inputValue()).toBe('Last name');
  expect(await as('Favourite colour').inputValue()).toBe('Custom field');
  const mapping = dialog.getByLabel('Column mapping');
  expect(await mapping.innerText()).toContain('ann@example.com · bo@example.com · cy@example.com');
  expect(await mapping.innerText()).toContain('Teal · =Orange');

  // The last column to a new custom field named here.
  const key = dialog.getByRole('combobox', { name: 'Custom field for “Favourite colour”', exact: true });
  expect(await key.inputValue()).toBe('favourite_colour');
  await key.fill('colour');
  expect(await mapping.innerText()).toContain('A new custom field');

  // A list made from the dialog.
  await dialog.getByRole('combobox', { name: 'Add everyone to list', exact: true }).click();
  await page.getByRole('option', { name: 'A new list…' }).click();
  await dialog.getByRole('textbox', { name: 'New list name' }).fill('Mailchimp audience');

  // Nothing is sent until the importer confirms the consent.
  const importButton = dialog.getByRole('button', { name: 'Import', exact: true });
  expect(await importButton.isDisabled()).toBe(true);
  await dialog.getByRole('checkbox', { name: CONSENT }).check();
  expect(await importButton.isDisabled()).toBe(false);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  await screenshot(page, shot, { fullPage: true });
  await importButton.click();
  await expect.poll(() => dialog.getByRole('status').innerText()).toBe('3 of 3 rows · 3 created · 0 updated · 0 skipped · 0 failed');
  await dialog.getByRole('button', { name: 'Close' }).click();

  // Read back through the API: the list, the contacts with the custom field, the consent records.
  const lists = (await call('GET', '/api/v1/lists')).lists as { id: number; name: string; contact_count: number }[];
  expect(lists.map((l) => [l.name, l.contact_count])).toEqual([['Mailchimp audience', 3]]);
  const listId = lists[0].id;
  expect(await call('GET', '/api/v1/contacts/ann%40example.com')).toMatchObject({ first_name: 'Ann', last_name: 'Lee', custom_fields: { colour: 'Teal' }, list_ids: [listId] });
  expect((await call('GET', '/api/v1/contacts/bo%40example.com')).custom_fields).toEqual({});
  // Issue 28 L3 read back: the cell is the person's text, never a formula.
  expect((await call('GET', '/api/v1/contacts/cy%40example.com')).custom_fields).toEqual({ colour: '=Orange' });
  const fields = await call('GET', '/api/v1/segments/fields');
  expect(fields.custom_fields.map((f: { key: string }) => f.key)).toEqual(['colour']);
  for (const email of ['ann@example.com', 'bo@example.com', 'cy@example.com']) {
    const { consents } = await call('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`);
    expect(consents, email).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [listId], statement: CONSENT })]);
  }
  expect(d.browser.problems).toEqual([]);
}

for (const [width, name] of [
  [1280, 'desktop'],
  [390, 'phone'],
] as const) {
  describe.skipIf(!haveChromium)(`the import dialog maps columns, makes a list and records consent at ${width} px (issue 34 item 8)`, () => {
    const d = withDashboard();
    it('imports a Mailchimp export with a new custom field into a new list, with the consent confirmed', { timeout: 120_000 }, async () => {
      await importWithMapping(d, width, `contacts-import-mapping-${name}`);
    });
  });
}
