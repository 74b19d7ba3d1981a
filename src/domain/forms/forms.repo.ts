import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { FormsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';
import { readJson } from '../shared/json.ts';

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

/**
 * D26.1: the account's forms that sign people up to the list, by name. `list_ids` is a JSON array,
 * so the text match only narrows the rows the account has; the parsed array decides.
 */
export async function formsHoldingList(db: Db, accountId: number, listId: number): Promise<string[]> {
  const rows = await db.selectFrom('forms').select(['name', 'list_ids']).where('account_id', '=', accountId).where('list_ids', 'like', `%${listId}%`).orderBy('id').execute();
  return rows.filter((r) => readJson<number[]>(r.list_ids, []).includes(listId)).map((r) => `form "${r.name}"`);
}
