import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.ts';
import { migrateTo } from '../../src/db/migrator.ts';
import { testDatabase } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Migration 0030 (issue 34 item 3): an account made before it has the time zone UTC, which is
 * what its dates were already (D1), and it can be changed. Written at 0028, then the server starts
 * on it (migrating to the latest) and is asked through the API.
 */
let dataDir: string;
let server: TestServer;
let accountId: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-0030-'));
  const database = await testDatabase();
  const handle = connect({ databaseUrl: database.url, dataDir });
  try {
    await migrateTo(handle, '0028-message-lane-accounts');
    const now = new Date().toISOString();
    accountId = Number((await sql<{ id: number }>`insert into accounts (name, plan, slug, created_at) values ('Old Co', 'enterprise', 'old-co', ${now}) returning id`.execute(handle.db)).rows[0].id);
  } finally {
    await handle.close();
  }
  server = await startTestServer({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('migration 0030: accounts.time_zone', () => {
  it('gives an account made before it UTC, which the API shows and lets an admin change', async () => {
    const { key } = await server.createKey(accountId, ['*']);
    const read = await server.request('GET', '/api/v1/account', { key });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({ id: accountId, name: 'Old Co', time_zone: 'UTC' });
    const changed = await server.request('PUT', '/api/v1/account', { key, body: { time_zone: 'Europe/Paris' } });
    expect(changed.body.data.time_zone).toBe('Europe/Paris');
    // A new account, made after it, starts at UTC too (the column's default).
    const { accountId: fresh } = await server.createAccountWithKey(['*']);
    expect((await server.db.selectFrom('accounts').select('time_zone').where('id', '=', fresh).executeTakeFirstOrThrow()).time_zone).toBe('UTC');
  });
});
