import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 14 H2, L4 and L2: what a click or an open reads, so that neither compiles a template.
 * - `test_sends`: one row per test send (D13 `/test`), with the link list its messages were
 *   rendered with; its tokens name the row and an index into that list, and die 7 days after
 *   `created_at`.
 * - `campaigns.links`: the link list a campaign's click tokens index into, stored when its
 *   messages start to go out (content no longer changes then, D13).
 * - `campaign_recipients.open_event_at`: when the last `email.opened` event of a recipient was
 *   emitted, so repeat opens give at most one event per 10 minutes.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let testSends = db.schema.createTable('test_sends');
  testSends =
    dialect === 'postgres' ? testSends.addColumn('id', 'bigserial', (c) => c.primaryKey()) : testSends.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await testSends
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    // a JSON array of URLs, as the messages were rendered
    .addColumn('links', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  // Expired rows are pruned oldest first; the campaign's rows go with it (the foreign key).
  await db.schema.createIndex('test_sends_created_idx').on('test_sends').column('created_at').execute();
  await db.schema.createIndex('test_sends_campaign_idx').on('test_sends').column('campaign_id').execute();

  await db.schema.alterTable('campaigns').addColumn('links', 'text').execute();
  await db.schema.alterTable('campaign_recipients').addColumn('open_event_at', ts).execute();
}
