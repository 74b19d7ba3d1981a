import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountClients } from '../helpers/clients.ts';
import { imageForm, png } from '../helpers/images.ts';
import { startGatedDnsServer, type GatedDnsServer } from '../helpers/gated-dns-server.ts';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

/**
 * D25.6: Idempotency-Key on every authenticated POST under /api/v1 and /v1, through existing
 * routes (contacts, lists, the bulk import, domain verification). Every test uses an account of
 * its own, and reads rows back to see that nothing ran twice.
 */

let server: TestServer;
let dns: GatedDnsServer;
beforeAll(async () => {
  dns = await startGatedDnsServer();
  server = await startTestServer({ DNS_SERVERS: dns.address });
});
afterAll(async () => {
  await server.close();
  await dns.close();
});

const { newAccount } = accountClients(() => server);

let keys = 0;
const freshKey = () => `key-${process.pid}-${++keys}-${Date.now()}`;

function post(key: string, path: string, body: unknown, idempotencyKey: string | undefined, rawBody?: string): Promise<ApiResponse> {
  return server.request('POST', path, { key, body, rawBody, headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });
}

async function contactRows(accountId: number, email: string) {
  return server.db.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('email', '=', email).execute();
}

describe('Idempotency-Key (D25.6)', () => {
  it('replays the first answer, status and body, with Idempotent-Replayed, and creates nothing twice', async () => {
    const c = await newAccount();
    const key = freshKey();
    const body = { email: 'once@example.com', first_name: 'Once', tags: ['a'] };
    const first = await post(c.key, '/api/v1/contacts', body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(c.key, '/api/v1/contacts', body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.text).toBe(first.text);
    expect(await contactRows(c.accountId, 'once@example.com')).toHaveLength(1);
    // Without the key the same POST runs again (and finds the contact there).
    expectError(await post(c.key, '/api/v1/contacts', body, undefined), 409, 'CONTACT_ALREADY_EXISTS');
  });

  it('replays a body equal as JSON whatever its key order and spacing', async () => {
    const c = await newAccount();
    const key = freshKey();
    const first = await post(c.key, '/api/v1/lists', undefined, key, '{"name":"Weekly","description":"d"}');
    expect(first.status).toBe(200);
    const again = await post(c.key, '/api/v1/lists', undefined, key, '{ "description" : "d",\n  "name": "Weekly" }');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    const lists = await server.db.selectFrom('lists').select('id').where('account_id', '=', c.accountId).execute();
    expect(lists).toHaveLength(1);
  });

  it('refuses the key with another body or path as 422 IDEMPOTENCY_KEY_REUSED, running nothing', async () => {
    const c = await newAccount();
    const key = freshKey();
    expect((await post(c.key, '/api/v1/contacts', { email: 'first@example.com' }, key)).status).toBe(200);
    expectError(await post(c.key, '/api/v1/contacts', { email: 'second@example.com' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await post(c.key, '/api/v1/lists', { email: 'first@example.com' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    // The integration routes answer in their flat form (D7).
    const bulk = await post(c.key, '/v1/contacts/bulk', { contacts: [{ email: 'third@example.com' }] }, key);
    expect(bulk.status).toBe(422);
    expect(bulk.body).toMatchObject({ success: false, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await contactRows(c.accountId, 'second@example.com')).toHaveLength(0);
    expect(await contactRows(c.accountId, 'third@example.com')).toHaveLength(0);
    const lists = await server.db.selectFrom('lists').select('id').where('account_id', '=', c.accountId).execute();
    expect(lists).toHaveLength(0);
  });

  it('keeps only 2xx answers: after a 400 or a 409 the same key runs the corrected request', async () => {
    const c = await newAccount();
    const key = freshKey();
    expectError(await post(c.key, '/api/v1/contacts', { email: 'not an address' }, key), 400, 'INVALID_REQUEST');
    const ok = await post(c.key, '/api/v1/contacts', { email: 'fixed@example.com' }, key);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await contactRows(c.accountId, 'fixed@example.com')).toHaveLength(1);

    // A refusal from the service (409) is not kept either, and leaves nothing behind.
    await post(c.key, '/api/v1/contacts', { email: 'taken@example.com' }, undefined);
    const other = freshKey();
    expectError(await post(c.key, '/api/v1/contacts', { email: 'taken@example.com' }, other), 409, 'CONTACT_ALREADY_EXISTS');
    await server.db.deleteFrom('contacts').where('account_id', '=', c.accountId).where('email', '=', 'taken@example.com').execute();
    const retried = await post(c.key, '/api/v1/contacts', { email: 'taken@example.com' }, other);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const kept = await server.db.selectFrom('idempotency_keys').select(['key', 'status_code']).where('account_id', '=', c.accountId).where('key', 'in', [key, other]).execute();
    expect(kept.map((row) => row.status_code)).toEqual([200, 200]);
  });

  it('is per account: two accounts use the same key independently', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const key = freshKey();
    const fromA = await post(a.key, '/api/v1/contacts', { email: 'same@example.com' }, key);
    const fromB = await post(b.key, '/api/v1/contacts', { email: 'same@example.com' }, key);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.data.id).not.toBe(fromA.body.data.id);
    expect(await contactRows(b.accountId, 'same@example.com')).toHaveLength(1);
  });

  it("holds for all of an account's keys alike", async () => {
    const c = await newAccount();
    const { key: second } = await server.createKey(c.accountId, ['*']);
    const key = freshKey();
    const first = await post(c.key, '/api/v1/contacts', { email: 'shared@example.com' }, key);
    const replay = await post(second, '/api/v1/contacts', { email: 'shared@example.com' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  it('refuses a key that is empty, longer than 255, not printable ASCII, or sent twice: 400 IDEMPOTENCY_KEY_INVALID', async () => {
    const c = await newAccount();
    expect((await post(c.key, '/api/v1/contacts', { email: 'k255@example.com' }, 'k'.repeat(255))).status).toBe(200);
    for (const bad of ['k'.repeat(256), 'tab\tinside', '']) {
      expectError(await post(c.key, '/api/v1/contacts', { email: 'k256@example.com' }, bad), 400, 'IDEMPOTENCY_KEY_INVALID');
    }
    // Non-ASCII bytes (fetch refuses them in a header; node:http sends them as latin-1).
    const res = await fetch(`${server.url}/api/v1/contacts`, {
      method: 'POST',
      headers: [['x-api-key', c.key], ['content-type', 'application/json'], ['idempotency-key', 'caf\u00e9']],
      body: JSON.stringify({ email: 'k256@example.com' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('IDEMPOTENCY_KEY_INVALID');
    // Two header lines (fetch would join them into one value, itself a valid key).
    const twice = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/contacts`, { method: 'POST', headers: { 'x-api-key': c.key, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.setHeader('idempotency-key', ['one', 'two']);
      req.once('error', reject);
      req.end(JSON.stringify({ email: 'k256@example.com' }));
    });
    expect(twice).toBe(400);
    expect(await contactRows(c.accountId, 'k256@example.com')).toHaveLength(0);
    // The integration routes answer in their flat form (D7).
    const flat = await post(c.key, '/v1/events', { email: 'k255@example.com', event: 'x' }, 'k'.repeat(256));
    expect(flat.status).toBe(400);
    expect(flat.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
  });

  it('forgets a key 24 hours after its request succeeded', async () => {
    const c = await newAccount();
    const key = freshKey();
    const first = await post(c.key, '/api/v1/lists', { name: 'Day one' }, key);
    expect(first.status).toBe(200);
    // A day passes (for the row; the clock stays).
    const past = new Date(Date.now() - 1000).toISOString();
    await server.db.updateTable('idempotency_keys').set({ expires_at: past }).where('account_id', '=', c.accountId).where('key', '=', key).execute();
    const later = await post(c.key, '/api/v1/lists', { name: 'Day one' }, key);
    expectError(later, 409, 'LIST_ALREADY_EXISTS');
    // Another body with the old key now runs, and is the one kept.
    const other = await post(c.key, '/api/v1/lists', { name: 'Day two' }, key);
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post(c.key, '/api/v1/lists', { name: 'Day two' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(other.body.data.id);
  });

  it('counts a replay in the rate limit and in the key usage like any request', async () => {
    const { accountId, keyId, key: apiKey } = await server.createAccountWithKey(['*'], 'free');
    const key = freshKey();
    const first = await post(apiKey, '/api/v1/contacts', { email: 'counted@example.com' }, key);
    const replay = await post(apiKey, '/api/v1/contacts', { email: 'counted@example.com' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(Number(replay.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
    await server.core.usage.flush();
    const row = await server.db.selectFrom('api_keys').select('request_count').where('id', '=', keyId).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    expect(row.request_count).toBe(2);
    const endpoint = await server.db.selectFrom('api_key_endpoint_usage').select('count').where('key_id', '=', keyId).where('route', '=', '/api/v1/contacts').executeTakeFirstOrThrow();
    expect(endpoint.count).toBe(2);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_PROGRESS while the first request with the key still runs, then replays it', async () => {
    const c = await newAccount();
    const domain = await c.call('POST', '/api/v1/domains', { domain: `slow-${keys}.example.com` });
    expect(domain.status).toBe(200);
    const key = freshKey();
    const path = `/api/v1/domains/${domain.body.data.id}/verify`;
    dns.hold();
    const first = post(c.key, path, undefined, key);
    // The first request is looking its records up in DNS: it runs.
    await dns.asked();
    const second = await post(c.key, path, undefined, key);
    expectError(second, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(second.headers.get('retry-after')).toBe('1');
    dns.release();
    const done = await first;
    expect(done.status).toBe(200);
    const replay = await post(c.key, path, undefined, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(done.text);
  });

  it('replays an upload by its file and name, and refuses another file under the key (POST /api/v1/media)', async () => {
    const c = await newAccount();
    const key = freshKey();
    const send = (bytes: Buffer, name: string) =>
      fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': c.key, 'idempotency-key': key }, body: imageForm(bytes, name) }).then(async (res) => ({ status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.json() }));
    const first = await send(png(2, 2), 'logo.png');
    expect(first.status).toBe(200);
    const again = await send(png(2, 2), 'logo.png');
    expect(again).toEqual({ ...first, replayed: 'true' });
    const other = await send(png(3, 3), 'logo.png');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const stored = await server.db.selectFrom('media').select('id').where('account_id', '=', c.accountId).execute();
    expect(stored).toHaveLength(1);
  });

  it('keeps the answer of a request whose client gave up while it ran: the retry replays it', async () => {
    const c = await newAccount();
    const domain = await c.call('POST', '/api/v1/domains', { domain: `gone-${keys}.example.com` });
    const key = freshKey();
    const path = `/api/v1/domains/${domain.body.data.id}/verify`;
    dns.hold();
    const abort = new AbortController();
    const gone = fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': c.key, 'idempotency-key': key }, signal: abort.signal }).catch(() => 'aborted');
    await dns.asked();
    abort.abort();
    expect(await gone).toBe('aborted');
    dns.release();
    // Until the first request is done, the key is in progress; then its kept answer is replayed.
    let retry = await post(c.key, path, undefined, key);
    while (retry.status === 409) retry = await post(c.key, path, undefined, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('is ignored on public routes and on methods other than POST', async () => {
    const c = await newAccount();
    const created = await c.call('POST', '/api/v1/lists', { name: 'Put me' });
    const key = freshKey();
    const put = () => server.request('PUT', `/api/v1/lists/${created.body.data.id}`, { key: c.key, body: { name: 'Put again' }, headers: { 'Idempotency-Key': key } });
    expect((await put()).headers.get('idempotent-replayed')).toBeNull();
    expect((await put()).headers.get('idempotent-replayed')).toBeNull();
    const signIn = await server.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'wrong password' }, headers: { 'Idempotency-Key': 'k'.repeat(300) } });
    expect(signIn.status).toBe(401);
  });
});
