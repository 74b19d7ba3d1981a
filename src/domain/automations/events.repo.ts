import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
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
