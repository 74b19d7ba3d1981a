/**
 * Issue "The API hot path": what was changed for speed keeps its behaviour.
 * - A contact read runs as a named prepared statement on PostgreSQL. When a migration (from
 *   another process, say a newer version starting) changes the contacts table under it, the read
 *   still answers instead of failing with PostgreSQL's "cached plan must not change result type".
 * - A create no longer looks the e-mail up before inserting: the unique constraint answers a
 *   duplicate, still as 409 CONTACT_ALREADY_EXISTS (D11), with nothing written; the answer is the
 *   row as stored, list membership included, without a second read.
 * - Issue 35: on PostgreSQL a create's transaction is its seven round trips (begin, the insert, the
 *   erased-address check, the listening workflows, the webhook fan-out, the audit entry, commit),
 *   and every statement between begin and commit runs by name, planned once per connection.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// What the pool's clients send, while `watching`: wrapped before the server starts, as each client
// binds the query it was made with (db/named-statements.ts).
const sent: { text: string; named: boolean }[] = [];
let watching = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0] as string | { text: string; name?: string };
  if (watching) sent.push(typeof config === 'string' ? { text: config, named: false } : { text: config.text, named: config.name !== undefined });
  return query.apply(this, args);
};

let server: TestServer;
let key: string;
const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
});
afterAll(async () => {
  await server.close();
});

describe('contact reads across a change to the contacts table', () => {
  it('answers before and after a column is added under the prepared read', async () => {
    expect((await call('POST', '/api/v1/contacts', { email: 'ada@example.com', first_name: 'Ada' })).status).toBe(200);
    // Several reads, so the pooled connections that serve them have the statement prepared.
    for (let i = 0; i < 5; i++) expect((await call('GET', '/api/v1/contacts/ada%40example.com')).status).toBe(200);

    await sql`alter table contacts add column hot_path_probe text`.execute(server.db);

    for (let i = 0; i < 5; i++) {
      const res = await call('GET', '/api/v1/contacts/ada%40example.com');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', list_ids: [] });
      expect(res.body.data).not.toHaveProperty('hot_path_probe');
    }
  });
});

describe('creating a contact', () => {
  it('a second create of the same address (any case) is 409 CONTACT_ALREADY_EXISTS and changes nothing', async () => {
    expect((await call('POST', '/api/v1/contacts', { email: 'grace@example.com', first_name: 'Grace' })).status).toBe(200);
    const again = await call('POST', '/api/v1/contacts', { email: 'GRACE@example.com', first_name: 'Other', tags: ['x'] });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONTACT_ALREADY_EXISTS');
    const stored = await call('GET', '/api/v1/contacts/grace%40example.com');
    expect(stored.body.data).toMatchObject({ first_name: 'Grace', tags: [] });
  });

  it('answers with the row as stored, the list it joined included, the same as a read', async () => {
    const list = (await call('POST', '/api/v1/lists', { name: 'Hot path' })).body.data;
    const created = await call('POST', '/api/v1/contacts', { email: 'linus@example.com', tags: ['b', 'a'], custom_fields: { plan: 'pro', seats: 3 }, list_id: list.id });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ email: 'linus@example.com', status: 'SUBSCRIBED', lead_score: 0, list_ids: [list.id], custom_fields: { plan: 'pro', seats: 3 } });
    const read = await call('GET', '/api/v1/contacts/linus%40example.com');
    expect(created.body.data).toEqual(read.body.data);

    const plain = await call('POST', '/api/v1/contacts', { email: 'ken@example.com' });
    expect(plain.body.data.list_ids).toEqual([]);
    expect(plain.body.data).toEqual((await call('GET', '/api/v1/contacts/ken%40example.com')).body.data);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('a create on PostgreSQL (issue 35)', () => {
  it('is one transaction of seven round trips, its statements sent by name', async () => {
    // Every pooled connection's first use prepares; later ones must not parse again.
    for (let i = 0; i < 12; i++) expect((await call('POST', '/api/v1/contacts', { email: `warm-${i}@example.com`, tags: ['t'] })).status).toBe(200);
    sent.length = 0;
    watching = true;
    const created = await call('POST', '/api/v1/contacts', { email: 'counted@example.com', first_name: 'Count', tags: ['t'] });
    watching = false;
    expect(created.status).toBe(200);
    expect(sent.map((s) => s.text.split(/\s/)[0].toLowerCase())).toEqual(['begin', 'insert', 'select', 'select', 'insert', 'insert', 'commit']);
    expect(sent.slice(1, -1).every((s) => s.named)).toBe(true);
  });
});
