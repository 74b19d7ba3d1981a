import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D23 A/B tests.
 * - `campaigns.variants`: JSON array of 2-4 `{ subject?, from_name?, html?, text? }` over the base content, else null.
 * - `campaigns.ab_test`: JSON `{ test_percent, metric, wait_minutes }`, else null (both or neither).
 * - `campaigns.ab_phase`: null (no test, or not started), TESTING (the test share is being sent),
 *   WAITING (until `ab_wait_until`), DECIDED (`ab_winner` is being sent to the rest). Kept in the
 *   row so a restart during the wait loses nothing, and moved by guarded updates so two senders
 *   never pick twice.
 * - `campaign_recipients.variant`: the variant a recipient gets (its test share, or the winner);
 *   null for campaigns without variants. The rest of an A/B audience waits as status HELD, which
 *   no claim takes.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  await db.schema.alterTable('campaigns').addColumn('variants', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('ab_test', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('ab_phase', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('ab_wait_until', ts).execute();
  await db.schema.alterTable('campaigns').addColumn('ab_winner', 'integer').execute();
  await db.schema.alterTable('campaign_recipients').addColumn('variant', 'integer').execute();
}
