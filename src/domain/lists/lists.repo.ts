import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { keysetAfter, noText, rankOf, type KeysetSlice } from '../../db/keyset.ts';
import type { ListsTable, MembershipStatus } from '../../db/schema.ts';
import { countDelta, MEMBERSHIP_RULES, type MembershipChange } from './membership-status.ts';
import { pageQuery } from '../../db/page-query.ts';
import { clearAwaitingConfirmation } from '../contacts/contacts.repo.ts';
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

export interface MembershipWrite {
  contactId: number;
  /** null: the contact was not a member */
  from: MembershipStatus | null;
  to: MembershipStatus;
}

/**
 * D20: the one write of membership status (membership-status.ts holds the rule). For one list:
 * new memberships are inserted with the rule's `create` status, existing ones moved where the
 * rule's `from` allows, one guarded UPDATE per status left so each changed row's old status is
 * known even when writers interleave; then `contact_count` (SUBSCRIBED memberships) moves by
 * exactly what these statements changed, in the caller's transaction. Member rows first, then the
 * list row: the lock order every membership write keeps. Returns the memberships that changed.
 */
export async function changeMemberships(db: Db, listId: number, contactIds: number[], change: MembershipChange, now: string): Promise<MembershipWrite[]> {
  const ids = [...new Set(contactIds)];
  if (ids.length === 0) return [];
  const rule = MEMBERSHIP_RULES[change];
  const written: MembershipWrite[] = [];
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < ids.length; i += 300) {
    const chunk = ids.slice(i, i + 300);
    if (rule.create !== null) {
      const status = rule.create;
      const rows = await db
        .insertInto('list_members')
        .values(chunk.map((contact_id) => ({ list_id: listId, contact_id, status, status_changed_at: now, created_at: now })))
        .onConflict((oc) => oc.columns(['list_id', 'contact_id']).doNothing())
        .returning('contact_id')
        .execute();
      for (const r of rows) written.push({ contactId: r.contact_id, from: null, to: status });
    }
    for (const from of rule.from) {
      if (from === rule.to) continue;
      const rows = await db
        .updateTable('list_members')
        .set({ status: rule.to, status_changed_at: now })
        .where('list_id', '=', listId)
        .where('contact_id', 'in', chunk)
        .where('status', '=', from)
        .returning('contact_id')
        .execute();
      for (const r of rows) written.push({ contactId: r.contact_id, from, to: rule.to });
    }
  }
  await moveContactCount(db, listId, written.reduce((n, w) => n + countDelta(w.from, w.to), 0));
  // Issue 28 M3: a SUBSCRIBED membership is consent; a contact that waited for its confirmation no longer does.
  await clearAwaitingConfirmation(db, written.filter((w) => w.to === 'SUBSCRIBED').map((w) => w.contactId));
  return written;
}

/**
 * Every valid item of a bulk import into the list (D14), in one INSERT ... SELECT: the contacts
 * of the account with these e-mails that are not members yet, SUBSCRIBED (an import never
 * changes an existing membership, D17.6, as `ADD_NEW_ONLY` says). Returns the new members' ids.
 */
export async function addMembersByEmail(db: Db, accountId: number, listId: number, emails: string[], now: string): Promise<number[]> {
  if (emails.length === 0) return [];
  const status = MEMBERSHIP_RULES.ADD_NEW_ONLY.create!;
  const rows = await db
    .insertInto('list_members')
    .columns(['list_id', 'contact_id', 'status', 'status_changed_at', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('contacts')
        .select((s) => [s.val(listId).as('list_id'), 'contacts.id', s.val(status).as('status'), s.val(now).as('status_changed_at'), s.val(now).as('created_at')])
        .where('contacts.account_id', '=', accountId)
        .where('contacts.email', 'in', emails),
    )
    .onConflict((oc) => oc.columns(['list_id', 'contact_id']).doNothing())
    .returning('contact_id')
    .execute();
  const added = rows.map((r) => r.contact_id);
  await moveContactCount(db, listId, added.length);
  await clearAwaitingConfirmation(db, added);
  return added;
}

async function moveContactCount(db: Db, listId: number, delta: number): Promise<void> {
  if (delta !== 0) {
    await db.updateTable('lists').set((eb) => ({ contact_count: eb('contact_count', '+', delta) })).where('id', '=', listId).execute();
  }
}

/** Removes the membership whatever its status; the count loses one only if it was SUBSCRIBED. */
export async function removeMember(db: Db, listId: number, contactId: number): Promise<boolean> {
  const removed = await db.deleteFrom('list_members').where('list_id', '=', listId).where('contact_id', '=', contactId).returning('status').execute();
  if (removed.length === 0) return false;
  await moveContactCount(db, listId, countDelta(removed[0].status, null));
  return true;
}

/** Before a contact is deleted: the lists it was SUBSCRIBED to each lose one member. */
export async function removeContactFromAllLists(db: Db, contactId: number): Promise<void> {
  // Delete first, then count only the rows this statement removed: the same lock order as
  // removeMember (member row, then list row). Counting from a prior SELECT let a concurrent
  // removal be subtracted twice and deadlocked with it on PostgreSQL.
  const removed = await db.deleteFrom('list_members').where('contact_id', '=', contactId).returning(['list_id', 'status']).execute();
  const counted = removed.filter((r) => r.status === 'SUBSCRIBED').map((r) => r.list_id);
  if (counted.length === 0) return;
  await db
    .updateTable('lists')
    .set((eb) => ({ contact_count: eb('contact_count', '-', 1) }))
    .where('id', 'in', counted)
    .execute();
}

/** The memberships of these contacts in these lists, keyed `${list_id}:${contact_id}`. */
export async function membershipStatuses(db: Db, listIds: number[], contactIds: number[]): Promise<Map<string, MembershipStatus>> {
  const found = new Map<string, MembershipStatus>();
  if (listIds.length === 0) return found;
  for (let i = 0; i < contactIds.length; i += 500) {
    const rows = await db
      .selectFrom('list_members')
      .select(['list_id', 'contact_id', 'status'])
      .where('list_id', 'in', listIds)
      .where('contact_id', 'in', contactIds.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(`${r.list_id}:${r.contact_id}`, r.status);
  }
  return found;
}

/** The contact's memberships with their status, by list id. */
export function membershipsOf(db: Db, contactId: number) {
  return db.selectFrom('list_members').select(['list_id', 'status', 'status_changed_at']).where('contact_id', '=', contactId).orderBy('list_id').execute();
}

/** The lists of the account among `ids`, with what a subscription needs to know of each. */
export async function findListsForSubscription(db: Db, accountId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return db
    .selectFrom('lists')
    .select(['id', 'name', 'opt_in', 'is_public', 'confirmation_subject', 'confirmation_text', 'confirmation_from_email'])
    .where('account_id', '=', accountId)
    .where('id', 'in', unique)
    .orderBy('id')
    .execute();
}

export async function memberContactIds(db: Db, listId: number, contactIds: number[]): Promise<Set<number>> {
  if (contactIds.length === 0) return new Set();
  const rows = await db.selectFrom('list_members').select('contact_id').where('list_id', '=', listId).where('contact_id', 'in', contactIds).execute();
  return new Set(rows.map((r) => r.contact_id));
}

/** D21: a contact's memberships with their lists' names, by list id (the personal data export and D20's preference centre). */
export function membershipsOfContact(db: Db, contactId: number) {
  return db
    .selectFrom('list_members')
    .innerJoin('lists', 'lists.id', 'list_members.list_id')
    .select(['list_members.list_id', 'lists.name', 'lists.is_public', 'list_members.status', 'list_members.created_at', 'list_members.status_changed_at'])
    .where('list_members.contact_id', '=', contactId)
    .orderBy('list_members.list_id')
    .execute();
}

/** D20: the account's public lists (the preference centre's, usable by forms), by id. */
export function publicListsOf(db: Db, accountId: number) {
  return db.selectFrom('lists').select(['id', 'name', 'description']).where('account_id', '=', accountId).where('is_public', '=', 1).orderBy('id').execute();
}

/**
 * Issue 34: the lists the contact left (UNSUBSCRIBED memberships), for its timeline, newest first,
 * at most `slice.limit`; the entry's id is the list's. Read along list_members' contact index: a
 * contact has at most one membership per list.
 */
export function leftListTimeline(db: Db, contactId: number, slice: KeysetSlice) {
  return db
    .selectFrom('list_members')
    .innerJoin('lists', 'lists.id', 'list_members.list_id')
    .select((eb) => [
      rankOf(slice.rank).as('rank'),
      eb.ref('list_members.status_changed_at').$castTo<string | Date>().as('at'),
      'list_members.list_id as id',
      'lists.id as ref_id',
      'lists.name as ref_name',
      noText().as('detail'),
    ])
    .where('list_members.contact_id', '=', contactId)
    .where('list_members.status', '=', 'UNSUBSCRIBED')
    .where('list_members.status_changed_at', 'is not', null)
    .where(keysetAfter(slice, 'list_members.status_changed_at', 'list_members.list_id'))
    .orderBy('list_members.status_changed_at', 'desc')
    .orderBy('list_members.list_id', 'desc')
    .limit(slice.limit);
}
