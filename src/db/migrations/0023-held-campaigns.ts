import { sql, type Kysely } from 'kysely';

/**
 * D26.2: a partial index on campaign_recipients (campaign_id, next_attempt_at) over the PENDING
 * rows that wait for a time (a pace or a retry), so saying why a SENDING campaign waits (`held`)
 * reads its earliest waiting recipient without walking a backlog of a million paced rows. Partial,
 * so the sender's claim keeps its own (campaign_id, status) index in id order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('campaign_recipients_waiting_idx')
    .on('campaign_recipients')
    .columns(['campaign_id', 'next_attempt_at'])
    .where(sql.ref('status'), '=', 'PENDING')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
}
