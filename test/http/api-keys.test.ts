import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/accounts/plans.ts';
import { PERMISSIONS } from '../../src/domain/api-keys/permissions.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

// D9: the key object's exact field set; `key` is added only by create and regenerate.
const KEY_FIELDS = [
  'created_at',
  'description',
  'expires_at',
  'id',
  'last_used_at',
  'masked_key',
  'name',
  'permanently_revoked',
  'permissions',
  'request_count',
  'status',
];
// The spec's permission table without `*` (pinned against the spec in permissions.test.ts).
const ALL_BUT_STAR = PERMISSIONS.filter((p) => p !== '*');
const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** D1's response form of an instant. */
const d1 = (date: Date) => date.toISOString().slice(0, 19);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/** D9: CRC32 (IEEE) of everything before the checksum, base62, left-padded with 0 to 6. */
function expectedChecksum(body: string): string {
  let n = crc32(body);
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(6, '0');
}

function expectKeyValue(key: string) {
  expect(key).toMatch(/^sw_[0-9A-Za-z]{38,}$/);
  expect(key.slice(-6)).toBe(expectedChecksum(key.slice(0, -6)));
}

function expectKeyObject(data: any, withValue = false) {
  expect(Object.keys(data).sort()).toEqual(withValue ? [...KEY_FIELDS, 'key'].sort() : KEY_FIELDS);
  expect(data.id).toBeTypeOf('number');
  expect(data.created_at).toMatch(D1_TIMESTAMP);
  if (data.last_used_at !== null) expect(data.last_used_at).toMatch(D1_TIMESTAMP);
  if (data.expires_at !== null) expect(data.expires_at).toMatch(D1_TIMESTAMP);
  if (withValue) {
    expectKeyValue(data.key);
    expect(data.masked_key).toBe(`${data.key.slice(0, 7)}...${data.key.slice(-4)}`);
  }
}

function expectError(res: ApiResponse, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  expect(res.body.error.message).toBeTypeOf('string');
}

function expectOk(res: ApiResponse, written: boolean) {
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  // D4: writes and actions carry a message, reads do not.
  if (written) expect(res.body.message).toBeTypeOf('string');
  else expect(res.body).not.toHaveProperty('message');
}

interface Account {
  accountId: number;
  /** a `*` key of the account, created outside HTTP so it adds no usage by itself */
  admin: { id: number; key: string };
  /** calls the API with the account's `*` key */
  api(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** creates a key through POST /api/v1/api-keys and returns its data (with `key`) */
  createKey(body: Record<string, unknown>): Promise<any>;
}

async function newAccount(plan: Plan = 'enterprise'): Promise<Account> {
  const account = await server.createAccount({ plan });
  const admin = await server.createKey(account.id, ['*'], { name: 'admin key' });
  const api = (method: string, path: string, body?: unknown) => server.request(method, path, { key: admin.key, body });
  return {
    accountId: account.id,
    admin,
    api,
    async createKey(body) {
      const res = await api('POST', '/api/v1/api-keys', body);
      expectOk(res, true);
      return res.body.data;
    },
  };
}

const lists = (key: string) => server.request('GET', '/api/v1/lists', { key });

describe('API key object and value (D9)', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await newAccount();
  });

  it('POST /api/v1/api-keys returns the object with the full value in `key`, once', async () => {
    const res = await acct.api('POST', '/api/v1/api-keys', {
      name: 'Production server',
      description: 'billing worker',
      permissions: ['contacts.read', 'lists.write', 'contacts.read'],
    });
    expectOk(res, true);
    const data = res.body.data;
    expectKeyObject(data, true);
    expect(data).toMatchObject({
      name: 'Production server',
      description: 'billing worker',
      permissions: ['contacts.read', 'lists.write'],
      status: 'Active',
      permanently_revoked: false,
      request_count: 0,
      last_used_at: null,
      expires_at: null,
    });

    // The value is never shown again: not by GET, not in the list, not in the summary.
    const get = await acct.api('GET', `/api/v1/api-keys/${data.id}`);
    expectOk(get, false);
    expectKeyObject(get.body.data);
    expect(get.body.data).toEqual({ ...data, key: undefined, request_count: 0, last_used_at: null });
    expect(get.text).not.toContain(data.key);
    const page = await acct.api('GET', '/api/v1/api-keys?size=100');
    expect(page.text).not.toContain(data.key);
    for (const k of page.body.data.api_keys) expectKeyObject(k);
    expect((await acct.api('GET', '/api/v1/api-keys/summary')).text).not.toContain(data.key);

    // Stored only as SHA-256: no column holds the value.
    const row = await server.db.selectFrom('api_keys').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256(data.key));
    expect(JSON.stringify(row)).not.toContain(data.key.slice(7, -4));

    // And the value works, with both header forms (D8).
    expect((await server.request('GET', '/api/v1/contacts', { key: data.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/contacts', { key: data.key, auth: 'bearer' })).status).toBe(200);
  });

  it('key values are sw_ + base62 + CRC32 checksum, all different; a wrong checksum is 401 (D9)', async () => {
    const values = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const data = await acct.createKey({ name: `format ${i}`, permissions: ['*'] });
      expectKeyValue(data.key);
      values.add(data.key);
    }
    expect(values.size).toBe(3);
    const [key] = values;
    const last = key.at(-1)!;
    const tampered = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    expectError(await lists(tampered), 401, 'UNAUTHORIZED');
    expect((await lists(key)).status).toBe(200);
  });

  it('a description may be omitted (null, D5) and absent expires_at means no expiry', async () => {
    const data = await acct.createKey({ name: 'minimal', permissions: ['lists.read'] });
    expect(data).toMatchObject({ description: null, expires_at: null, permissions: ['lists.read'] });
  });

  it('GET /{id} of a missing key, or another account\'s key, is 404 API_KEY_NOT_FOUND on every id route (D3)', async () => {
    const other = await newAccount();
    const foreign = other.admin.id;
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v1/api-keys/${foreign}`],
      ['PUT', `/api/v1/api-keys/${foreign}`, { name: 'stolen' }],
      ['DELETE', `/api/v1/api-keys/${foreign}`],
      ['POST', `/api/v1/api-keys/${foreign}/deactivate`],
      ['POST', `/api/v1/api-keys/${foreign}/activate`],
      ['POST', `/api/v1/api-keys/${foreign}/regenerate`],
      ['POST', `/api/v1/api-keys/${foreign}/revoke`],
      ['GET', '/api/v1/api-keys/999999'],
      ['POST', '/api/v1/api-keys/999999/revoke'],
    ];
    for (const [method, path, body] of routes) expectError(await acct.api(method, path, body), 404, 'API_KEY_NOT_FOUND');
    // The other account's key is untouched and still works.
    const still = await other.api('GET', `/api/v1/api-keys/${foreign}`);
    expect(still.body.data).toMatchObject({ name: 'admin key', status: 'Active', permanently_revoked: false });
    // And it never shows up in this account's list.
    const page = await acct.api('GET', '/api/v1/api-keys?size=100');
    expect(page.body.data.api_keys.map((k: any) => k.id)).not.toContain(foreign);
  });

  it('a path id that is not a positive integer is 400 INVALID_REQUEST (D2)', async () => {
    for (const path of ['/api/v1/api-keys/abc', '/api/v1/api-keys/0', '/api/v1/api-keys/01', '/api/v1/api-keys/-1']) {
      expectError(await acct.api('GET', path), 400, 'INVALID_REQUEST');
    }
    expectError(await acct.api('POST', '/api/v1/api-keys/0/revoke'), 400, 'INVALID_REQUEST');
  });
});

describe('paging, search and status filter (D6, D9)', () => {
  let acct: Account;
  const ids: Record<string, number> = {};
  const masked: Record<string, string> = {};
  beforeAll(async () => {
    acct = await newAccount();
    for (const name of ['Production Server', 'staging worker', 'CI pipeline', 'Old laptop', '100% test']) {
      const data = await acct.createKey({ name, permissions: ['contacts.read'] });
      ids[name] = data.id;
      masked[name] = data.masked_key;
    }
    expectOk(await acct.api('POST', `/api/v1/api-keys/${ids['staging worker']}/deactivate`), true);
    expectOk(await acct.api('POST', `/api/v1/api-keys/${ids['CI pipeline']}/revoke`), true);
    // An already expired key cannot be created through the API (expires_at must be future): seed it.
    await server.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', ids['Old laptop']).execute();
  });

  const page = async (query: string) => {
    const res = await acct.api('GET', `/api/v1/api-keys?${query}`);
    expectOk(res, false);
    return res.body.data;
  };
  const namesOf = (data: any) => data.api_keys.map((k: any) => k.name);

  it('lists every key of the account, oldest first, in the page shape', async () => {
    const data = await page('');
    expect(Object.keys(data).sort()).toEqual(['api_keys', 'page', 'size', 'totalElements', 'totalPages']);
    expect(data).toMatchObject({ page: 0, size: 20, totalElements: 6, totalPages: 1 });
    expect(namesOf(data)).toEqual(['admin key', 'Production Server', 'staging worker', 'CI pipeline', 'Old laptop', '100% test']);
    const byName = Object.fromEntries(data.api_keys.map((k: any) => [k.name, k]));
    expect(byName['staging worker']).toMatchObject({ status: 'Revoked', permanently_revoked: false });
    expect(byName['CI pipeline']).toMatchObject({ status: 'Revoked', permanently_revoked: true });
    expect(byName['Old laptop']).toMatchObject({ status: 'Expired', permanently_revoked: false });
    expect(byName['Production Server']).toMatchObject({ status: 'Active', permanently_revoked: false });
  });

  it('pages with page and size; past the last page is empty with true totals', async () => {
    const first = await page('page=0&size=4');
    expect(first).toMatchObject({ page: 0, size: 4, totalElements: 6, totalPages: 2 });
    expect(namesOf(first)).toEqual(['admin key', 'Production Server', 'staging worker', 'CI pipeline']);
    const second = await page('page=1&size=4');
    expect(namesOf(second)).toEqual(['Old laptop', '100% test']);
    const beyond = await page('page=5&size=4');
    expect(beyond).toEqual({ api_keys: [], page: 5, size: 4, totalElements: 6, totalPages: 2 });
  });

  it('rejects bad paging and an unknown status with 400', async () => {
    for (const q of ['size=0', 'size=101', 'page=-1', 'size=abc', 'status=active', 'status=Deactivated']) {
      expectError(await acct.api('GET', `/api/v1/api-keys?${q}`), 400, 'INVALID_REQUEST');
    }
  });

  it('search matches the name case-insensitively', async () => {
    expect(namesOf(await page('search=sErVeR'))).toEqual(['Production Server']);
    expect(namesOf(await page('search=WORKER'))).toEqual(['staging worker']);
    expect(namesOf(await page('search=nothing-like-this'))).toEqual([]);
    // LIKE wildcards are literal characters.
    expect(namesOf(await page(`search=${encodeURIComponent('100%')}`))).toEqual(['100% test']);
    expect((await page(`search=${encodeURIComponent('%')}`)).totalElements).toBe(1);
  });

  it('search matches a fragment of the masked key, case-insensitively', async () => {
    const fragment = masked['Old laptop'].slice(4); // e.g. "AbC...xY12"
    const data = await page(`search=${encodeURIComponent(swapCase(fragment))}`);
    expect(namesOf(data)).toEqual(['Old laptop']);
    expect((await page('search=SW_')).totalElements).toBe(6);
  });

  it('status filters: all, Active, Revoked (deactivated and permanently revoked), Expired', async () => {
    expect((await page('status=all')).totalElements).toBe(6);
    expect(namesOf(await page('status=Active'))).toEqual(['admin key', 'Production Server', '100% test']);
    expect(namesOf(await page('status=Revoked'))).toEqual(['staging worker', 'CI pipeline']);
    expect(namesOf(await page('status=Expired'))).toEqual(['Old laptop']);
    // Search and status combine.
    expect(namesOf(await page('status=Active&search=laptop'))).toEqual([]);
    const combined = await page('status=Revoked&search=PIPE');
    expect(combined).toMatchObject({ totalElements: 1, totalPages: 1 });
    expect(namesOf(combined)).toEqual(['CI pipeline']);
  });
});

describe('state table through HTTP (spec, D8, D9)', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await newAccount();
  });
  const action = (id: number, name: string) => acct.api('POST', `/api/v1/api-keys/${id}/${name}`);

  it('deactivate: 401 from the very next request; activate: accepted again', async () => {
    const k = await acct.createKey({ name: 'toggle', permissions: ['lists.read'] });
    expect((await lists(k.key)).status).toBe(200);

    const off = await action(k.id, 'deactivate');
    expectOk(off, true);
    expectKeyObject(off.body.data);
    expect(off.body.data).toMatchObject({ id: k.id, status: 'Revoked', permanently_revoked: false });
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
    expectError(await server.request('GET', '/api/v1/lists', { key: k.key, auth: 'bearer' }), 401, 'UNAUTHORIZED');

    const on = await action(k.id, 'activate');
    expectOk(on, true);
    expectKeyObject(on.body.data);
    expect(on.body.data).toMatchObject({ id: k.id, status: 'Active', permanently_revoked: false, masked_key: k.masked_key });
    expect((await lists(k.key)).status).toBe(200);
  });

  it('revoke permanently: 401; activate, regenerate, deactivate and PUT are 409 INVALID_STATE; delete works', async () => {
    const k = await acct.createKey({ name: 'doomed', permissions: ['lists.read'] });
    expect((await lists(k.key)).status).toBe(200);

    const revoked = await action(k.id, 'revoke');
    expectOk(revoked, true);
    expectKeyObject(revoked.body.data);
    expect(revoked.body.data).toMatchObject({ id: k.id, status: 'Revoked', permanently_revoked: true });
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');

    expectError(await action(k.id, 'activate'), 409, 'INVALID_STATE');
    expectError(await action(k.id, 'regenerate'), 409, 'INVALID_STATE');
    expectError(await action(k.id, 'deactivate'), 409, 'INVALID_STATE');
    expectError(await acct.api('PUT', `/api/v1/api-keys/${k.id}`, { name: 'revived' }), 409, 'INVALID_STATE');

    // None of those changed anything.
    const after = await acct.api('GET', `/api/v1/api-keys/${k.id}`);
    expect(after.body.data).toMatchObject({ name: 'doomed', status: 'Revoked', permanently_revoked: true, masked_key: k.masked_key });
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');

    const del = await acct.api('DELETE', `/api/v1/api-keys/${k.id}`);
    expectOk(del, true);
    expect(del.body.data).toEqual({ id: k.id });
    expectError(await acct.api('GET', `/api/v1/api-keys/${k.id}`), 404, 'API_KEY_NOT_FOUND');
  });

  it('a deactivated key can also be revoked permanently', async () => {
    const k = await acct.createKey({ name: 'off then gone', permissions: ['lists.read'] });
    expectOk(await action(k.id, 'deactivate'), true);
    const revoked = await action(k.id, 'revoke');
    expectOk(revoked, true);
    expect(revoked.body.data).toMatchObject({ status: 'Revoked', permanently_revoked: true });
    expectError(await action(k.id, 'activate'), 409, 'INVALID_STATE');
  });

  it('regenerate: the old value is 401 at once, the new one works and is shown once', async () => {
    const k = await acct.createKey({ name: 'rotating', permissions: ['lists.read'] });
    expect((await lists(k.key)).status).toBe(200);

    const res = await action(k.id, 'regenerate');
    expectOk(res, true);
    const data = res.body.data;
    expectKeyObject(data, true);
    expect(data).toMatchObject({ id: k.id, name: 'rotating', permissions: ['lists.read'], status: 'Active', permanently_revoked: false });
    expect(data.key).not.toBe(k.key);
    expect(data.masked_key).not.toBe(k.masked_key);

    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
    expect((await lists(data.key)).status).toBe(200);
    const row = await server.db.selectFrom('api_keys').select('key_hash').where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256(data.key));
    const get = await acct.api('GET', `/api/v1/api-keys/${k.id}`);
    expect(get.body.data).not.toHaveProperty('key');
    expect(get.text).not.toContain(data.key);
    expect(get.body.data.masked_key).toBe(data.masked_key);
  });

  it('regenerate a deactivated key: Active with the new value (state table: any -> Active)', async () => {
    const k = await acct.createKey({ name: 'sleeping', permissions: ['lists.read'] });
    expectOk(await action(k.id, 'deactivate'), true);
    const res = await action(k.id, 'regenerate');
    expectOk(res, true);
    expect(res.body.data).toMatchObject({ status: 'Active', permanently_revoked: false });
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
    expect((await lists(res.body.data.key)).status).toBe(200);
  });

  it('delete: 401 at once, gone from GET and from the list', async () => {
    const k = await acct.createKey({ name: 'short-lived', permissions: ['lists.read'] });
    expect((await lists(k.key)).status).toBe(200);
    const del = await acct.api('DELETE', `/api/v1/api-keys/${k.id}`);
    expectOk(del, true);
    expect(del.body.data).toEqual({ id: k.id });
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
    expectError(await acct.api('GET', `/api/v1/api-keys/${k.id}`), 404, 'API_KEY_NOT_FOUND');
    expectError(await acct.api('DELETE', `/api/v1/api-keys/${k.id}`), 404, 'API_KEY_NOT_FOUND');
    const page = await acct.api('GET', '/api/v1/api-keys?size=100');
    expect(page.body.data.api_keys.map((x: any) => x.id)).not.toContain(k.id);
    expect(await server.db.selectFrom('api_keys').select('id').where('id', '=', k.id).execute()).toEqual([]);
  });

  it('PUT changes name, description, permissions and expiry; new permissions apply to the next request', async () => {
    const k = await acct.createKey({ name: 'editable', description: 'first', permissions: ['lists.read'] });
    expect((await lists(k.key)).status).toBe(200);

    const res = await acct.api('PUT', `/api/v1/api-keys/${k.id}`, {
      name: 'edited',
      description: null,
      permissions: ['contacts.read'],
      expires_at: '2031-06-01T12:00:00+02:00',
    });
    expectOk(res, true);
    expectKeyObject(res.body.data);
    expect(res.body.data).toMatchObject({
      id: k.id,
      name: 'edited',
      description: null,
      permissions: ['contacts.read'],
      expires_at: '2031-06-01T10:00:00',
      status: 'Active',
      masked_key: k.masked_key,
    });
    expectError(await lists(k.key), 403, 'PERMISSION_DENIED');
    expect((await server.request('GET', '/api/v1/contacts', { key: k.key })).status).toBe(200);

    // Omitted fields keep their value; expires_at null removes the expiry.
    const again = await acct.api('PUT', `/api/v1/api-keys/${k.id}`, { expires_at: null });
    expectOk(again, true);
    expect(again.body.data).toMatchObject({ name: 'edited', description: null, permissions: ['contacts.read'], expires_at: null });
  });

  it('PUT validates like create: unknown or empty permissions, past expiry, empty name are 400', async () => {
    const k = await acct.createKey({ name: 'strict', permissions: ['lists.read'] });
    const bodies = [
      { permissions: ['lists.read', 'lists.admin'] },
      { permissions: [] },
      { expires_at: '2001-01-01T00:00:00' },
      { expires_at: 'next tuesday' },
      { name: '' },
      { name: 42 },
    ];
    for (const body of bodies) expectError(await acct.api('PUT', `/api/v1/api-keys/${k.id}`, body), 400, 'INVALID_REQUEST');
    const after = await acct.api('GET', `/api/v1/api-keys/${k.id}`);
    expect(after.body.data).toMatchObject({ name: 'strict', permissions: ['lists.read'], expires_at: null });
  });

  it('expiry: a key past its expires_at is Expired and 401; filter Expired finds it; regenerate revives it', async () => {
    // Whole seconds (D1's form), a little over two seconds ahead.
    const expiresAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3000);
    const k = await acct.createKey({ name: 'ephemeral', permissions: ['lists.read'], expires_at: d1(expiresAt) });
    expect(k).toMatchObject({ status: 'Active', expires_at: d1(expiresAt) });
    expect((await lists(k.key)).status).toBe(200);

    // The expiry window requires waiting.
    await sleep(expiresAt.getTime() - Date.now() + 200);

    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
    const get = await acct.api('GET', `/api/v1/api-keys/${k.id}`);
    expect(get.body.data).toMatchObject({ status: 'Expired', permanently_revoked: false, expires_at: d1(expiresAt) });
    const expired = await acct.api('GET', '/api/v1/api-keys?status=Expired&size=100');
    expect(expired.body.data.api_keys.map((x: any) => x.id)).toEqual([k.id]);
    const active = await acct.api('GET', '/api/v1/api-keys?status=Active&size=100');
    expect(active.body.data.api_keys.map((x: any) => x.id)).not.toContain(k.id);

    const regen = await action(k.id, 'regenerate');
    expectOk(regen, true);
    expect(regen.body.data.status).toBe('Active');
    expect((await lists(regen.body.data.key)).status).toBe(200);
    expectError(await lists(k.key), 401, 'UNAUTHORIZED');
  });
});

describe('create validation (D1, D7, D9)', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await newAccount();
  });
  const create = (body: unknown) => acct.api('POST', '/api/v1/api-keys', body);

  it('an unknown permission is 400, and nothing is created', async () => {
    const res = await create({ name: 'bad', permissions: ['contacts.read', 'contacts.admin'] });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('permission');
    const page = await acct.api('GET', '/api/v1/api-keys');
    expect(page.body.data.totalElements).toBe(1);
  });

  it('empty or missing permissions, missing or blank name, wrong types are 400', async () => {
    const bodies = [
      { name: 'none', permissions: [] },
      { name: 'none' },
      { permissions: ['*'] },
      { name: '', permissions: ['*'] },
      { name: '   ', permissions: ['*'] },
      { name: 7, permissions: ['*'] },
      { name: 'x', permissions: '*' },
      { name: 'x'.repeat(256), permissions: ['*'] },
      { name: 'x', description: 'd'.repeat(1001), permissions: ['*'] },
    ];
    for (const body of bodies) expectError(await create(body), 400, 'INVALID_REQUEST');
    const missingName = await create({ permissions: ['*'] });
    expect(missingName.body.error.message).toContain('name');
    expectError(await acct.api('POST', '/api/v1/api-keys', undefined), 400, 'INVALID_REQUEST');
    expectError(await server.request('POST', '/api/v1/api-keys', { key: acct.admin.key, rawBody: '{"name":' }), 400, 'INVALID_REQUEST');
    expect((await acct.api('GET', '/api/v1/api-keys')).body.data.totalElements).toBe(1);
  });

  it('expires_at in the past, now-ish or not a date-time is 400', async () => {
    for (const expires_at of ['2020-01-01T00:00:00', d1(new Date(Date.now() - 1000)), '2030-02-30T00:00:00', 'tomorrow', '2030-01-01']) {
      expectError(await create({ name: 'late', permissions: ['*'], expires_at }), 400, 'INVALID_REQUEST');
    }
  });

  it('expires_at without offset is UTC; with an offset it is the same instant (D1)', async () => {
    const plain = await acct.createKey({ name: 'utc', permissions: ['*'], expires_at: '2030-01-01T00:00:00' });
    expect(plain.expires_at).toBe('2030-01-01T00:00:00');
    const offset = await acct.createKey({ name: 'offset', permissions: ['*'], expires_at: '2030-01-01T02:00:00+02:00' });
    expect(offset.expires_at).toBe('2030-01-01T00:00:00');
    const zulu = await acct.createKey({ name: 'zulu', permissions: ['*'], expires_at: '2029-12-31T19:00:00.900-05:00' });
    expect(zulu.expires_at).toBe('2030-01-01T00:00:00');
    expect((await lists(offset.key)).status).toBe(200);
  });
});

describe('only `*` manages keys (D9, D8)', () => {
  it('a key with every other permission gets 403 PERMISSION_DENIED on each key route, even with a bad body', async () => {
    const acct = await newAccount();
    const weak = await server.createKey(acct.accountId, ALL_BUT_STAR, { name: 'almost everything' });
    const target = acct.admin.id;
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/v1/api-keys'],
      ['POST', '/api/v1/api-keys', { name: 'new', permissions: ['*'] }],
      ['POST', '/api/v1/api-keys', { permissions: 'not-an-array' }],
      ['GET', '/api/v1/api-keys/summary'],
      ['GET', `/api/v1/api-keys/${target}`],
      ['PUT', `/api/v1/api-keys/${target}`, { name: 'taken over' }],
      ['PUT', `/api/v1/api-keys/${target}`, { permissions: [] }],
      ['DELETE', `/api/v1/api-keys/${target}`],
      ['POST', `/api/v1/api-keys/${target}/deactivate`],
      ['POST', `/api/v1/api-keys/${target}/activate`],
      ['POST', `/api/v1/api-keys/${target}/regenerate`],
      ['POST', `/api/v1/api-keys/${target}/revoke`],
      ['POST', `/api/v1/api-keys/${weak.id}/revoke`],
    ];
    for (const [method, path, body] of routes) {
      const res = await server.request(method, path, { key: weak.key, body });
      expectError(res, 403, 'PERMISSION_DENIED');
    }
    // Nothing changed: still two keys, the admin key untouched and working.
    const page = await acct.api('GET', '/api/v1/api-keys');
    expect(page.body.data.totalElements).toBe(2);
    const admin = page.body.data.api_keys.find((k: any) => k.id === target);
    expect(admin).toMatchObject({ name: 'admin key', status: 'Active', permanently_revoked: false, permissions: ['*'] });
    expect((await lists(acct.admin.key)).status).toBe(200);
  });
});

describe('plan key limits (D9)', () => {
  /** Creates keys through the API until `count` keys exist (the admin key included). */
  async function fillTo(acct: Account, count: number) {
    const created = [];
    for (let i = 1; i < count; i++) created.push(await acct.createKey({ name: `k${i}`, permissions: ['lists.read'] }));
    return created;
  }
  const createOne = (acct: Account) => acct.api('POST', '/api/v1/api-keys', { name: 'one too many', permissions: ['lists.read'] });

  it('Free: 2 keys; revoked keys still count; deleting one frees a slot', async () => {
    const acct = await newAccount('free');
    const [second] = await fillTo(acct, 2);
    expectError(await createOne(acct), 403, 'KEY_LIMIT_REACHED');
    expectOk(await acct.api('POST', `/api/v1/api-keys/${second.id}/revoke`), true);
    expectError(await createOne(acct), 403, 'KEY_LIMIT_REACHED');
    expectOk(await acct.api('DELETE', `/api/v1/api-keys/${second.id}`), true);
    const again = await createOne(acct);
    expectOk(again, true);
    expectKeyObject(again.body.data, true);
    const rows = await server.db.selectFrom('api_keys').select('id').where('account_id', '=', acct.accountId).execute();
    expect(rows).toHaveLength(2);
  });

  it('Free: a deactivated key counts too', async () => {
    const acct = await newAccount('free');
    const [second] = await fillTo(acct, 2);
    expectOk(await acct.api('POST', `/api/v1/api-keys/${second.id}/deactivate`), true);
    expectError(await createOne(acct), 403, 'KEY_LIMIT_REACHED');
  });

  it('Free: concurrent creates never pass the limit', async () => {
    const acct = await newAccount('free');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => acct.api('POST', '/api/v1/api-keys', { name: `race ${i}`, permissions: ['lists.read'] })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 403, 403, 403, 403, 403]);
    for (const r of results.filter((x) => x.status === 403)) expectError(r, 403, 'KEY_LIMIT_REACHED');
    const rows = await server.db.selectFrom('api_keys').select('id').where('account_id', '=', acct.accountId).execute();
    expect(rows).toHaveLength(2);
  });

  it('Starter: 5 keys', async () => {
    const acct = await newAccount('starter');
    await fillTo(acct, 5);
    expectError(await createOne(acct), 403, 'KEY_LIMIT_REACHED');
    expect((await acct.api('GET', '/api/v1/api-keys')).body.data.totalElements).toBe(5);
  });

  it('Business: 20 keys', async () => {
    const acct = await newAccount('business');
    await fillTo(acct, 20);
    expectError(await createOne(acct), 403, 'KEY_LIMIT_REACHED');
    expect((await acct.api('GET', '/api/v1/api-keys')).body.data.totalElements).toBe(20);
  });

  it('Enterprise: unlimited (26 keys)', async () => {
    const acct = await newAccount('enterprise');
    await fillTo(acct, 26);
    expect((await acct.api('GET', '/api/v1/api-keys')).body.data.totalElements).toBe(26);
  });
});

describe('usage: request_count, last_used_at and the summary (D9)', () => {
  const getKey = async (acct: Account, id: number) => {
    const res = await acct.api('GET', `/api/v1/api-keys/${id}`);
    expectOk(res, false);
    return res.body.data;
  };

  it('counts every authenticated request, 403 and 404 included; last_used_at is set', async () => {
    const acct = await newAccount();
    const k = await server.createKey(acct.accountId, ['contacts.read'], { name: 'reader' });
    const before = d1(new Date(Math.floor(Date.now() / 1000) * 1000));
    expectError(await lists(k.key), 403, 'PERMISSION_DENIED');
    expectError(await server.request('POST', '/api/v1/lists', { key: k.key, body: {} }), 403, 'PERMISSION_DENIED');
    expectError(await server.request('GET', '/api/v1/contacts/nobody%40example.com', { key: k.key }), 404, 'CONTACT_NOT_FOUND');
    expectError(await server.request('GET', '/api/v1/no-such-route', { key: k.key }), 404, 'NOT_FOUND');
    expect((await server.request('GET', '/api/v1/contacts', { key: k.key, auth: 'bearer' })).status).toBe(200);
    // Failed authentications are not requests "with the key".
    const tampered = k.key.slice(0, -1) + (k.key.endsWith('a') ? 'b' : 'a');
    expectError(await server.request('GET', '/api/v1/contacts', { key: tampered }), 401, 'UNAUTHORIZED');
    const after = d1(new Date());

    const data = await getKey(acct, k.id);
    expect(data.request_count).toBe(5);
    expect(data.last_used_at >= before && data.last_used_at <= after).toBe(true);
    // The admin key has been used once: by the GET that just read the counts.
    expect((await getKey(acct, acct.admin.id)).request_count).toBe(2);
  });

  it('counts 429 responses too (free plan burst past 10 per second)', async () => {
    const acct = await newAccount('free');
    const burst = await Promise.all(Array.from({ length: 15 }, () => lists(acct.admin.key)));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 429 && s !== 200)).toEqual([]);
    for (const r of burst.filter((x) => x.status === 429)) expectError(r, 429, 'RATE_LIMIT_EXCEEDED');
    // Wait out the one-second burst window before reading the counter with the same account.
    await sleep(1100);
    const data = await getKey(acct, acct.admin.id);
    expect(data.request_count).toBe(16);
  });

  it('summary: totals, inactive = total - active, total_requests, top 10 endpoints as route patterns', async () => {
    const acct = await newAccount();
    const worker = await server.createKey(acct.accountId, ['*'], { name: 'worker' });
    const reader = await server.createKey(acct.accountId, ['contacts.read'], { name: 'reader' });

    // Eleven route patterns, each called a different number of times (12 down to 2).
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/contacts/a%40example.com'],
      ['GET', '/api/v1/lists'],
      ['GET', '/api/v1/contacts'],
      ['GET', '/api/v1/lists/999999'],
      ['GET', '/api/v1/campaigns'],
      ['GET', '/api/v1/campaigns/999999'],
      ['GET', '/api/v1/campaigns/999999/statistics'],
      ['GET', '/api/v1/lists/999999/contacts'],
      ['PUT', '/api/v1/contacts/b%40example.com', { first_name: 'B' }],
      ['DELETE', '/api/v1/contacts/c%40example.com'],
      ['GET', `/api/v1/api-keys/${reader.id}`],
    ];
    const patterns = [
      'GET /api/v1/contacts/:email',
      'GET /api/v1/lists',
      'GET /api/v1/contacts',
      'GET /api/v1/lists/:id',
      'GET /api/v1/campaigns',
      'GET /api/v1/campaigns/:id',
      'GET /api/v1/campaigns/:id/statistics',
      'GET /api/v1/lists/:id/contacts',
      'PUT /api/v1/contacts/:email',
      'DELETE /api/v1/contacts/:email',
      'GET /api/v1/api-keys/:id',
    ];
    let workerRequests = 0;
    for (const [i, [method, path, body]] of calls.entries()) {
      const times = 12 - i;
      const results = await Promise.all(Array.from({ length: times }, () => server.request(method, path, { key: worker.key, body })));
      for (const r of results) expect(r.status).toBeLessThan(500);
      workerRequests += times;
    }
    // Counted for the key, but an unknown route has no pattern to show.
    expectError(await server.request('GET', '/api/v1/unknown', { key: worker.key }), 404, 'NOT_FOUND');
    workerRequests++;
    expectError(await server.request('POST', '/api/v1/lists', { key: reader.key, body: { name: 'x' } }), 403, 'PERMISSION_DENIED');

    const res = await acct.api('GET', '/api/v1/api-keys/summary');
    expectOk(res, false);
    const summary = res.body.data;
    expect(Object.keys(summary).sort()).toEqual(['active', 'inactive', 'top_endpoints', 'total', 'total_requests']);
    expect(summary).toMatchObject({ total: 3, active: 3, inactive: 0 });
    // The summary request itself is authenticated with the admin key and counted before it is read.
    expect(summary.total_requests).toBe(workerRequests + 1 + 1);
    expect(summary.top_endpoints).toEqual(
      patterns.slice(0, 10).map((p, i) => {
        const [method, route] = p.split(' ');
        return { method, route, count: 12 - i };
      }),
    );
    const workerData = await getKey(acct, worker.id);
    expect(workerData.request_count).toBe(workerRequests);
    expect(workerData.last_used_at).toMatch(D1_TIMESTAMP);

    // A deactivated key is inactive; an expired one too.
    expectOk(await acct.api('POST', `/api/v1/api-keys/${reader.id}/deactivate`), true);
    const expiring = await server.createKey(acct.accountId, ['lists.read'], { name: 'expired' });
    await server.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expiring.id).execute();
    const second = (await acct.api('GET', '/api/v1/api-keys/summary')).body.data;
    expect(second).toMatchObject({ total: 4, active: 2, inactive: 2 });

    // Deleting a key removes it and its usage from the summary.
    expectOk(await acct.api('DELETE', `/api/v1/api-keys/${worker.id}`), true);
    const third = (await acct.api('GET', '/api/v1/api-keys/summary')).body.data;
    // Left: the reader's one request and the admin key's six (3 summaries, GET, deactivate, delete).
    expect(third).toMatchObject({ total: 3, active: 1, inactive: 2, total_requests: 1 + 6 });
    expect(third.top_endpoints[0]).toEqual({ method: 'GET', route: '/api/v1/api-keys/summary', count: 3 });
    expect(third.top_endpoints.slice(1)).toHaveLength(4);
    expect(third.top_endpoints.slice(1)).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/api/v1/api-keys/:id', count: 1 },
        { method: 'POST', route: '/api/v1/api-keys/:id/deactivate', count: 1 },
        { method: 'DELETE', route: '/api/v1/api-keys/:id', count: 1 },
        { method: 'POST', route: '/api/v1/lists', count: 1 },
      ]),
    );
    const leftovers = await server.db.selectFrom('api_key_endpoint_usage').select('key_id').where('key_id', '=', worker.id).execute();
    expect(leftovers).toEqual([]);
  });

  it('a new account summary is all zeros apart from the summary request itself', async () => {
    const acct = await newAccount();
    const res = await acct.api('GET', '/api/v1/api-keys/summary');
    expect(res.body.data).toEqual({
      total: 1,
      active: 1,
      inactive: 0,
      total_requests: 1,
      top_endpoints: [{ method: 'GET', route: '/api/v1/api-keys/summary', count: 1 }],
    });
  });
});

describe('usage counters survive a clean shutdown (D9)', () => {
  it('counts made before close() are read back by a new server on the same data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sendwell-keys-restart-'));
    // A long flush interval leaves the counting to the flush on close.
    const first = await startTestServer({ DATA_DIR: dir, USAGE_FLUSH_MS: '5000' });
    try {
      const { keyId, key } = await first.createAccountWithKey(['*']);
      for (let i = 0; i < 4; i++) expect((await first.request('GET', '/api/v1/lists', { key })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await first.request('GET', '/api/v1/contacts/x%40example.com', { key })).status).toBe(404);
      await first.close({ keepData: true });
      expect(first.env.DATA_DIR).toBe(dir);

      // Same DATA_DIR (and, on PostgreSQL, the same schema).
      const second = await startTestServer({ ...first.env, USAGE_FLUSH_MS: '5000' });
      try {
        const res = await second.request('GET', `/api/v1/api-keys/${keyId}`, { key });
        expectOk(res, false);
        expect(res.body.data.request_count).toBe(4 + 3 + 1);
        expect(res.body.data.last_used_at).toMatch(D1_TIMESTAMP);
        const summary = (await second.request('GET', '/api/v1/api-keys/summary', { key })).body.data;
        expect(summary.total_requests).toBe(9);
        expect(summary.top_endpoints.slice(0, 2)).toEqual([
          { method: 'GET', route: '/api/v1/lists', count: 4 },
          { method: 'GET', route: '/api/v1/contacts/:email', count: 3 },
        ]);
      } finally {
        await second.close();
      }
      // The harness removes only its own temporary folder, never a DATA_DIR it was given.
      expect(existsSync(dir)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
