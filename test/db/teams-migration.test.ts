import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.ts';
import { migrateTo } from '../../src/db/migrator.ts';
import { hashPassword } from '../../src/domain/users/passwords.ts';
import { newCsrfToken, newSessionToken, sessionIdOf } from '../../src/domain/users/session-token.ts';
import { testDatabase } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Migration 0027 (D24.1): users existing before teams become owners, and a session signed in
 * before it still authenticates (it gains a public id for D24.5's list). Written at 0026, then
 * the server starts on it (migrating to the latest) and is asked as the dashboard would.
 */
const PASSWORD = 'an old password, still good';
const FIRST = 'first@old.example.com';
const SECOND = 'second@old.example.com';
const token = newSessionToken();
const csrf = newCsrfToken();
let dataDir: string;
let server: TestServer;
let accountId: number;
let before: { users: Record<string, unknown>[]; session: Record<string, unknown> };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-0027-'));
  const database = await testDatabase();
  const handle = connect({ databaseUrl: database.url, dataDir });
  try {
    await migrateTo(handle, '0026-idempotency-keys');
    const now = new Date().toISOString();
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const passwordHash = await hashPassword(PASSWORD);
    accountId = Number((await sql<{ id: number }>`insert into accounts (name, plan, slug, created_at) values ('Old Co', 'enterprise', 'old-co', ${now}) returning id`.execute(handle.db)).rows[0].id);
    const users = await sql<{ id: number }>`insert into users (account_id, email, password_hash, created_at)
             values (${accountId}, ${FIRST}, ${passwordHash}, ${now}), (${accountId}, ${SECOND}, ${passwordHash}, ${now}) returning id`.execute(handle.db);
    await sql`insert into sessions (id, user_id, account_id, csrf_token, expires_at, created_at)
              values (${sessionIdOf(token)}, ${users.rows[1].id}, ${accountId}, ${csrf}, ${expires}, ${now})`.execute(handle.db);
    before = {
      users: (await sql<Record<string, unknown>>`select id, account_id, email, password_hash, created_at from users order by id`.execute(handle.db)).rows,
      session: (await sql<Record<string, unknown>>`select id, user_id, account_id, csrf_token, expires_at, created_at from sessions`.execute(handle.db)).rows[0],
    };
  } finally {
    await handle.close();
  }
  // The server migrates to the latest as it starts, on the same data.
  server = await startTestServer({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('migration 0027: accounts made before teams (D24.1)', () => {
  it('both users are owners, and nothing they had is lost', async () => {
    const users = await server.db.selectFrom('users').select(['id', 'account_id', 'email', 'password_hash', 'created_at', 'role', 'totp_enabled_at']).orderBy('id').execute();
    expect(users.map((u) => [u.email, u.role, u.totp_enabled_at])).toEqual([
      [FIRST, 'owner', null],
      [SECOND, 'owner', null],
    ]);
    expect(users.map(({ role: _role, totp_enabled_at: _totp, ...kept }) => kept)).toEqual(before.users);
  });

  it('the session signed in before still authenticates, now with a public id of its own', async () => {
    const session = await server.db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    expect(session).toMatchObject(before.session);
    expect(session.public_id).toEqual(expect.any(String));
    expect(session.public_id!.length).toBeGreaterThan(0);
    expect(token).not.toContain(session.public_id!);
    const me = await server.request('GET', '/api/v1/auth/me', { headers: { cookie: `sendwell_session=${token}` } });
    expect(me.status, me.text).toBe(200);
    expect(me.body.data).toMatchObject({ user: { email: SECOND, role: 'owner' }, account: { id: accountId, name: 'Old Co' }, csrf_token: csrf });
    expect(me.body.data.permissions).toContain('*');
    // An owner's session reaches what only an owner or admin may: the audit log (D24.8).
    expect((await server.request('GET', '/api/v1/audit-log', { headers: { cookie: `sendwell_session=${token}` } })).status).toBe(200);
  });

  it('the old password still signs in', async () => {
    const res = await server.request('POST', '/api/v1/auth/login', { body: { email: FIRST, password: PASSWORD } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user).toMatchObject({ email: FIRST, role: 'owner' });
  });
});
