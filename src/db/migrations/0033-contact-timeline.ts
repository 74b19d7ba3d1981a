import { sql, type Kysely } from 'kysely';

/** The recipient row times the contact timeline shows, each a kind of its own (domain/timeline/timeline.ts). */
const RECIPIENT_TIMES = ['sent_at', 'human_opened_at', 'machine_opened_at', 'human_clicked_at', 'machine_clicked_at', 'bounced_at', 'complained_at', 'unsubscribed_at'];

/**
 * Issue 34: the contact timeline reads each of its sources newest first from (contact_id, time,
 * id), so a page reads at most size + 1 rows of each however long the contact's history.
 * - campaign_recipients: one partial index per time, over the rows where it is set. A row enters
 *   one when its time is first written (a send, an open, ...), never on the audience snapshot's
 *   insert, so the sender's bulk inserts pay nothing for them.
 * - events, automation_runs and consents: (contact_id, created_at, id).
 * list_members needs none: a contact has one membership per list, found by its contact index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of RECIPIENT_TIMES) {
    await db.schema
      .createIndex(`campaign_recipients_contact_${column.replace(/_at$/, '')}_idx`)
      .on('campaign_recipients')
      .columns(['contact_id', column, 'id'])
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  for (const table of ['events', 'automation_runs', 'consents']) {
    await db.schema.createIndex(`${table}_contact_created_idx`).on(table).columns(['contact_id', 'created_at', 'id']).execute();
  }
}
