import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D23's sending pace:
 * - `campaigns.send_window`: `{ days, start, end, timezone }` as JSON text, or null (any time).
 * - `campaigns.outcomes_counted_from`: where the automatic stop starts counting bounces and
 *   complaints; set when sending starts and when `/send` or retry-failed resumes it, so a
 *   resumed campaign is judged afresh. Null (campaigns from before this): from the first message.
 * - an index on (campaign_id, sent_at), so the stop reads a campaign's latest 500 outcomes
 *   backwards from its newest without touching the rest.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  await db.schema.alterTable('campaigns').addColumn('send_window', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('outcomes_counted_from', ts).execute();
  await db.schema.createIndex('campaign_recipients_campaign_sent_idx').on('campaign_recipients').columns(['campaign_id', 'sent_at']).execute();
}
