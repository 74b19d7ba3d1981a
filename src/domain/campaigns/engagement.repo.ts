import type { Db } from '../../db/connect.ts';

/**
 * Issue 14 L2: claims the right to emit an `email.opened` event for a recipient: true, and the
 * time stamped, when none was emitted since `notSince` (or ever). One guarded UPDATE, so
 * concurrent opens of one recipient emit one event between them.
 */
export async function claimOpenEvent(db: Db, recipientId: number, now: string, notSince: string): Promise<boolean> {
  const result = await db
    .updateTable('campaign_recipients')
    .set({ open_event_at: now })
    .where('id', '=', recipientId)
    .where((eb) => eb.or([eb('open_event_at', 'is', null), eb('open_event_at', '<=', notSince)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
