import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { FormsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

export function insertForm(db: Db, values: Insertable<FormsTable>) {
  return db.insertInto('forms').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findForm(db: Db, accountId: number, id: number) {
  return db.selectFrom('forms').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** The public `/f/{uid}` lookup: the uid alone names the form (and so its account). */
export function findFormByUid(db: Db, uid: string) {
  return db.selectFrom('forms').selectAll().where('uid', '=', uid).executeTakeFirst();
}

export function updateForm(db: Db, accountId: number, id: number, values: Updateable<FormsTable>) {
  return db.updateTable('forms').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteForm(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('forms').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** D6: oldest first, as lists. */
export function pageForms(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('forms').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}
