import type { Db } from '../../db/connect.ts';

/** A test send's row, made before its messages are rendered: they carry its id in their links. */
export async function insertTestSend(db: Db, values: { account_id: number; campaign_id: number; created_at: string }): Promise<number> {
  const row = await db.insertInto('test_sends').values({ ...values, links: '[]' }).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The link list the test send's messages were rendered with (JSON), kept before they are sent. */
export async function setTestSendLinks(db: Db, id: number, links: string): Promise<void> {
  await db.updateTable('test_sends').set({ links }).where('id', '=', id).execute();
}

/** A test send whose messages never went out (its render failed). */
export async function deleteTestSend(db: Db, id: number): Promise<void> {
  await db.deleteFrom('test_sends').where('id', '=', id).execute();
}

/** The test send a token names, if it was made after `createdAfter` (older ones have expired). */
export function findLiveTestSend(db: Db, id: number, createdAfter: string) {
  return db.selectFrom('test_sends').select(['id', 'links']).where('id', '=', id).where('created_at', '>', createdAfter).executeTakeFirst();
}

/** Test sends made before `createdBefore`: their links answer 404 anyway. */
export async function deleteTestSendsBefore(db: Db, createdBefore: string): Promise<void> {
  await db.deleteFrom('test_sends').where('created_at', '<=', createdBefore).execute();
}
