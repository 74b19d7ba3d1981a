import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 31: a transactional message's engagement is told apart as a campaign recipient's is (D23:
 * a person's or a machine's first open and click), its repeat opens give an event at most every
 * 10 minutes (issue 14 L2: `open_event_at`), and a complaint about it is kept once.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  for (const column of ['human_opened_at', 'machine_opened_at', 'human_clicked_at', 'machine_clicked_at', 'open_event_at', 'complained_at']) {
    await db.schema.alterTable('messages').addColumn(column, ts).execute();
  }
}
