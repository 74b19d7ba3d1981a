import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findContactByEmail } from '../../src/domain/contacts/contacts.repo.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The contact lookup behind GET /contacts/{email} runs on SQLite's connection directly when no
 * transaction is open on it (src/db/connect.ts, idleSqlite). A transaction's writes must stay
 * invisible to it until they commit, and vanish with a rollback.
 */
let server: TestServer;
let accountId: number;

beforeAll(async () => {
  server = await startTestServer();
  accountId = (await server.createAccountWithKey()).accountId;
});
afterAll(() => server.close());

const insertContact = (db: TestServer['db'], email: string) =>
  db.insertInto('contacts').values({ account_id: accountId, email, status: 'SUBSCRIBED', lead_score: 0, tags: '[]', custom_fields: '{}', created_at: new Date().toISOString(), updated_at: new Date().toISOString() }).execute();

describe('prepared lookups beside an open transaction', () => {
  it('never see a write that is rolled back', async () => {
    const { db } = server.core.handle;
    let readDuringTransaction: Promise<unknown> | null = null;
    await expect(
      db.transaction().execute(async (trx) => {
        await insertContact(trx, 'rolled-back@example.com');
        readDuringTransaction = findContactByEmail(db, accountId, 'rolled-back@example.com');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await readDuringTransaction).toBeUndefined();
  });

  it('see a write once it is committed', async () => {
    const { db } = server.core.handle;
    await db.transaction().execute((trx) => insertContact(trx, 'committed@example.com'));
    expect((await findContactByEmail(db, accountId, 'committed@example.com'))?.email).toBe('committed@example.com');
  });
});
