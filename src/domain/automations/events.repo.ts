import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { keysetAfter, noRefId, noText, rankOf, type KeysetSlice } from '../../db/keyset.ts';
import type { EventsTable } from '../../db/schema.ts';

/** D14: an event as received; answers its id. */
export async function insertEvent(db: Db, values: Insertable<EventsTable>): Promise<number> {
  const row = await db.insertInto('events').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/** D21: a contact's events, oldest first (the personal data export). */
export function eventsOfContact(db: Db, contactId: number) {
  return db.selectFrom('events').select(['id', 'name', 'data', 'created_at']).where('contact_id', '=', contactId).orderBy('id').execute();
}

/** D21: erasure deletes the contact's events (deleting the contact alone would keep them, unlinked). */
export async function deleteEventsOfContact(db: Db, contactId: number): Promise<void> {
  await db.deleteFrom('events').where('contact_id', '=', contactId).execute();
}

/** Issue 34: the contact's events for its timeline, newest first, at most `slice.limit` (index (contact_id, created_at, id), migration 0033). */
export function eventTimeline(db: Db, contactId: number, slice: KeysetSlice) {
  return db
    .selectFrom('events')
    .select([rankOf(slice.rank).as('rank'), 'created_at as at', 'id', noRefId().as('ref_id'), noText().as('ref_name'), 'name as detail'])
    .where('contact_id', '=', contactId)
    .where(keysetAfter(slice, 'events.created_at', 'events.id'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(slice.limit);
}
