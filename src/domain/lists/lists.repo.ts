import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { ListsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

export function findList(db: Db, accountId: number, id: number) {
  return db.selectFrom('lists').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** Which of `ids` are lists of the account, in one query per 500 ids. */
export async function existingListIds(db: Db, accountId: number, ids: number[]): Promise<Set<number>> {
  const found = new Set<number>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db.selectFrom('lists').select('id').where('account_id', '=', accountId).where('id', 'in', unique.slice(i, i + 500)).execute();
    for (const r of rows) found.add(Number(r.id));
  }
  return found;
}

/** D20: how each of the account's lists among `ids` takes sign-ups: public or not, single or double opt-in. Missing ids are left out. */
export async function findListOptIns(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('lists').select(['id', 'is_public', 'opt_in']).where('account_id', '=', accountId).where('id', 'in', ids).orderBy('id').execute();
}

export function findListByNameKey(db: Db, accountId: number, nameKey: string) {
  return db.selectFrom('lists').selectAll().where('account_id', '=', accountId).where('name_key', '=', nameKey).executeTakeFirst();
}

export function insertList(db: Db, values: Insertable<ListsTable>) {
  return db.insertInto('lists').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateList(db: Db, accountId: number, id: number, values: Updateable<ListsTable>) {
  return db.updateTable('lists').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteList(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('lists').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** D6: lists oldest first, ties by id. */
export async function pageLists(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('lists').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}

/**
 * Adds contacts to a list, ignoring those already in it, and keeps `contact_count` in step in
 * the same statement sequence (the caller's transaction). Returns the ids of the new members
 * (what LIST_JOINED fires for).
 */
export async function addMembers(db: Db, listId: number, contactIds: number[], now: string): Promise<number[]> {
  if (contactIds.length === 0) return [];
  const added: number[] = [];
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < contactIds.length; i += 300) {
    const chunk = contactIds.slice(i, i + 300);
    const rows = await db
      .insertInto('list_members')
      .values(chunk.map((contact_id) => ({ list_id: listId, contact_id, created_at: now })))
      .onConflict((oc) => oc.columns(['list_id', 'contact_id']).doNothing())
      .returning('contact_id')
      .execute();
    for (const r of rows) added.push(r.contact_id);
  }
  await countNewMembers(db, listId, added.length);
  return added;
}

/**
 * Every valid item of a bulk import into the list (D14), in one INSERT ... SELECT: the contacts
 * of the account with these e-mails that are not members yet. Returns the new members' ids.
 */
export async function addMembersByEmail(db: Db, accountId: number, listId: number, emails: string[], now: string): Promise<number[]> {
  if (emails.length === 0) return [];
  const rows = await db
    .insertInto('list_members')
    .columns(['list_id', 'contact_id', 'created_at'])
    .expression((eb) =>
      eb.selectFrom('contacts').select((s) => [s.val(listId).as('list_id'), 'contacts.id', s.val(now).as('created_at')]).where('contacts.account_id', '=', accountId).where('contacts.email', 'in', emails),
    )
    .onConflict((oc) => oc.columns(['list_id', 'contact_id']).doNothing())
    .returning('contact_id')
    .execute();
  const added = rows.map((r) => r.contact_id);
  await countNewMembers(db, listId, added.length);
  return added;
}

async function countNewMembers(db: Db, listId: number, added: number): Promise<void> {
  if (added > 0) {
    await db.updateTable('lists').set((eb) => ({ contact_count: eb('contact_count', '+', added) })).where('id', '=', listId).execute();
  }
}

export async function removeMember(db: Db, listId: number, contactId: number): Promise<boolean> {
  const result = await db.deleteFrom('list_members').where('list_id', '=', listId).where('contact_id', '=', contactId).executeTakeFirst();
  const removed = Number(result.numDeletedRows) > 0;
  if (removed) await db.updateTable('lists').set((eb) => ({ contact_count: eb('contact_count', '-', 1) })).where('id', '=', listId).execute();
  return removed;
}

/** Before a contact is deleted: its lists each lose one member. */
export async function removeContactFromAllLists(db: Db, contactId: number): Promise<void> {
  // Delete first, then count only the rows this statement removed: the same lock order as
  // removeMember (member row, then list row). Counting from a prior SELECT let a concurrent
  // removal be subtracted twice and deadlocked with it on PostgreSQL.
  const removed = await db.deleteFrom('list_members').where('contact_id', '=', contactId).returning('list_id').execute();
  if (removed.length === 0) return;
  await db
    .updateTable('lists')
    .set((eb) => ({ contact_count: eb('contact_count', '-', 1) }))
    .where('id', 'in', removed.map((r) => r.list_id))
    .execute();
}

export async function memberContactIds(db: Db, listId: number, contactIds: number[]): Promise<Set<number>> {
  if (contactIds.length === 0) return new Set();
  const rows = await db.selectFrom('list_members').select('contact_id').where('list_id', '=', listId).where('contact_id', 'in', contactIds).execute();
  return new Set(rows.map((r) => r.contact_id));
}
