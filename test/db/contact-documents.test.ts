import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../../src/db/connect.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrator.ts';
import { toContact } from '../../src/domain/contacts/contact.ts';
import { countContactsMatching, findContactByEmail } from '../../src/domain/contacts/contacts.repo.ts';
import { parseSegmentFilter } from '../../src/domain/segments/segment-filter.ts';
import { matchContacts } from '../../src/domain/segments/segments.repo.ts';
import { testDatabase } from '../helpers/database.ts';

/**
 * Migration 0013 turns a contact's tags and custom fields into `jsonb` on PostgreSQL (a no-op on
 * SQLite). Contacts written by the release before it must read back the same and match segments
 * the same, on both databases: the test writes them at 0012, as JSON text, and upgrades.
 */
let handle: DbHandle;
let dataDir: string;
let dropDatabase: () => Promise<void>;
let accountId: number;

const TAGS = ['VIP', 'Beta "quoted" \\ slash', 'ünïcode'];
const FIELDS = { zip: '1000', seats: 12, ratio: -0.5, trial: true, note: 'line\nbreak' };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-0013-'));
  const database = await testDatabase();
  dropDatabase = database.drop;
  handle = connect({ databaseUrl: database.url, dataDir });
  await migrateTo(handle, '0012-suppressions');
  const now = new Date().toISOString();
  accountId = Number((await sql<{ id: number }>`insert into accounts (name, plan, created_at) values ('Old', 'free', ${now}) returning id`.execute(handle.db)).rows[0].id);
  await sql`insert into contacts (account_id, email, tags, custom_fields, lead_score, status, created_at, updated_at)
            values (${accountId}, 'old@example.com', ${JSON.stringify(TAGS)}, ${JSON.stringify(FIELDS)}, 0, 'SUBSCRIBED', ${now}, ${now}),
                   (${accountId}, 'plain@example.com', '[]', '{}', 0, 'SUBSCRIBED', ${now}, ${now})`.execute(handle.db);
  await migrateToLatest(handle);
});

afterAll(async () => {
  await handle?.close();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const matching = async (filter: unknown) =>
  countContactsMatching(handle.db, accountId, matchContacts(parseSegmentFilter(filter).condition, { dialect: handle.dialect, accountId, nowMs: Date.now() }));

describe('migration 0013: contacts written before it (D11, D18)', () => {
  it('read back with the same tags and custom fields', async () => {
    const contact = toContact((await findContactByEmail(handle.db, accountId, 'old@example.com'))!);
    expect(contact.tags).toStrictEqual(TAGS);
    expect(contact.custom_fields).toStrictEqual(FIELDS);
    expect(toContact((await findContactByEmail(handle.db, accountId, 'plain@example.com'))!)).toMatchObject({ tags: [], custom_fields: {} });
  });

  it('match tag tests ignoring case, quotes and backslashes included', async () => {
    expect(await matching({ field: 'tags', op: 'contains', value: 'vip' })).toBe(1);
    expect(await matching({ field: 'tags', op: 'contains', value: 'beta "QUOTED" \\ slash' })).toBe(1);
    expect(await matching({ field: 'tags', op: 'in', value: ['nothing', 'ünïcode'] })).toBe(1);
    expect(await matching({ field: 'tags', op: 'not_contains', value: 'vip' })).toBe(1);
  });

  it('match custom-field comparisons by JSON type', async () => {
    expect(await matching({ field: 'custom_fields.seats', op: 'gte', value: 12 })).toBe(1);
    expect(await matching({ field: 'custom_fields.seats', op: 'gt', value: 12 })).toBe(0);
    expect(await matching({ field: 'custom_fields.ratio', op: 'lt', value: 0 })).toBe(1);
    expect(await matching({ field: 'custom_fields.zip', op: 'gt', value: 999 })).toBe(0);
    expect(await matching({ field: 'custom_fields.zip', op: 'eq', value: '1000' })).toBe(1);
    expect(await matching({ field: 'custom_fields.trial', op: 'eq', value: true })).toBe(1);
    expect(await matching({ field: 'custom_fields.trial', op: 'neq', value: true })).toBe(1);
    expect(await matching({ field: 'custom_fields.note', op: 'contains', value: 'LINE\nB' })).toBe(1);
  });

  it('are jsonb on PostgreSQL, with the tag index', async () => {
    if (handle.dialect !== 'postgres') return;
    const columns = await sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns
      where table_schema = current_schema() and table_name = 'contacts' and column_name in ('tags', 'custom_fields') order by column_name`.execute(handle.db);
    expect(columns.rows).toEqual([{ column_name: 'custom_fields', data_type: 'jsonb' }, { column_name: 'tags', data_type: 'jsonb' }]);
    // On two rows the planner rightly prefers reading the table; with that ruled out, the tag test must be one the index answers.
    const tagTest = matchContacts(parseSegmentFilter({ field: 'tags', op: 'contains', value: 'vip' }).condition, { dialect: 'postgres', accountId, nowMs: Date.now() });
    const plan = await handle.db.connection().execute(async (one) => {
      await sql`set enable_seqscan = off`.execute(one);
      try {
        return (await sql<{ 'QUERY PLAN': string }>`explain select id from contacts where ${tagTest}`.execute(one)).rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`reset enable_seqscan`.execute(one);
      }
    });
    expect(plan).toContain('contacts_tag_keys_idx');
  });

  it('keep new contacts defaulting to no tags and no fields', async () => {
    const now = new Date().toISOString();
    await sql`insert into contacts (account_id, email, lead_score, status, created_at, updated_at) values (${accountId}, 'new@example.com', 0, 'SUBSCRIBED', ${now}, ${now})`.execute(handle.db);
    expect(toContact((await findContactByEmail(handle.db, accountId, 'new@example.com'))!)).toMatchObject({ tags: [], custom_fields: {} });
  });
});
