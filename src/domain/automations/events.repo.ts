import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { EventsTable } from '../../db/schema.ts';

/** D14: an event as received; answers its id. */
export async function insertEvent(db: Db, values: Insertable<EventsTable>): Promise<number> {
  const row = await db.insertInto('events').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}
