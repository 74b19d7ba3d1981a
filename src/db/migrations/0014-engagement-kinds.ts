import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D23: opens and clicks told apart as human or machine (a mail privacy proxy's prefetch, a link
 * scanner). Each recipient row keeps its first human and first machine open and click, and the
 * campaign's sharded counters count recipients with at least one of each, in the transaction that
 * sets the moment, as the other counters are. Rows from before this have neither: their opens and
 * clicks stay counted in `opened` and `clicked`, and in no kind (nothing recorded what they were).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  for (const column of ['human_opened_at', 'machine_opened_at', 'human_clicked_at', 'machine_clicked_at']) {
    await db.schema.alterTable('campaign_recipients').addColumn(column, ts).execute();
  }
  for (const counter of ['human_opened', 'machine_opened', 'human_clicked', 'machine_clicked']) {
    await db.schema.alterTable('campaign_stats').addColumn(counter, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  }
}
