import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../../src/domain/shared/json.ts';
import { accountClients, type Client } from '../helpers/clients.ts';
import { expectError, expectRead, expectWritten } from '../helpers/responses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Contacts under /api/v1/contacts: the spec's create / read / update, plus D11's list, delete and
 * field rules. Every test uses an account of its own, so counts and orders are its own.
 */

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/; // D1
const CONTACT_KEYS = ['id', 'email', 'first_name', 'last_name', 'phone', 'tags', 'custom_fields', 'lead_score', 'status', 'list_ids', 'memberships', 'created_at', 'updated_at'];
const PAGE_KEYS = ['contacts', 'page', 'size', 'totalElements', 'totalPages'];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const { newAccount, keyFor } = accountClients(() => server);

const contactPath = (email: string) => `/api/v1/contacts/${encodeURIComponent(email)}`;

/** The full contact object D11 describes, with D5's nulls and empty collections by default. */
function contactLike(fields: Record<string, unknown>) {
  return {
    id: expect.any(Number),
    first_name: null,
    last_name: null,
    phone: null,
    tags: [],
    custom_fields: {},
    lead_score: 0,
    status: 'SUBSCRIBED',
    list_ids: [],
    // D20: every membership with its status; the API's are SUBSCRIBED (the caller vouches).
    memberships: ((fields.list_ids as number[] | undefined) ?? []).map((list_id) => ({ list_id, status: 'SUBSCRIBED' })),
    created_at: expect.stringMatching(TS),
    updated_at: expect.stringMatching(TS),
    ...fields,
  };
}

async function create(client: Client, body: Record<string, unknown>) {
  const res = await client.call('POST', '/api/v1/contacts', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function createList(client: Client, name: string): Promise<number> {
  const res = await client.call('POST', '/api/v1/lists', { name });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

async function listCount(client: Client, listId: number): Promise<number> {
  const res = await client.call('GET', `/api/v1/lists/${listId}`);
  expect(res.status).toBe(200);
  return res.body.data.contact_count;
}

async function contactRows(accountId: number) {
  return server.db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

async function memberRows(contactId: number) {
  return server.db.selectFrom('list_members').select('list_id').where('contact_id', '=', contactId).orderBy('list_id').execute();
}

/** Exactly `length` characters, a valid address (local part 64, labels of 63 at most). */
function emailOfLength(length: number): string {
  const fixed = 64 + 1 + 63 + 1 + 63 + 1 + 4; // local@ccc.ddd. ... .com
  return `${'a'.repeat(64)}@${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(length - fixed)}.com`;
}

describe('POST /api/v1/contacts: create', () => {
  it('answers 200 with the full contact (D11 fields, D5 nulls, D1 times) and a message (D4)', async () => {
    const c = await newAccount();
    const res = await c.call('POST', '/api/v1/contacts', { email: 'ann@example.com' });
    expectWritten(res, contactLike({ email: 'ann@example.com' }));
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...CONTACT_KEYS].sort());
    expect(Number.isInteger(data.id) && data.id > 0).toBe(true);
    expect(data.created_at).toBe(data.updated_at);

    const [row] = await contactRows(c.accountId);
    expect(row).toMatchObject({ id: data.id, email: 'ann@example.com', first_name: null, last_name: null, phone: null, status: 'SUBSCRIBED', lead_score: 0 });
  });

  it('stores every given field and joins the list named by list_id', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'Newsletter');
    const res = await c.call('POST', '/api/v1/contacts', {
      email: 'bob@example.com',
      first_name: 'Bob',
      last_name: 'Stone',
      phone: '+1 (555) 010-99.00',
      tags: ['VIP', 'News'],
      custom_fields: { plan: 'gold', seats: 3, trial: false },
      list_id: listId,
    });
    expectWritten(
      res,
      contactLike({
        email: 'bob@example.com',
        first_name: 'Bob',
        last_name: 'Stone',
        phone: '+1 (555) 010-99.00',
        tags: ['VIP', 'News'],
        custom_fields: { plan: 'gold', seats: 3, trial: false },
        list_ids: [listId],
      }),
    );
    expect(await listCount(c, listId)).toBe(1);
    expect(await memberRows(res.body.data.id)).toEqual([{ list_id: listId }]);
  });

  it('ignores unknown body fields and fields the client may not set (D7)', async () => {
    const c = await newAccount();
    const res = await c.call('POST', '/api/v1/contacts', {
      email: 'x@example.com',
      favourite_colour: 'blue',
      id: 987654,
      lead_score: 50,
      status: 'UNSUBSCRIBED',
      created_at: '2000-01-01T00:00:00',
      list_ids: [1],
    });
    // Issue 15: still ignored, but named in `warnings`.
    expect(res.body.warnings).toEqual(['favourite_colour', 'id', 'lead_score', 'status', 'created_at', 'list_ids'].map((f) => `unknown field "${f}" was ignored`));
    delete res.body.warnings;
    expectWritten(res, contactLike({ email: 'x@example.com' }));
    expect(res.body.data.id).not.toBe(987654);
    expect(res.body.data.created_at).not.toBe('2000-01-01T00:00:00');
  });

  it('answers 403 PERMISSION_DENIED without contacts.write, and creates nothing', async () => {
    const c = await newAccount(['contacts.read', 'contacts.delete', 'lists.write']);
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com' }), 403, 'PERMISSION_DENIED');
    expect(await contactRows(c.accountId)).toHaveLength(0);
    const writer = await keyFor(c, ['contacts.write']);
    expect((await writer.call('POST', '/api/v1/contacts', { email: 'a@example.com' })).status).toBe(200);
  });
});

describe('D11 e-mail rules', () => {
  it('trims and lower-cases the e-mail in the body', async () => {
    const c = await newAccount();
    const data = await create(c, { email: '  Ann.Lee+News@Example.COM  ' });
    expect(data.email).toBe('ann.lee+news@example.com');
    expect((await contactRows(c.accountId))[0].email).toBe('ann.lee+news@example.com');
  });

  it('looks e-mails up in paths case-insensitively and trimmed, on GET, PUT and DELETE', async () => {
    const c = await newAccount();
    const { id } = await create(c, { email: 'ann@example.com' });
    for (const variant of ['ANN@EXAMPLE.COM', 'Ann@Example.com', ' ann@example.com ']) {
      const res = await c.call('GET', contactPath(variant));
      expect(res.status, variant).toBe(200);
      expect(res.body.data.id).toBe(id);
    }
    const put = await c.call('PUT', contactPath('ANN@example.COM'), { first_name: 'Ann' });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ id, email: 'ann@example.com', first_name: 'Ann' });
    const del = await c.call('DELETE', contactPath('Ann@EXAMPLE.com'));
    expectWritten(del, { email: 'ann@example.com' });
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });

  it('decodes %40 and %2B in paths while a literal + stays a plus', async () => {
    const c = await newAccount();
    const { id } = await create(c, { email: 'a+b@example.com' });
    for (const raw of ['a%2Bb%40example.com', 'a+b@example.com', 'a+b%40example.com', 'A%2BB%40EXAMPLE.COM']) {
      const res = await c.call('GET', `/api/v1/contacts/${raw}`);
      expect(res.status, raw).toBe(200);
      expect(res.body.data).toMatchObject({ id, email: 'a+b@example.com' });
    }
    // A plus is not a space: "a b@example.com" is not the contact.
    expectError(await c.call('GET', '/api/v1/contacts/a%20b%40example.com'), 404, 'CONTACT_NOT_FOUND');
    expect((await c.call('PUT', '/api/v1/contacts/a+b@example.com', { last_name: 'Plus' })).body.data.last_name).toBe('Plus');
    expect((await c.call('DELETE', '/api/v1/contacts/a%2Bb%40example.com')).status).toBe(200);
  });

  it('accepts 254 characters and refuses 255', async () => {
    const c = await newAccount();
    const long = emailOfLength(254);
    expect(long).toHaveLength(254);
    expect((await create(c, { email: long })).email).toBe(long);
    expect((await c.call('GET', contactPath(long))).status).toBe(200);

    const tooLong = emailOfLength(255);
    expect(tooLong).toHaveLength(255);
    expectError(await c.call('POST', '/api/v1/contacts', { email: tooLong }), 400, 'INVALID_REQUEST', /email/);
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it.each([
    ['missing', {}],
    ['empty', { email: '' }],
    ['blank', { email: '   ' }],
    ['no @', { email: 'not-an-email' }],
    ['no dotted domain', { email: 'ann@localhost' }],
    ['two @', { email: 'a@b@example.com' }],
    ['display name', { email: 'Ann <ann@example.com>' }],
    ['a number', { email: 42 }],
    ['null', { email: null }],
  ])('answers 400 INVALID_REQUEST for an e-mail that is %s, creating nothing', async (_label, body) => {
    const c = await newAccount();
    expectError(await c.call('POST', '/api/v1/contacts', body), 400, 'INVALID_REQUEST', /email/);
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });

  it('answers 409 CONTACT_ALREADY_EXISTS for an existing e-mail (any case, untrimmed) and changes nothing', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'Other');
    const original = await create(c, { email: 'dup@example.com', first_name: 'First', tags: ['a'], custom_fields: { k: 1 } });
    const res = await c.call('POST', '/api/v1/contacts', {
      email: '  DUP@Example.com ',
      first_name: 'Second',
      phone: '123',
      tags: ['b'],
      custom_fields: { k: 2 },
      list_id: listId,
    });
    expectError(res, 409, 'CONTACT_ALREADY_EXISTS');
    expectRead(await c.call('GET', contactPath('dup@example.com')), original);
    expect(await contactRows(c.accountId)).toHaveLength(1);
    expect(await listCount(c, listId)).toBe(0);
    expect(await memberRows(original.id)).toEqual([]);
  });

  it('concurrent creates of one e-mail: exactly one 200, the rest 409, one row', async () => {
    const c = await newAccount();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => c.call('POST', '/api/v1/contacts', { email: i % 2 ? 'race@example.com' : ' RACE@example.com' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expectError(r, 409, 'CONTACT_ALREADY_EXISTS');
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it('lets two accounts hold the same e-mail (D3)', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const inA = await create(a, { email: 'shared@example.com', first_name: 'A' });
    const inB = await create(b, { email: 'shared@example.com', first_name: 'B' });
    expect(inB.id).not.toBe(inA.id);
    expect((await a.call('GET', contactPath('shared@example.com'))).body.data.first_name).toBe('A');
  });
});

describe('D11 tags', () => {
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag${i}`);

  it('accepts 100 tags and refuses 101', async () => {
    const c = await newAccount();
    expect((await create(c, { email: 'a@example.com', tags: tags(100) })).tags).toEqual(tags(100));
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', tags: tags(101) }), 400, 'INVALID_REQUEST', /tags/);
    expectError(await c.call('PUT', contactPath('a@example.com'), { tags: tags(101) }), 400, 'INVALID_REQUEST', /tags/);
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it('accepts 64 characters after trimming, refuses 65 and blank tags, and stores them trimmed', async () => {
    const c = await newAccount();
    const t64 = 'x'.repeat(64);
    expect((await create(c, { email: 'a@example.com', tags: [`  ${t64}  `, ' spaced '] })).tags).toEqual([t64, 'spaced']);
    expect((await create(c, { email: 'emoji@example.com', tags: ['😀'.repeat(64)] })).tags).toEqual(['😀'.repeat(64)]); // code points
    for (const bad of ['x'.repeat(65), '😀'.repeat(65), '', '   ']) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', tags: ['ok', bad] }), 400, 'INVALID_REQUEST', /tag/);
    }
    expect(await contactRows(c.accountId)).toHaveLength(2);
  });

  it('removes duplicates case-insensitively, keeping the first spelling and the order', async () => {
    const c = await newAccount();
    const data = await create(c, { email: 'a@example.com', tags: [' VIP ', 'news', 'vip', 'News ', 'Vip', 'other'] });
    expect(data.tags).toEqual(['VIP', 'news', 'other']);
    const put = await c.call('PUT', contactPath('a@example.com'), { tags: ['b', 'B', 'a'] });
    expect(put.body.data.tags).toEqual(['b', 'a']);
  });

  it('answers 400 naming tags when tags is not an array of strings', async () => {
    const c = await newAccount();
    for (const bad of ['vip', [1], [null], { a: 'b' }]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com', tags: bad }), 400, 'INVALID_REQUEST', /tags/);
    }
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });
});

describe('D11 names and phone', () => {
  it.each(['first_name', 'last_name'])('%s: 255 code points accepted, 256 refused, on create and update', async (field) => {
    const c = await newAccount();
    const ok = '😀'.repeat(255); // 510 UTF-16 units, 255 code points
    expect((await create(c, { email: 'a@example.com', [field]: ok }))[field]).toBe(ok);
    expect((await create(c, { email: 'b@example.com', [field]: 'é'.repeat(255) }))[field]).toBe('é'.repeat(255));
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'c@example.com', [field]: 'a'.repeat(256) }), 400, 'INVALID_REQUEST', field);
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'c@example.com', [field]: '😀'.repeat(256) }), 400, 'INVALID_REQUEST', field);
    expectError(await c.call('PUT', contactPath('b@example.com'), { [field]: 'a'.repeat(256) }), 400, 'INVALID_REQUEST', field);
    expect((await c.call('GET', contactPath('b@example.com'))).body.data[field]).toBe('é'.repeat(255));
    expect(await contactRows(c.accountId)).toHaveLength(2);
  });

  it('phone: digits, spaces and + - ( ) . up to 32 characters', async () => {
    const c = await newAccount();
    expect((await create(c, { email: 'a@example.com', phone: '+44 (0)20 7946-0958.1' })).phone).toBe('+44 (0)20 7946-0958.1');
    expect((await create(c, { email: 'b@example.com', phone: '1'.repeat(32) })).phone).toBe('1'.repeat(32));
    for (const bad of ['1'.repeat(33), '555-CALL', '555#123', '+1 555 0100 ext 2', '٣٣٣']) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'c@example.com', phone: bad }), 400, 'INVALID_REQUEST', /phone/);
    }
    expectError(await c.call('PUT', contactPath('a@example.com'), { phone: 'abc' }), 400, 'INVALID_REQUEST', /phone/);
    expect((await c.call('GET', contactPath('a@example.com'))).body.data.phone).toBe('+44 (0)20 7946-0958.1');
    expect(await contactRows(c.accountId)).toHaveLength(2);
  });
});

describe('D11 custom_fields', () => {
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

  it('accepts 50 keys and refuses 51', async () => {
    const c = await newAccount();
    expect((await create(c, { email: 'a@example.com', custom_fields: fields(50) })).custom_fields).toEqual(fields(50));
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', custom_fields: fields(51) }), 400, 'INVALID_REQUEST', /custom_fields/);
    // On update the merged result counts: 50 kept plus one new is 51.
    expectError(await c.call('PUT', contactPath('a@example.com'), { custom_fields: { extra: 'x' } }), 400, 'INVALID_REQUEST', /custom_fields/);
    expect((await c.call('GET', contactPath('a@example.com'))).body.data.custom_fields).toEqual(fields(50));
  });

  it('keys must match ^[A-Za-z][A-Za-z0-9_]{0,63}$', async () => {
    const c = await newAccount();
    const good = { a: 1, Z: 2, plan_2: 3, ['k' + 'x'.repeat(63)]: 4 };
    expect((await create(c, { email: 'a@example.com', custom_fields: good })).custom_fields).toEqual(good);
    for (const bad of ['1st', '_private', 'has-dash', 'has space', 'ümlaut', '', 'k' + 'x'.repeat(64)]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', custom_fields: { ok: 1, [bad]: 'v' } }), 400, 'INVALID_REQUEST', /custom_fields/);
    }
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it('values are strings up to 1000 characters, numbers, booleans or null', async () => {
    const c = await newAccount();
    const good = { s: 'x'.repeat(1000), e: '😀'.repeat(1000), n: 1.5, neg: -3, z: 0, t: true, f: false, empty: '' };
    expect((await create(c, { email: 'a@example.com', custom_fields: good })).custom_fields).toEqual(good);
    for (const bad of ['x'.repeat(1001), { nested: 1 }, [1, 2]]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', custom_fields: { v: bad } }), 400, 'INVALID_REQUEST', /custom_fields/);
    }
    for (const bad of ['text', [1], 5]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', custom_fields: bad }), 400, 'INVALID_REQUEST', /custom_fields/);
    }
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it('drops null values at creation', async () => {
    const c = await newAccount();
    const data = await create(c, { email: 'a@example.com', custom_fields: { keep: 'yes', gone: null } });
    expect(data.custom_fields).toStrictEqual({ keep: 'yes' });
    expect(readJson((await contactRows(c.accountId))[0].custom_fields, null)).toStrictEqual({ keep: 'yes' });
  });

  it('merges on update: new keys added, given keys replaced, null removes, omitted keys kept', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com', custom_fields: { a: 1, b: 'two', c: true } });
    let res = await c.call('PUT', contactPath('a@example.com'), { custom_fields: { b: 'TWO', d: 4 } });
    expect(res.body.data.custom_fields).toStrictEqual({ a: 1, b: 'TWO', c: true, d: 4 });
    res = await c.call('PUT', contactPath('a@example.com'), { custom_fields: { a: null, missing: null } });
    expect(res.body.data.custom_fields).toStrictEqual({ b: 'TWO', c: true, d: 4 });
    res = await c.call('PUT', contactPath('a@example.com'), { first_name: 'Only name' });
    expect(res.body.data.custom_fields).toStrictEqual({ b: 'TWO', c: true, d: 4 });
    res = await c.call('PUT', contactPath('a@example.com'), { custom_fields: {} });
    expect(res.body.data.custom_fields).toStrictEqual({ b: 'TWO', c: true, d: 4 });
  });
});

describe('D11 list_id and list_name', () => {
  it('list_name selects the list case-insensitively and trimmed', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'Weekly News');
    const data = await create(c, { email: 'a@example.com', list_name: '  weekly NEWS ' });
    expect(data.list_ids).toEqual([listId]);
    expect(await listCount(c, listId)).toBe(1);
  });

  it('list_id and list_name naming the same list are fine', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'Same');
    expect((await create(c, { email: 'a@example.com', list_id: listId, list_name: 'SAME' })).list_ids).toEqual([listId]);
  });

  it('a missing list (by id, by name, or another account\'s) is 404 LIST_NOT_FOUND and creates nothing', async () => {
    const c = await newAccount();
    const other = await newAccount();
    const foreignList = await createList(other, 'Theirs');
    const ownList = await createList(c, 'Mine');
    for (const ref of [{ list_id: 999999 }, { list_name: 'No such list' }, { list_id: foreignList }, { list_name: 'Theirs' }, { list_id: ownList, list_name: 'nope' }]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com', ...ref }), 404, 'LIST_NOT_FOUND');
    }
    expect(await contactRows(c.accountId)).toHaveLength(0);
    expect(await listCount(c, ownList)).toBe(0);
    expect(await listCount(other, foreignList)).toBe(0);
  });

  it('list_id and list_name naming different lists is 400 and creates nothing', async () => {
    const c = await newAccount();
    const one = await createList(c, 'One');
    await createList(c, 'Two');
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com', list_id: one, list_name: 'Two' }), 400, 'INVALID_REQUEST', /list/);
    expect(await contactRows(c.accountId)).toHaveLength(0);
    expect(await listCount(c, one)).toBe(0);
  });

  it('a list_id that is not a positive integer is 400 naming list_id', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'L');
    for (const bad of [String(listId), 0, -1, 1.5, true]) {
      expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com', list_id: bad }), 400, 'INVALID_REQUEST', /list_id/);
    }
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'a@example.com', list_name: 5 }), 400, 'INVALID_REQUEST', /list_name/);
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });

  it('PUT with list_id or list_name adds the contact to that list, keeping its other lists', async () => {
    const c = await newAccount();
    const first = await createList(c, 'First');
    const second = await createList(c, 'Second');
    const third = await createList(c, 'Third');
    await create(c, { email: 'a@example.com', list_id: first });
    let res = await c.call('PUT', contactPath('a@example.com'), { list_id: second });
    expect(res.body.data.list_ids).toEqual([first, second]);
    res = await c.call('PUT', contactPath('a@example.com'), { list_name: 'THIRD' });
    expect(res.body.data.list_ids).toEqual([first, second, third]);
    // Already a member: no change and no double count.
    res = await c.call('PUT', contactPath('a@example.com'), { list_id: first });
    expect(res.body.data.list_ids).toEqual([first, second, third]);
    expect([await listCount(c, first), await listCount(c, second), await listCount(c, third)]).toEqual([1, 1, 1]);
  });

  it('PUT naming a missing list is 404 LIST_NOT_FOUND and changes nothing', async () => {
    const c = await newAccount();
    const before = await create(c, { email: 'a@example.com', first_name: 'Before' });
    expectError(await c.call('PUT', contactPath('a@example.com'), { first_name: 'After', list_id: 424242 }), 404, 'LIST_NOT_FOUND');
    expectError(await c.call('PUT', contactPath('a@example.com'), { first_name: 'After', list_name: 'ghost' }), 404, 'LIST_NOT_FOUND');
    const one = await createList(c, 'One');
    await createList(c, 'Two');
    expectError(await c.call('PUT', contactPath('a@example.com'), { first_name: 'After', list_id: one, list_name: 'two' }), 400, 'INVALID_REQUEST');
    expectRead(await c.call('GET', contactPath('a@example.com')), before);
  });
});

describe('GET /api/v1/contacts/{email}', () => {
  it('answers 200 with the contact and no message (D4)', async () => {
    const c = await newAccount();
    const created = await create(c, { email: 'a@example.com', first_name: 'A', tags: ['t'], custom_fields: { x: 'y' } });
    const res = await c.call('GET', contactPath('a@example.com'));
    expectRead(res, created);
    expect(Object.keys(res.body.data).sort()).toEqual([...CONTACT_KEYS].sort());
  });

  it('answers 404 CONTACT_NOT_FOUND for an unknown address, a non-address and another account\'s contact (D3)', async () => {
    const c = await newAccount();
    const other = await newAccount();
    await create(other, { email: 'theirs@example.com' });
    for (const email of ['nobody@example.com', 'not-an-email', 'theirs@example.com']) {
      expectError(await c.call('GET', contactPath(email)), 404, 'CONTACT_NOT_FOUND');
    }
  });

  it('needs contacts.read', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    expectError(await (await keyFor(c, ['contacts.write', 'contacts.delete'])).call('GET', contactPath('a@example.com')), 403, 'PERMISSION_DENIED');
    expect((await (await keyFor(c, ['contacts.read'])).call('GET', contactPath('a@example.com'))).status).toBe(200);
  });
});

describe('PUT /api/v1/contacts/{email}', () => {
  it('answers 200 with the whole updated contact and a message; omitted fields keep their values', async () => {
    const c = await newAccount();
    const listId = await createList(c, 'L');
    const created = await create(c, {
      email: 'a@example.com',
      first_name: 'Ann',
      last_name: 'Lee',
      phone: '123',
      tags: ['x'],
      custom_fields: { k: 'v' },
      list_id: listId,
    });
    const res = await c.call('PUT', contactPath('a@example.com'), { first_name: 'Annie' });
    expectWritten(res, { ...created, first_name: 'Annie', updated_at: expect.stringMatching(TS) });
    expect(res.body.data.updated_at >= created.updated_at).toBe(true);
    expectRead(await c.call('GET', contactPath('a@example.com')), res.body.data);
  });

  it('an empty body changes nothing but answers 200', async () => {
    const c = await newAccount();
    const created = await create(c, { email: 'a@example.com', first_name: 'Ann', tags: ['x'] });
    const res = await c.call('PUT', contactPath('a@example.com'), {});
    expectWritten(res, { ...created, updated_at: expect.stringMatching(TS) });
  });

  it('tags replace the existing tags entirely', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com', tags: ['a', 'b'] });
    expect((await c.call('PUT', contactPath('a@example.com'), { tags: ['c'] })).body.data.tags).toEqual(['c']);
    expect((await c.call('PUT', contactPath('a@example.com'), { tags: [] })).body.data.tags).toEqual([]);
    expect(readJson((await contactRows(c.accountId))[0].tags, null)).toEqual([]);
  });

  it('null clears an optional string (D5: it then reads as null)', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com', first_name: 'Ann', last_name: 'Lee', phone: '1' });
    const res = await c.call('PUT', contactPath('a@example.com'), { first_name: null, phone: null });
    expect(res.body.data).toMatchObject({ first_name: null, last_name: 'Lee', phone: null });
  });

  it('status may be set to SUBSCRIBED or UNSUBSCRIBED only', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    expect((await c.call('PUT', contactPath('a@example.com'), { status: 'UNSUBSCRIBED' })).body.data.status).toBe('UNSUBSCRIBED');
    expect((await c.call('PUT', contactPath('a@example.com'), { first_name: 'Kept' })).body.data.status).toBe('UNSUBSCRIBED');
    expect((await c.call('PUT', contactPath('a@example.com'), { status: 'SUBSCRIBED' })).body.data.status).toBe('SUBSCRIBED');
    for (const bad of ['BOUNCED', 'COMPLAINED', 'unsubscribed', 'GONE', 1, null]) {
      expectError(await c.call('PUT', contactPath('a@example.com'), { status: bad }), 400, 'INVALID_REQUEST', /status/);
    }
    expect((await contactRows(c.accountId))[0].status).toBe('SUBSCRIBED');
  });

  it('ignores an e-mail in the body: the address cannot be changed', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    const res = await c.call('PUT', contactPath('a@example.com'), { email: 'b@example.com', lead_score: 9, unknown: true, first_name: 'X' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ email: 'a@example.com', lead_score: 0, first_name: 'X' });
    expect('unknown' in res.body.data).toBe(false);
  });

  it('answers 404 CONTACT_NOT_FOUND for an unknown contact and creates nothing', async () => {
    const c = await newAccount();
    expectError(await c.call('PUT', contactPath('nobody@example.com'), { first_name: 'X' }), 404, 'CONTACT_NOT_FOUND');
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });

  it.each([
    ['first_name', 5],
    ['last_name', ['x']],
    ['phone', 5551234],
    ['tags', 'one'],
    ['custom_fields', 'x'],
    ['list_id', 'abc'],
    ['list_name', false],
  ])('a wrong JSON type for %s is 400 INVALID_REQUEST naming the field, nothing changed (D7)', async (field, value) => {
    const c = await newAccount();
    const created = await create(c, { email: 'a@example.com', first_name: 'Ann' });
    expectError(await c.call('PUT', contactPath('a@example.com'), { first_name: 'Changed', [field]: value }), 400, 'INVALID_REQUEST', field);
    expectError(await c.call('POST', '/api/v1/contacts', { email: 'b@example.com', [field]: value }), 400, 'INVALID_REQUEST', field);
    expectRead(await c.call('GET', contactPath('a@example.com')), created);
    expect(await contactRows(c.accountId)).toHaveLength(1);
  });

  it('malformed JSON is 400 INVALID_REQUEST', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    const res = await server.request('PUT', contactPath('a@example.com'), { key: c.key, rawBody: '{"first_name": ' });
    expectError(res, 400, 'INVALID_REQUEST');
    const post = await server.request('POST', '/api/v1/contacts', { key: c.key, rawBody: '{email: "x@example.com"}' });
    expectError(post, 400, 'INVALID_REQUEST');
  });

  it('needs contacts.write', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    expectError(await (await keyFor(c, ['contacts.read', 'contacts.delete'])).call('PUT', contactPath('a@example.com'), { first_name: 'X' }), 403, 'PERMISSION_DENIED');
    expect((await contactRows(c.accountId))[0].first_name).toBeNull();
    expect((await (await keyFor(c, ['contacts.write'])).call('PUT', contactPath('a@example.com'), { first_name: 'X' })).status).toBe(200);
  });
});

describe('DELETE /api/v1/contacts/{email}', () => {
  it('answers 200 with the e-mail and a message, removes the contact and its memberships, and lowers each list\'s contact_count', async () => {
    const c = await newAccount();
    const one = await createList(c, 'One');
    const two = await createList(c, 'Two');
    const { id } = await create(c, { email: 'gone@example.com', list_id: one });
    await c.call('PUT', contactPath('gone@example.com'), { list_id: two });
    await create(c, { email: 'stays@example.com', list_id: one });
    expect([await listCount(c, one), await listCount(c, two)]).toEqual([2, 1]);

    expectWritten(await c.call('DELETE', contactPath('  GONE@example.com')), { email: 'gone@example.com' });
    expectError(await c.call('GET', contactPath('gone@example.com')), 404, 'CONTACT_NOT_FOUND');
    expect([await listCount(c, one), await listCount(c, two)]).toEqual([1, 0]);
    expect(await memberRows(id)).toEqual([]);
    expect((await contactRows(c.accountId)).map((r) => r.email)).toEqual(['stays@example.com']);
  });

  it('answers 404 CONTACT_NOT_FOUND for an unknown or already deleted contact, and for another account\'s', async () => {
    const c = await newAccount();
    const other = await newAccount();
    await create(other, { email: 'theirs@example.com' });
    await create(c, { email: 'a@example.com' });
    expect((await c.call('DELETE', contactPath('a@example.com'))).status).toBe(200);
    expectError(await c.call('DELETE', contactPath('a@example.com')), 404, 'CONTACT_NOT_FOUND');
    expectError(await c.call('DELETE', contactPath('theirs@example.com')), 404, 'CONTACT_NOT_FOUND');
    expect(await contactRows(other.accountId)).toHaveLength(1);
  });

  it('needs contacts.delete (contacts.write is not enough)', async () => {
    const c = await newAccount();
    await create(c, { email: 'a@example.com' });
    expectError(await (await keyFor(c, ['contacts.read', 'contacts.write'])).call('DELETE', contactPath('a@example.com')), 403, 'PERMISSION_DENIED');
    expect(await contactRows(c.accountId)).toHaveLength(1);
    expect((await (await keyFor(c, ['contacts.delete'])).call('DELETE', contactPath('a@example.com'))).status).toBe(200);
    expect(await contactRows(c.accountId)).toHaveLength(0);
  });

  it('the e-mail can be created again afterwards, as a new contact', async () => {
    const c = await newAccount();
    const first = await create(c, { email: 'a@example.com', first_name: 'Old' });
    await c.call('DELETE', contactPath('a@example.com'));
    const second = await create(c, { email: 'a@example.com' });
    expect(second.id).not.toBe(first.id);
    expect(second.first_name).toBeNull();
  });
});

describe('GET /api/v1/contacts: paging (D6)', () => {
  async function seed(c: Client, n: number) {
    for (let i = 0; i < n; i++) await create(c, { email: `c${String(i).padStart(3, '0')}@example.com` });
  }

  it('defaults to page 0, size 20, with the page object and no message', async () => {
    const c = await newAccount();
    await seed(c, 25);
    const res = await c.call('GET', '/api/v1/contacts');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    expect(Object.keys(res.body.data).sort()).toEqual([...PAGE_KEYS].sort());
    expect(res.body.data).toMatchObject({ page: 0, size: 20, totalElements: 25, totalPages: 2 });
    expect(res.body.data.contacts).toHaveLength(20);
    for (const contact of res.body.data.contacts) expect(contact).toStrictEqual(contactLike({ email: expect.any(String) }));

    const second = await c.call('GET', '/api/v1/contacts?page=1');
    expect(second.body.data).toMatchObject({ page: 1, size: 20, totalElements: 25, totalPages: 2 });
    expect(second.body.data.contacts).toHaveLength(5);
    const all = [...res.body.data.contacts, ...second.body.data.contacts].map((x: { email: string }) => x.email);
    expect(new Set(all).size).toBe(25);
  });

  it('accepts size 100 and size 1', async () => {
    const c = await newAccount();
    await seed(c, 3);
    const big = await c.call('GET', '/api/v1/contacts?size=100');
    expect(big.body.data).toMatchObject({ page: 0, size: 100, totalElements: 3, totalPages: 1 });
    expect(big.body.data.contacts).toHaveLength(3);
    const small = await c.call('GET', '/api/v1/contacts?size=1&page=2');
    expect(small.body.data).toMatchObject({ page: 2, size: 1, totalElements: 3, totalPages: 3 });
    expect(small.body.data.contacts).toHaveLength(1);
  });

  it('a page past the last is 200 with an empty array and the true totals', async () => {
    const c = await newAccount();
    await seed(c, 3);
    expectRead(await c.call('GET', '/api/v1/contacts?page=5&size=2'), { contacts: [], page: 5, size: 2, totalElements: 3, totalPages: 2 });
  });

  it('an account without contacts reads an empty first page', async () => {
    const c = await newAccount();
    expectRead(await c.call('GET', '/api/v1/contacts'), { contacts: [], page: 0, size: 20, totalElements: 0, totalPages: 0 });
  });

  it('the largest page (2^53 - 1) with size 100 is still an empty 200', async () => {
    const c = await newAccount();
    await seed(c, 1);
    expectRead(await c.call('GET', '/api/v1/contacts?page=9007199254740991&size=100'), { contacts: [], page: 9007199254740991, size: 100, totalElements: 1, totalPages: 1 });
  });

  // page=1e20 and 1e400 used to reach the database (bigint OFFSET overflow) or the serializer (Infinity) as a 500.
  it.each(['size=101', 'size=0', 'size=-1', 'size=1.5', 'size=abc', 'size=', 'page=-1', 'page=1.5', 'page=x', 'page=', 'page=100000000000000000000', 'page=1e400'])('%s is 400 INVALID_REQUEST', async (query) => {
    const c = await newAccount();
    expectError(await c.call('GET', `/api/v1/contacts?${query}`), 400, 'INVALID_REQUEST', query.split('=')[0]);
  });

  it('orders newest first, ties by id descending', async () => {
    const c = await newAccount();
    const ids: number[] = [];
    for (const e of ['a', 'b', 'c', 'd', 'e']) ids.push((await create(c, { email: `${e}@example.com` })).id);
    const [a, b, cc, d, e] = ids;
    const at: Record<number, string> = {
      [a]: '2024-03-01T00:00:00.000Z',
      [b]: '2024-01-01T00:00:00.000Z',
      [cc]: '2024-02-01T00:00:00.000Z',
      [d]: '2024-02-01T00:00:00.000Z',
      [e]: '2024-02-01T00:00:00.000Z',
    };
    for (const [id, createdAt] of Object.entries(at)) await server.db.updateTable('contacts').set({ created_at: createdAt }).where('id', '=', Number(id)).execute();
    const res = await c.call('GET', '/api/v1/contacts');
    expect(res.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([a, e, d, cc, b]);
    expect(res.body.data.contacts[0].created_at).toBe('2024-03-01T00:00:00');
    const paged = await c.call('GET', '/api/v1/contacts?size=2&page=1');
    expect(paged.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([d, cc]);
  });

  it('shows only the caller\'s contacts (D3)', async () => {
    const c = await newAccount();
    const other = await newAccount();
    await seed(other, 2);
    await create(c, { email: 'mine@example.com' });
    const res = await c.call('GET', '/api/v1/contacts');
    expect(res.body.data.totalElements).toBe(1);
    expect(res.body.data.contacts.map((x: { email: string }) => x.email)).toEqual(['mine@example.com']);
  });

  it('needs contacts.read', async () => {
    const c = await newAccount();
    expectError(await (await keyFor(c, ['contacts.write', 'lists.read'])).call('GET', '/api/v1/contacts'), 403, 'PERMISSION_DENIED');
    expect((await (await keyFor(c, ['contacts.read'])).call('GET', '/api/v1/contacts')).status).toBe(200);
  });
});

describe('GET /api/v1/contacts: filters (D11)', () => {
  let c: Client;
  let newsId: number;
  let otherListId: number;
  beforeAll(async () => {
    c = await newAccount();
    newsId = await createList(c, 'News');
    otherListId = await createList(c, 'Other');
    await create(c, { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', tags: ['VIP', 'beta'], list_id: newsId });
    await create(c, { email: 'bob@example.org', first_name: 'Bob', last_name: 'Annand', tags: ['vipper'], list_id: newsId });
    await create(c, { email: 'carol@example.com', first_name: 'Carol', last_name: 'King', tags: ['vip'] });
    await create(c, { email: 'per%cent_x@example.com', first_name: 'Odd', tags: [] });
    await c.call('PUT', contactPath('carol@example.com'), { status: 'UNSUBSCRIBED' });
  });

  async function emails(query: string): Promise<string[]> {
    const res = await c.call('GET', `/api/v1/contacts?${query}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.totalElements).toBe(res.body.data.contacts.length);
    return res.body.data.contacts.map((x: { email: string }) => x.email).sort();
  }

  it('search matches e-mail, first or last name, case-insensitively', async () => {
    expect(await emails('search=ANN')).toEqual(['ann@example.com', 'bob@example.org']);
    expect(await emails('search=example.org')).toEqual(['bob@example.org']);
    expect(await emails('search=king')).toEqual(['carol@example.com']);
    expect(await emails('search=nobody')).toEqual([]);
  });

  it('search takes % and _ literally', async () => {
    expect(await emails('search=%25')).toEqual(['per%cent_x@example.com']);
    expect(await emails('search=_')).toEqual(['per%cent_x@example.com']);
  });

  it('tag matches a whole tag, case-insensitively', async () => {
    expect(await emails('tag=vip')).toEqual(['ann@example.com', 'carol@example.com']);
    expect(await emails('tag=BETA')).toEqual(['ann@example.com']);
    expect(await emails('tag=vi')).toEqual([]);
  });

  it('list_id keeps the list\'s members; an empty or unknown list gives none', async () => {
    expect(await emails(`list_id=${newsId}`)).toEqual(['ann@example.com', 'bob@example.org']);
    expect(await emails(`list_id=${otherListId}`)).toEqual([]);
    expect(await emails('list_id=999999')).toEqual([]);
  });

  it('status filters by status', async () => {
    expect(await emails('status=UNSUBSCRIBED')).toEqual(['carol@example.com']);
    expect(await emails('status=SUBSCRIBED')).toEqual(['ann@example.com', 'bob@example.org', 'per%cent_x@example.com']);
    expect(await emails('status=BOUNCED')).toEqual([]);
  });

  it('filters combine, and totals count the filtered set', async () => {
    expect(await emails(`tag=vip&list_id=${newsId}`)).toEqual(['ann@example.com']);
    expect(await emails('search=example.com&status=SUBSCRIBED')).toEqual(['ann@example.com', 'per%cent_x@example.com']);
    const res = await c.call('GET', '/api/v1/contacts?search=example&size=1&page=1');
    expect(res.body.data).toMatchObject({ page: 1, size: 1, totalElements: 4, totalPages: 4 });
    expect(res.body.data.contacts).toHaveLength(1);
  });

  it.each(['status=FOO', 'status=subscribed', 'list_id=abc', 'list_id=0', 'list_id=-3'])('%s is 400 INVALID_REQUEST naming the parameter', async (query) => {
    expectError(await c.call('GET', `/api/v1/contacts?${query}`), 400, 'INVALID_REQUEST', query.split('=')[0]);
  });
});
