/**
 * D17.6 in a real browser: the dashboard imports by the same rules as `sendwell import`
 * (csv-columns.ts): a Mailchimp-style file with a status and list names, read back through the API.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, signUp, withDashboard, type Dashboard } from './browser.ts';

/** Signs up, imports the rows through the dialog until its status says `status`; answers the dialog and a key of the new account, to read back by. */
async function importAsNewAccount(d: Dashboard, rows: string[], status: string) {
  const { page } = d.browser;
  const email = await signUp(page, d.server.url);
  await page.goto(d.server.url + '/contacts');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import contacts from CSV' });
  await dialog.locator('input[type=file]').setInputFiles({ name: 'mailchimp.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
  // Issue 34: the importer confirms these people's consent before anything is sent.
  await dialog.getByRole('checkbox', { name: 'These people agreed to hear from us' }).check();
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect.poll(() => dialog.getByRole('status').innerText()).toBe(status);
  const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
  const { key } = await d.server.createKey(Number(user.account_id), ['*']);
  return { dialog, key };
}

describe.skipIf(!haveChromium)('dashboard CSV import (D17.6)', () => {
  const d = withDashboard();

  it("reads other tools' headers, honours an unsubscribed status and creates the named lists", { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const rows = ['Email Address,FIRSTNAME,Last Name,Status,Lists,vip', 'Ann@Example.com,Ann,Lee,unsubscribed,Weekly;Customers,true', 'bo@example.com,Bo,,,Weekly,false'];
    const { dialog, key } = await importAsNewAccount(d, rows, '2 of 2 rows · 2 created · 0 updated · 0 skipped · 0 failed');
    const ann = (await d.server.request('GET', '/api/v1/contacts/ann%40example.com', { key })).body.data;
    expect(ann).toMatchObject({ first_name: 'Ann', last_name: 'Lee', status: 'UNSUBSCRIBED', custom_fields: { vip: true } });
    const lists = (await d.server.request('GET', '/api/v1/lists', { key })).body.data.lists as { id: number; name: string; contact_count: number }[];
    expect(lists.map((l) => l.name).sort()).toEqual(['Customers', 'Weekly']);
    expect(ann.list_ids.sort()).toEqual(lists.map((l) => l.id).sort());
    expect((await d.server.request('GET', '/api/v1/contacts/bo%40example.com', { key })).body.data).toMatchObject({ status: 'SUBSCRIBED', custom_fields: { vip: false } });

    // D17.5: a file that says SUBSCRIBED, imported with "update", never resubscribes anyone.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog.locator('input[type=file]').setInputFiles({ name: 'again.csv', mimeType: 'text/csv', buffer: Buffer.from('E-mail,First Name,Status\nann@example.com,Annie,subscribed\n') });
    await dialog.getByRole('checkbox', { name: 'Update contacts that already exist' }).check();
    await dialog.getByRole('checkbox', { name: 'These people agreed to hear from us' }).check();
    await dialog.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toBe('1 of 1 rows · 0 created · 1 updated · 0 skipped · 0 failed');
    expect((await d.server.request('GET', '/api/v1/contacts/ann%40example.com', { key })).body.data).toMatchObject({ first_name: 'Annie', status: 'UNSUBSCRIBED' });
    expect(d.browser.problems).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('dashboard CSV import, columns not imported (D26.3)', () => {
  const d = withDashboard();

  it('D26.3: keeps other columns as custom fields and lists the columns not imported, with why', { timeout: 120_000 }, async () => {
    const rows = ['Email Address,First Name,Company Name,Date of Birth,,OPTIN_TIME,CONFIRM_TIME,Company Name', 'cy@example.com,Cy,Acme Ltd,1990-04-01,x,2024-03-01 10:22:33,,Other Co'];
    const { dialog, key } = await importAsNewAccount(d, rows, '1 of 1 rows · 1 created · 0 updated · 0 skipped · 0 failed');
    expect((await dialog.getByLabel('Columns not imported').innerText()).split('\n').filter(Boolean)).toEqual([
      'Columns not imported:',
      'column 5 has no header',
      '“Company Name”: a duplicate header: the first, column 3, is kept',
    ]);
    expect((await d.server.request('GET', '/api/v1/contacts/cy%40example.com', { key })).body.data.custom_fields).toEqual({ company_name: 'Acme Ltd', date_of_birth: '1990-04-01' });
    expect(d.browser.problems).toEqual([]);
  });
});
