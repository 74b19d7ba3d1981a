/**
 * Issue 34 items 7 and 8 through the API:
 * - GET /api/v1/contacts/export is the contacts list's filters as CSV, the file `sendwell export`
 *   writes (D17.6), made safe for spreadsheets (issue 28 L3), read in the read pool step by step;
 * - POST /v1/contacts/bulk's `consentStatement` is kept in the IMPORT consent records (D20), and
 *   with it a contact created without a list gets one too.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
let listId: number;

const exportCsv = (query = '', key = t.key) => server.request('GET', `/api/v1/contacts/export${query}`, { key });
const rowsOf = (text: string) => parse(text) as string[][];

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
  listId = await t.list('Newsletter');
  await t.contact({ email: 'ann@export.test', first_name: 'Ann', tags: ['vip'], custom_fields: { colour: 'blue', visits: 3 }, list_id: listId });
  await t.contact({ email: 'bob@export.test', first_name: 'Bob', custom_fields: { colour: '=HYPERLINK("http://evil.test")' } });
  await t.contact({ email: 'cy@export.test', first_name: 'Cy', tags: ['vip'], custom_fields: { shoe_size: 44 } });
});
afterAll(() => server?.close());

describe('GET /api/v1/contacts/export', () => {
  it('is the file `sendwell export` writes, as an attachment, formula cells quoted', { timeout: CLI_TIMEOUT }, async () => {
    const res = await exportCsv();
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="contacts.csv"');
    const cli = await sendwell(['export', '--account', String(t.accountId)], server.env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(res.text).toBe(cli.stdout);
    const [header, ...rows] = rowsOf(res.text);
    expect(header).toEqual(['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists', 'colour', 'shoe_size', 'visits']);
    expect(rows.map((r) => r[0])).toEqual(['ann@export.test', 'bob@export.test', 'cy@export.test']);
    expect(rows[0]).toEqual(['ann@export.test', 'Ann', '', '', 'SUBSCRIBED', 'vip', 'Newsletter', 'blue', '', '3']);
    expect(rows[1][7]).toBe(`'=HYPERLINK("http://evil.test")`);
  });

  it("keeps the contacts list's filters, its header naming only the keys of the contacts it keeps", async () => {
    const byTag = rowsOf((await exportCsv('?tag=vip')).text);
    expect(byTag.slice(1).map((r) => r[0])).toEqual(['ann@export.test', 'cy@export.test']);
    expect(byTag[0].slice(7)).toEqual(['colour', 'shoe_size', 'visits']);
    const byList = rowsOf((await exportCsv(`?list_id=${listId}`)).text);
    expect(byList.slice(1).map((r) => r[0])).toEqual(['ann@export.test']);
    expect(byList[0].slice(7)).toEqual(['colour', 'visits']);
    const bySearch = rowsOf((await exportCsv('?search=bob')).text);
    expect(bySearch.slice(1).map((r) => r[0])).toEqual(['bob@export.test']);

    const segment = await t.call('POST', '/api/v1/segments', { name: 'Big feet', filter: { field: 'custom_fields.shoe_size', op: 'gte', value: 40 } });
    expect(segment.status, segment.text).toBe(200);
    const bySegment = rowsOf((await exportCsv(`?segment_id=${segment.body.data.id}&tag=vip`)).text);
    expect(bySegment).toEqual([
      ['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists', 'shoe_size'],
      ['cy@export.test', 'Cy', '', '', 'SUBSCRIBED', 'vip', '', '44'],
    ]);
    // Nothing kept: the header alone.
    expect(rowsOf((await exportCsv('?status=BOUNCED')).text)).toEqual([['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists']]);
  });

  it("answers 404 for another account's list or segment, and needs contacts.read", async () => {
    const other = await tenant(server);
    const theirList = await other.list('Theirs');
    const theirSegment = (await other.call('POST', '/api/v1/segments', { name: 'All', filter: { field: 'status', op: 'eq', value: 'SUBSCRIBED' } })).body.data.id;
    const list = await exportCsv(`?list_id=${theirList}`);
    expect(list.status).toBe(404);
    expect(list.body.error.code).toBe('LIST_NOT_FOUND');
    const seg = await exportCsv(`?segment_id=${theirSegment}`);
    expect(seg.status).toBe(404);
    expect(seg.body.error.code).toBe('SEGMENT_NOT_FOUND');
    // The other account's export holds none of ours.
    expect(rowsOf((await exportCsv('', other.key)).text)).toHaveLength(1);

    const writer = await tenant(server, ['contacts.write']);
    const refused = await exportCsv('', writer.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PERMISSION_DENIED');
    expect((await server.request('GET', '/api/v1/contacts/export')).status).toBe(401);
  });

  it('refuses a bad filter with 400 naming it', async () => {
    const res = await exportCsv(`?search=${'x'.repeat(300)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('search');
    expect((await exportCsv('?status=LOST')).status).toBe(400);
  });

  it('streams more contacts than one page, in id order, every one once', async () => {
    const many = await tenant(server);
    const contacts = Array.from({ length: 2500 }, (_, i) => ({ email: `p${String(i).padStart(4, '0')}@many.test`, customFields: i === 2400 ? { late_key: 1 } : {} }));
    for (let i = 0; i < contacts.length; i += 1000) {
      const res = await many.call('POST', '/v1/contacts/bulk', { contacts: contacts.slice(i, i + 1000) });
      expect(res.status, res.text).toBe(200);
    }
    const [header, ...rows] = rowsOf((await exportCsv('', many.key)).text);
    expect(header.at(-1)).toBe('late_key');
    expect(rows.map((r) => r[0])).toEqual(contacts.map((c) => c.email));
    expect(rows[2400].at(-1)).toBe('1');
  });
});

describe('POST /v1/contacts/bulk: consentStatement', () => {
  const STATEMENT = 'These people agreed to hear from us';

  it('is kept in the IMPORT consent record of each contact created or joined to a list, lists or not', async () => {
    const i = await tenant(server);
    const list = await i.list('Imported');
    await i.contact({ email: 'old@consent.test' });
    const withList = await i.call('POST', '/v1/contacts/bulk', { listId: String(list), consentStatement: `  ${STATEMENT} `, contacts: [{ email: 'new@consent.test' }, { email: 'old@consent.test' }] });
    expect(withList.body).toMatchObject({ created: 1, skipped: 1 });
    const noList = await i.call('POST', '/v1/contacts/bulk', { consentStatement: STATEMENT, contacts: [{ email: 'bare@consent.test' }, { email: 'old@consent.test' }] });
    expect(noList.body).toMatchObject({ created: 1, skipped: 1 });
    const consents = async (email: string) => (await i.call('GET', `/api/v1/contacts/${email}/consents`)).body.data.consents;
    expect(await consents('new@consent.test')).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [list], statement: STATEMENT })]);
    // Joined the list by this import (the caller vouches for them): recorded once, for the list.
    expect(await consents('old@consent.test')).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [list], statement: STATEMENT })]);
    expect(await consents('bare@consent.test')).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [], statement: STATEMENT })]);
    // Without a statement, nothing changes: a contact created without a list has no record.
    await i.call('POST', '/v1/contacts/bulk', { contacts: [{ email: 'quiet@consent.test' }] });
    expect(await consents('quiet@consent.test')).toEqual([]);
    // D21's export carries it.
    const data = (await i.call('GET', '/api/v1/contacts/new@consent.test/export')).body.data;
    expect(data.consents[0].statement).toBe(STATEMENT);
  });

  it('is at most 500 characters, without NUL', async () => {
    const long = await t.call('POST', '/v1/contacts/bulk', { consentStatement: 'x'.repeat(501), contacts: [{ email: 'long@consent.test' }] });
    expect(long.status).toBe(400);
    const nul = await t.call('POST', '/v1/contacts/bulk', { consentStatement: 'yes\u0000', contacts: [{ email: 'nul@consent.test' }] });
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('consentStatement');
    expect((await t.call('GET', '/api/v1/contacts/nul@consent.test')).status).toBe(404);
  });
});
