import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D18: saved segments, and campaigns that target them.
 * - `segments`: a filter tree (JSON) per row; names are unique per account ignoring case, as lists'.
 * - `campaigns.segment_ids`: the segments a campaign targets beside its lists (JSON array).
 * - `campaigns.follow_up`: a follow-up's audience, `{ "campaign_id", "audience" }` (JSON), else null.
 * - `events (account_id, name, created_at)`: "performed event X (within N days)" reads one index
 *   range for the account's contacts who did.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let segments = db.schema.createTable('segments');
  segments =
    dialect === 'postgres' ? segments.addColumn('id', 'bigserial', (c) => c.primaryKey()) : segments.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await segments
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('segments_account_name_uq', ['account_id', 'name_key'])
    .execute();
  await db.schema.createIndex('segments_account_created_idx').on('segments').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema.alterTable('campaigns').addColumn('segment_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('campaigns').addColumn('follow_up', 'text').execute();

  await db.schema.createIndex('events_account_name_created_idx').on('events').columns(['account_id', 'name', 'created_at']).execute();
}
