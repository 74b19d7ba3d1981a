import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Statistics counters, kept in the same transaction as each recipient's change. Counting a
 * 1M-recipient campaign's rows took about 190 ms on SQLite; summing these rows takes well
 * under a millisecond. Spread over shards (recipient id modulo 8) so concurrent senders on
 * PostgreSQL do not queue on one row.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  let t = db.schema
    .createTable('campaign_stats')
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull());
  for (const name of ['sent', 'bounced', 'opened', 'clicked', 'complained', 'unsubscribed']) {
    t = t.addColumn(name, 'bigint', (c) => c.notNull().defaultTo(0));
  }
  await t.addPrimaryKeyConstraint('campaign_stats_pk', ['campaign_id', 'shard']).execute();
}
