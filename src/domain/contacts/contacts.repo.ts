import { sql, type ExpressionBuilder, type Insertable, type RawBuilder, type Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { ContactsTable, Database, MembershipStatus } from '../../db/schema.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { readHere, type ReadRows } from '../../db/read-pool.ts';
import { containsPattern, jsonArrayHasAny, lowerFor } from '../../db/sql-helpers.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';
import { statusChange, type StatusChange } from './contact-status.ts';

export interface ContactFilter {
  search?: string;
  tag?: string;
  list_id?: number;
  status?: string;
  /** D20: a list's member page: every membership of the list, whatever its status, and the status shown */
  member_of?: number;
  membership_status?: MembershipStatus;
  /** D18: a segment's filter, compiled over `contacts` (segments.repo.ts matchContacts) */
  matching?: RawBuilder<boolean>;
  /** D6: the contact list is newest first; a list's members are by id ascending. */
  order?: 'newest' | 'id_asc';
}

/**
 * The contact's memberships (`[{ list_id, status }]` by list id) as JSON text, gathered in the same
 * query as the contact: `list_ids` (SUBSCRIBED ones, D20) and `memberships` are both read from it.
 */
function membershipsJson(dialect: Dialect) {
  return dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(json_build_object('list_id', m.list_id, 'status', m.status) order by m.list_id), '[]'::json)::text from list_members m where m.contact_id = contacts.id)`
    : sql<string>`(select json_group_array(json_object('list_id', list_id, 'status', status)) from (select m.list_id, m.status from list_members m where m.contact_id = contacts.id order by m.list_id))`;
}

/** D20: the contacts whose membership of the list counts (SUBSCRIBED): list filters, exports, audiences. */
export function subscribedMembersOf(eb: ExpressionBuilder<Database, any>, listId: number) {
  return eb.selectFrom('list_members').select('list_members.contact_id').where('list_members.list_id', '=', listId).where('list_members.status', '=', 'SUBSCRIBED');
}

function selectContacts(db: Db, dialect: Dialect) {
  return db.selectFrom('contacts').selectAll('contacts').select(membershipsJson(dialect).as('memberships'));
}

/**
 * A contact as mail is rendered for it: identity and merge fields. One SELECT for the sender's
 * batches, the automation runner's steps and the preview's stand-in member (issue 15: it was
 * written three times, each with its own columns).
 */
function selectMergeContact(db: Db) {
  return db.selectFrom('contacts').select(['contacts.id', 'contacts.email', 'contacts.first_name', 'contacts.last_name', 'contacts.phone', 'contacts.custom_fields']);
}

export type ContactWithLists = Awaited<ReturnType<ReturnType<typeof selectContacts>['executeTakeFirstOrThrow']>>;

// The lookup behind every GET /contacts/{email}: compiled once per dialect (see db/prepared.ts).
const contactByEmail = preparedQuery(2, (db, dialect, accountId: number, email: string) =>
  selectContacts(db, dialect).where('contacts.account_id', '=', accountId).where('contacts.email', '=', email),
);

export async function findContactByEmail(db: Db, accountId: number, email: string) {
  return (await contactByEmail(db, accountId, email))[0];
}

export function findContactById(db: Db, dialect: Dialect, id: number) {
  return selectContacts(db, dialect).where('contacts.id', '=', id).executeTakeFirstOrThrow();
}

/** Maps each e-mail that exists in the account to its contact id. */
export async function findContactIdsByEmails(db: Db, accountId: number, emails: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < emails.length; i += 500) {
    const rows = await db
      .selectFrom('contacts')
      .select(['id', 'email'])
      .where('account_id', '=', accountId)
      .where('email', 'in', emails.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(r.email, r.id);
  }
  return found;
}

/** Every column a new contact is given; the rest take their defaults. */
export type NewContactRow = Required<Omit<Insertable<ContactsTable>, 'id' | 'lead_score'>>;

const NEW_CONTACT_COLUMNS = ['account_id', 'email', 'first_name', 'last_name', 'phone', 'tags', 'custom_fields', 'status', 'awaiting_confirmation', 'created_at', 'updated_at'] as const satisfies readonly (keyof NewContactRow)[];

// Built once (db/prepared.ts): every create runs it, and building the insert cost more than running it (issue 35).
const contactInsert = preparedQuery(NEW_CONTACT_COLUMNS.length, (db, _dialect, ...values: unknown[]) =>
  db
    .insertInto('contacts')
    .values(Object.fromEntries(NEW_CONTACT_COLUMNS.map((column, i) => [column, values[i]])) as NewContactRow)
    .returningAll(),
);

/** The new row as stored (defaults filled in), so the caller need not read it back. */
export async function insertContact(db: Db, row: NewContactRow) {
  const [inserted] = await contactInsert(db, ...NEW_CONTACT_COLUMNS.map((column) => row[column]));
  return inserted;
}

/** Any field but `status`, which only `applyStatusChange` writes (D17.5). */
export async function updateContact(db: Db, id: number, values: Omit<Updateable<ContactsTable>, 'status'>): Promise<void> {
  await db.updateTable('contacts').set(values).where('id', '=', id).execute();
}

export async function deleteContact(db: Db, id: number): Promise<void> {
  await db.deleteFrom('contacts').where('id', '=', id).execute();
}

/** The account's contacts that `f` keeps, nothing selected: the contacts list's page and count, and export's pages (issue 34). */
export function filteredContacts(db: Db, dialect: Dialect, accountId: number, f: ContactFilter) {
  let base = db.selectFrom('contacts').where('contacts.account_id', '=', accountId);
  if (f.search) {
    const pattern = containsPattern(f.search);
    const lower = (column: string) => lowerFor(dialect, sql`coalesce(${sql.ref(column)}, '')`, [f.search!.toLowerCase()]);
    base = base.where((eb) => eb.or([eb(lower('contacts.email'), 'like', pattern), eb(lower('contacts.first_name'), 'like', pattern), eb(lower('contacts.last_name'), 'like', pattern)]));
  }
  if (f.tag) base = base.where(jsonArrayHasAny(dialect, 'contacts.tags', [f.tag]));
  if (f.status) base = base.where('contacts.status', '=', f.status);
  if (f.list_id !== undefined) {
    const listId = f.list_id;
    base = base.where('contacts.id', 'in', (eb) => subscribedMembersOf(eb, listId));
  }
  if (f.member_of !== undefined) {
    const listId = f.member_of;
    base = base.where('contacts.id', 'in', (eb) => {
      const members = eb.selectFrom('list_members').select('list_members.contact_id').where('list_members.list_id', '=', listId);
      return f.membership_status ? members.where('list_members.status', '=', f.membership_status) : members;
    });
  }
  if (f.matching) base = base.where(f.matching);
  return base;
}

export async function pageContacts(db: Db, dialect: Dialect, accountId: number, f: ContactFilter, page: PageRequest, read: ReadRows = readHere) {
  const base = filteredContacts(db, dialect, accountId, f);
  let rowsQuery = base.selectAll('contacts').select(membershipsJson(dialect).as('memberships'));
  rowsQuery = f.order === 'id_asc'
    ? rowsQuery.orderBy('contacts.id', 'asc')
    : rowsQuery.orderBy('contacts.created_at', 'desc').orderBy('contacts.id', 'desc');
  return pageQuery(rowsQuery, base, page, read);
}

/**
 * D17.5: the one write of a contact's status. The rule's `from` is the WHERE guard, so the change
 * applies only where contact-status.ts allows it, however writers interleave. Returns whether the
 * status changed.
 */
export async function applyStatusChange(db: Db, contactId: number, change: StatusChange, now: string): Promise<boolean> {
  const { to, from } = statusChange(change);
  const result = await db
    .updateTable('contacts')
    .set({ status: to, updated_at: now })
    .where('id', '=', contactId)
    .where('status', 'in', [...from])
    .where('status', '!=', to)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The first SUBSCRIBED member (lowest id) of any of the lists: whose data a preview or a test send
 * to a non-contact shows in place of blank merge fields (issue 15).
 */
export async function findFirstSubscribedMember(db: Db, accountId: number, listIds: number[]) {
  if (listIds.length === 0) return undefined;
  return selectMergeContact(db)
    .innerJoin('list_members', 'list_members.contact_id', 'contacts.id')
    .where('contacts.account_id', '=', accountId)
    .where('list_members.list_id', 'in', listIds)
    .where('list_members.status', '=', 'SUBSCRIBED')
    .where('contacts.status', '=', 'SUBSCRIBED')
    .orderBy('contacts.id')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Issue 28 M3: these contacts no longer wait for a double opt-in confirmation: the person
 * confirmed, or a subscription the account vouches for (D20's API add, an import, a workflow's
 * step, the person's own single opt-in sign-up, an explicit PUT to SUBSCRIBED) made them members.
 */
export async function clearAwaitingConfirmation(db: Db, contactIds: number[]): Promise<void> {
  for (let i = 0; i < contactIds.length; i += 500) {
    await db.updateTable('contacts').set({ awaiting_confirmation: 0 }).where('id', 'in', contactIds.slice(i, i + 500)).where('awaiting_confirmation', '=', 1).execute();
  }
}

/** D17.5 and D17.6: `applyStatusChange` for many contacts of an account at once, by e-mail. */
export async function applyStatusChangeByEmails(db: Db, accountId: number, emails: string[], change: StatusChange, now: string): Promise<void> {
  const { to, from } = statusChange(change);
  for (let i = 0; i < emails.length; i += 500) {
    await db
      .updateTable('contacts')
      .set({ status: to, updated_at: now })
      .where('account_id', '=', accountId)
      .where('email', 'in', emails.slice(i, i + 500))
      .where('status', 'in', [...from])
      .where('status', '!=', to)
      .execute();
  }
}

/** What an automation step reads of its contact: the merge contact, and what conditions test. */
export function findContactForStep(db: Db, contactId: number) {
  return selectMergeContact(db).select(['contacts.tags', 'contacts.lead_score', 'contacts.status', 'contacts.awaiting_confirmation']).where('contacts.id', '=', contactId).executeTakeFirst();
}

export async function setContactTags(db: Db, contactId: number, tags: string, now: string): Promise<void> {
  await db.updateTable('contacts').set({ tags, updated_at: now }).where('id', '=', contactId).execute();
}

/** UPDATE_LEAD_SCORE: added in SQL, so concurrent steps never lose one another's change. */
export async function addToLeadScore(db: Db, contactId: number, delta: number, now: string): Promise<void> {
  await db
    .updateTable('contacts')
    .set((eb) => ({ lead_score: eb('lead_score', '+', delta), updated_at: now }))
    .where('id', '=', contactId)
    .execute();
}

/** The merge fields of many contacts (the sender renders a batch at once), 500 ids a query. */
export async function findMergeFields(db: Db, contactIds: number[]) {
  const rows = [];
  for (let i = 0; i < contactIds.length; i += 500) rows.push(...(await selectMergeContact(db).where('contacts.id', 'in', contactIds.slice(i, i + 500)).execute()));
  return rows;
}

/**
 * The id of the account's contact with `email`, created when there is none (D14: an event for an
 * unknown e-mail creates it), SUBSCRIBED and waiting for consent (issue 30 item 6: nobody agreed
 * to mail; a subscription the account vouches for, or the person's own, clears the wait). Insert-or-nothing, then a read, so two callers at once
 * create it once; `created` says whether this call made it.
 */
export async function findOrCreateContact(db: Db, accountId: number, email: string, now: string): Promise<{ id: number; created: boolean }> {
  const find = () => db.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
  const existing = await find();
  if (existing) return { id: existing.id, created: false };
  const created = await db
    .insertInto('contacts')
    // Issue 30 item 6: waiting for consent (contact-status.ts `mailable`), as after a double opt-in not yet confirmed.
    .values({ account_id: accountId, email, first_name: null, last_name: null, phone: null, tags: '[]', custom_fields: '{}', status: 'SUBSCRIBED', awaiting_confirmation: 1, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'email']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return created ? { id: created.id, created: true } : { id: (await find())!.id, created: false };
}

/** D18: how many of the account's contacts a segment's compiled filter holds. */
export async function countContactsMatching(db: Db, accountId: number, matching: RawBuilder<boolean>, read: ReadRows = readHere): Promise<number> {
  const [row] = await read(db.selectFrom('contacts').select(sql<number>`count(*)`.as('n')).where('contacts.account_id', '=', accountId).where(matching));
  return Number(row!.n);
}

/** The account's newest `sample` contacts, as a subquery: what a bounded look at the fields in use reads. */
const newestContacts = (accountId: number, sample: number) =>
  sql`(select id, custom_fields, tags from contacts where account_id = ${accountId} order by created_at desc, id desc limit ${sample})`;

/**
 * D26.7: the custom-field keys the account's newest `sample` contacts hold: the custom fields in
 * use, read in one bounded query however large the account is (as fieldSample).
 */
export async function customFieldKeysInUse(db: Db, dialect: Dialect, accountId: number, sample: number): Promise<Set<string>> {
  const newest = newestContacts(accountId, sample);
  const keys =
    dialect === 'postgres'
      ? await sql<{ key: string }>`select distinct k.key from ${newest} c, jsonb_object_keys(c.custom_fields) as k(key)`.execute(db)
      : await sql<{ key: string }>`select distinct j.key as key from ${newest} c, json_each(c.custom_fields) j`.execute(db);
  return new Set(keys.rows.map((r) => r.key));
}

/**
 * What the segment builder offers (D18 dashboard): the custom-field keys with the JSON types their
 * values have, and the tags, among the account's newest `sample` contacts, so it stays one bounded
 * read however large the account is.
 */
export async function fieldSample(db: Db, dialect: Dialect, accountId: number, sample: number) {
  const newest = newestContacts(accountId, sample);
  const [custom, tags] =
    dialect === 'postgres'
      ? await Promise.all([
          sql<{ key: string; type: string }>`select distinct k.key, jsonb_typeof(k.value) as type from ${newest} c, jsonb_each(c.custom_fields) as k(key, value) order by 1, 2`.execute(db),
          sql<{ tag: string }>`select distinct t.tag from ${newest} c, jsonb_array_elements_text(c.tags) as t(tag) order by 1 limit 1000`.execute(db),
        ])
      : await Promise.all([
          sql<{ key: string; type: string }>`select distinct j.key as key, j.type as type from ${newest} c, json_each(c.custom_fields) j order by 1, 2`.execute(db),
          sql<{ tag: string }>`select distinct t.value as tag from ${newest} c, json_each(c.tags) t order by 1 limit 1000`.execute(db),
        ]);
  return { custom: custom.rows, tags: tags.rows.map((r) => r.tag) };
}

/** Who a contact id names, or undefined: what a link naming a contact (D20's `/c/{token}`) needs first. */
export function findContactIdentity(db: Db, id: number) {
  return db.selectFrom('contacts').select(['id', 'account_id', 'email', 'status']).where('id', '=', id).executeTakeFirst();
}

/** The e-mails of those of `ids` that are contacts of the account, by id (500 ids a query). */
export async function findContactEmails(db: Db, accountId: number, ids: readonly number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('contacts').select(['id', 'email']).where('account_id', '=', accountId).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) found.set(r.id, r.email);
  }
  return found;
}
