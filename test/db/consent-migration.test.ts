import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../../src/db/connect.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrator.ts';
import { countAudience } from '../../src/domain/campaigns/recipients.repo.ts';
import { toContact } from '../../src/domain/contacts/contact.ts';
import { findContactByEmail } from '../../src/domain/contacts/contacts.repo.ts';
import { toList } from '../../src/domain/lists/list.ts';
import { findList } from '../../src/domain/lists/lists.repo.ts';
import { testDatabase } from '../helpers/database.ts';

/**
 * Migration 0018 (D20): every membership made before it was made by the API or an import, so it
 * becomes SUBSCRIBED, and a list's contact_count (which counted every membership) stays right as
 * it is; lists become single opt-in and private. Written at 0017, upgraded, read back.
 */
let handle: DbHandle;
let dataDir: string;
let dropDatabase: () => Promise<void>;
let accountId: number;
let listId: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-0018-'));
  const database = await testDatabase();
  dropDatabase = database.drop;
  handle = connect({ databaseUrl: database.url, dataDir });
  await migrateTo(handle, '0017-send-pacing');
  const now = new Date().toISOString();
  accountId = Number((await sql<{ id: number }>`insert into accounts (name, plan, created_at) values ('Old', 'free', ${now}) returning id`.execute(handle.db)).rows[0].id);
  listId = Number(
    (await sql<{ id: number }>`insert into lists (account_id, name, name_key, description, is_active, contact_count, created_at, updated_at)
                               values (${accountId}, 'Old list', 'old list', null, 1, 2, ${now}, ${now}) returning id`.execute(handle.db)).rows[0].id,
  );
  const contacts = await sql<{ id: number }>`insert into contacts (account_id, email, tags, custom_fields, lead_score, status, created_at, updated_at)
            values (${accountId}, 'one@example.com', '[]', '{}', 0, 'SUBSCRIBED', ${now}, ${now}),
                   (${accountId}, 'two@example.com', '[]', '{}', 0, 'SUBSCRIBED', ${now}, ${now}) returning id`.execute(handle.db);
  for (const { id } of contacts.rows) await sql`insert into list_members (list_id, contact_id, created_at) values (${listId}, ${id}, ${now})`.execute(handle.db);
  await migrateToLatest(handle);
});

afterAll(async () => {
  await handle?.close();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('migration 0018: memberships and lists made before it (D20)', () => {
  it('memberships are SUBSCRIBED, the count stays, the list is single opt-in and private', async () => {
    const rows = await handle.db.selectFrom('list_members').select(['status']).where('list_id', '=', listId).execute();
    expect(rows.map((r) => r.status)).toEqual(['SUBSCRIBED', 'SUBSCRIBED']);
    expect(toList((await findList(handle.db, accountId, listId))!)).toMatchObject({ contact_count: 2, opt_in: 'single', is_public: false, confirmation_subject: null, confirmation_text: null });
    const contact = toContact((await findContactByEmail(handle.db, accountId, 'one@example.com'))!);
    expect(contact).toMatchObject({ list_ids: [listId], memberships: [{ list_id: listId, status: 'SUBSCRIBED' }] });
  });

  it('they are still the audience of a campaign to the list', async () => {
    expect(await countAudience(handle.db, handle.dialect, { accountId, listIds: [listId], matching: [], tags: [] })).toBe(2);
  });
});
