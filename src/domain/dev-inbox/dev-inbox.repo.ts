import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { DevInboxTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

/**
 * Keeps a captured message, then drops the account's oldest past `keep` (issue 14 H5: one test
 * send grew the database by about 200 MB). The newest are what a developer looks at.
 */
export async function insertDevInboxMessage(db: Db, values: Insertable<DevInboxTable>, keep: number): Promise<void> {
  await db.insertInto('dev_inbox').values(values).execute();
  const oldestKept = await db
    .selectFrom('dev_inbox')
    .select('id')
    .where('account_id', '=', values.account_id)
    .orderBy('id', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst();
  if (oldestKept) await db.deleteFrom('dev_inbox').where('account_id', '=', values.account_id).where('id', '<', oldestKept.id).execute();
}

/** D6: the account's captured mail, newest first. */
export async function pageDevInbox(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('dev_inbox').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('id', 'desc'), base, page);
}

/** D21: erasure deletes the account's captured copies of mail to the address (they hold its merge fields). */
export async function deleteDevInboxMessagesTo(db: Db, accountId: number, email: string): Promise<void> {
  await db.deleteFrom('dev_inbox').where('account_id', '=', accountId).where('to_address', '=', email).execute();
}
