import type { Db } from '../../db/connect.ts';

/** Issue 31: the statements on `messages` for what happens to a message after it went: opens, clicks, bounces, complaints. */

/** The moments a message records once each (D16's first-only rule, D23's person or machine). */
export type MessageMoment = 'opened_at' | 'clicked_at' | 'human_opened_at' | 'machine_opened_at' | 'human_clicked_at' | 'machine_clicked_at' | 'bounced_at' | 'complained_at';

/** What an open, a click, a bounce or a complaint of a message needs to know of it (by id alone: the token, address or Message-ID that named it is signed). */
export function findMessageRef(db: Db, id: number) {
  return db
    .selectFrom('messages')
    .select(['id', 'account_id', 'to_email', 'tags', 'metadata', 'status', 'links', 'sent_at', 'bounced_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Sets a first-time moment; false when it was set before (a repeat changes nothing). */
export async function setFirstMessageMoment(db: Db, id: number, column: MessageMoment, now: string): Promise<boolean> {
  const result = await db.updateTable('messages').set({ [column]: now }).where('id', '=', id).where(column, 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Issue 14 L2, as for a campaign recipient (claimOpenEvent): the right to emit a message.opened
 * event, when none was emitted since `notSince`. One guarded UPDATE, so concurrent opens emit one.
 */
export async function claimMessageOpenEvent(db: Db, id: number, now: string, notSince: string): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set({ open_event_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('open_event_at', 'is', null), eb('open_event_at', '<=', notSince)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A hard bounce reported after the message went (a DSN, a provider's report): SENT → BOUNCED, once. */
export async function markMessageBounced(db: Db, id: number, error: string): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set({ status: 'BOUNCED', error: error.slice(0, 1000) })
    .where('id', '=', id)
    .where('status', '=', 'SENT')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
