import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, tenant, type Tenant } from '../sending/send-helpers.ts';

// D14: POST /v1/contacts/bulk. Flat bodies, per-item errors, one transaction, limits at the boundary.

let server: TestServer;
let t: Tenant;
const at = addressMaker('bulk');
const bulk = (body: unknown, key = t.key, auth: 'x-api-key' | 'bearer' = 'x-api-key') => server.request('POST', '/v1/contacts/bulk', { key, auth, body });
const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ email: at(`${prefix}${i}`) }));

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
});
afterAll(() => server?.close());

describe('D14 bulk import', () => {
  it('creates valid contacts and answers the flat form with counts', async () => {
    const res = await bulk({
      contacts: [
        { email: ` ${at('Ann').toUpperCase()} `, name: 'Ann Marie Smith', phone: '+1 555', tags: ['a', ' A ', 'b'], customFields: { plan: 'gold', seats: 3, gone: null } },
        { email: at('bo'), firstName: 'Bo', lastName: 'Li', name: 'Ignored Name' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, created: 2, updated: 0, skipped: 0, failed: 0, errors: [] });
    const ann = await t.getContact(at('ann'));
    expect(ann).toMatchObject({ email: at('ann'), first_name: 'Ann', last_name: 'Marie Smith', phone: '+1 555', tags: ['a', 'b'], custom_fields: { plan: 'gold', seats: 3 }, status: 'SUBSCRIBED' });
    expect(await t.getContact(at('bo'))).toMatchObject({ first_name: 'Bo', last_name: 'Li' });
  });

  it('reports invalid items by 0-based index and writes the valid ones (validated as a single create)', async () => {
    const res = await bulk({
      contacts: [
        { email: at('ok1') },
        { email: 'not-an-email' },
        'a string',
        { email: at('ok2'), tags: ['x'.repeat(65)] },
        { email: at('ok3'), phone: 'call me' },
        { email: at('ok4'), customFields: { '1bad': 1 } },
        { firstName: 'no email' },
        { email: at('ok5'), firstName: 7 },
        { email: at('ok6') },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, created: 2, updated: 0, skipped: 0, failed: 7 });
    expect(res.body.errors.map((e: any) => e.index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(res.body.errors[0]).toEqual({ index: 1, email: 'not-an-email', message: expect.stringContaining('valid e-mail') });
    expect(res.body.errors[1].email).toBeNull();
    expect(res.body.errors[2].message).toMatch(/tag/);
    expect(res.body.errors[3].message).toMatch(/phone/);
    expect(res.body.errors[4].message).toMatch(/customFields/);
    expect(res.body.errors[6].message).toMatch(/firstName/);
    expect((await server.request('GET', `/api/v1/contacts/${encodeURIComponent(at('ok2'))}`, { key: t.key })).status).toBe(404);
    expect((await t.getContact(at('ok6'))).email).toBe(at('ok6'));
  });

  it('an item holding U+0000 is one failed item, not a failed batch (PostgreSQL cannot store it)', async () => {
    const res = await bulk({ contacts: [{ email: at('nul-ok') }, { email: at('nul-bad'), firstName: 'A\u0000B' }, { email: at('nul-tag'), tags: ['x\u0000'] }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 1, failed: 2 });
    expect(res.body.errors.map((e: any) => [e.index, e.message])).toEqual([
      [1, expect.stringContaining('firstName')],
      [2, expect.stringContaining('tags')],
    ]);
    expect((await server.request('GET', `/api/v1/contacts/${encodeURIComponent(at('nul-bad'))}`, { key: t.key })).status).toBe(404);
    expect((await bulk({ listId: '1\u0000', contacts: [{ email: at('nul-list') }] })).status).toBe(400);
  });

  it('counts an e-mail repeated within a request once; later occurrences are skipped', async () => {
    const res = await bulk({ contacts: [{ email: at('dup'), firstName: 'First' }, { email: at('DUP'), firstName: 'Second' }, { email: at('dup') }] });
    expect(res.body).toMatchObject({ created: 1, skipped: 2, failed: 0 });
    expect((await t.getContact(at('dup'))).first_name).toBe('First');
  });

  it('skipDuplicates true (the default) leaves existing contacts unchanged', async () => {
    await t.contact({ email: at('keep'), first_name: 'Old', tags: ['t1'] });
    const res = await bulk({ contacts: [{ email: at('keep'), firstName: 'New' }, { email: at('fresh') }] });
    expect(res.body).toMatchObject({ created: 1, updated: 0, skipped: 1 });
    expect(await t.getContact(at('keep'))).toMatchObject({ first_name: 'Old', tags: ['t1'] });
  });

  it('skipDuplicates false updates existing contacts with the given fields only (custom fields merged)', async () => {
    await t.contact({ email: at('upd'), first_name: 'Old', last_name: 'Name', tags: ['t1'], custom_fields: { a: 1, b: 2 } });
    const res = await bulk({ skipDuplicates: false, contacts: [{ email: at('upd'), firstName: 'New', tags: ['t2'], customFields: { b: null, c: 3 } }, { email: at('new1') }] });
    expect(res.body).toMatchObject({ created: 1, updated: 1, skipped: 0, failed: 0 });
    expect(await t.getContact(at('upd'))).toMatchObject({ first_name: 'New', last_name: 'Name', tags: ['t2'], custom_fields: { a: 1, c: 3 } });
  });

  it('with listId every valid item ends up in the list, skipped ones included', async () => {
    const listId = await t.list(`bulk list ${Date.now()}`);
    await t.contact({ email: at('member-old') });
    const res = await bulk({ listId: String(listId), contacts: [{ email: at('member-old') }, { email: at('member-new') }, { email: 'bad' }, { email: at('member-new') }] });
    expect(res.body).toMatchObject({ created: 1, skipped: 2, failed: 1 });
    const members = (await server.request('GET', `/api/v1/lists/${listId}/contacts`, { key: t.key })).body.data;
    expect(members.contacts.map((c: any) => c.email).sort()).toEqual([at('member-new'), at('member-old')].sort());
    expect((await server.request('GET', `/api/v1/lists/${listId}`, { key: t.key })).body.data.contact_count).toBe(2);
  });

  it('a listId naming no list is 404 LIST_NOT_FOUND and writes nothing', async () => {
    const other = await tenant(server);
    const foreignList = await other.list('theirs');
    for (const listId of ['999999', String(foreignList)]) {
      const res = await bulk({ listId, contacts: [{ email: at(`nolist${listId}`) }] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Not Found', code: 'LIST_NOT_FOUND', message: expect.any(String) });
      expect((await server.request('GET', `/api/v1/contacts/${encodeURIComponent(at(`nolist${listId}`))}`, { key: t.key })).status).toBe(404);
    }
    expect((await bulk({ listId: 'abc', contacts: [{ email: at('x') }] })).status).toBe(400);
  });

  it('takes 1000 contacts, refuses 1001 and 0 (400, flat form)', async () => {
    const ok = await bulk({ contacts: many(1000, 'thousand') });
    expect(ok.status).toBe(200);
    expect(ok.body.created).toBe(1000);
    const over = await bulk({ contacts: many(1001, 'over') });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ success: false, error: 'Bad Request', code: 'INVALID_REQUEST' });
    expect((await server.request('GET', `/api/v1/contacts?search=${encodeURIComponent(at('over0'))}`, { key: t.key })).body.data.totalElements).toBe(0);
    const none = await bulk({ contacts: [] });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('INVALID_REQUEST');
    expect((await bulk({})).status).toBe(400);
  });

  it('accepts bodies up to 10 MiB on this route and refuses more with 413; other routes stop at 1 MiB', async () => {
    const padding = (bytes: number) => 'x'.repeat(bytes);
    // Unknown fields are ignored (D7), so padding makes a body of a chosen size.
    const body = (bytes: number) => JSON.stringify({ contacts: [{ email: at('big') }], pad: padding(bytes) });
    const underTen = await server.request('POST', '/v1/contacts/bulk', { key: t.key, rawBody: body(10 * 1024 * 1024 - 200) });
    expect(underTen.status).toBe(200);
    const overTen = await server.request('POST', '/v1/contacts/bulk', { key: t.key, rawBody: body(10 * 1024 * 1024 + 10) });
    expect(overTen.status).toBe(413);
    expect(overTen.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    const contact = await server.request('POST', '/api/v1/contacts', { key: t.key, rawBody: JSON.stringify({ email: at('big2'), pad: padding(1024 * 1024 + 10) }) });
    expect(contact.status).toBe(413);
  });

  it('accepts both auth header forms and needs contacts.write (403 even with a bad body)', async () => {
    expect((await bulk({ contacts: [{ email: at('bearer') }] }, t.key, 'bearer')).body.created).toBe(1);
    const noKey = await server.request('POST', '/v1/contacts/bulk', { body: { contacts: [{ email: at('nokey') }] } });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' });
    const reader = await server.createKey(t.accountId, ['contacts.read']);
    const denied = await bulk({ contacts: [] }, reader.key);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ success: false, code: 'PERMISSION_DENIED' });
  });
});
