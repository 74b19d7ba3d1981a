import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * The transactional lane takes its turns by account (every queue shared by accounts is fair): it
 * walks the accounts that have messages to send, one index seek each, and takes a share of each
 * one's due messages. Only rows the lane may still take are in this index, so an account with a
 * million sent messages costs the walk nothing.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('messages_account_due_idx')
    .on('messages')
    .columns(['account_id', 'due_at'])
    .where(() => sql<boolean>`status in ('QUEUED', 'SCHEDULED')`)
    .execute();
}
