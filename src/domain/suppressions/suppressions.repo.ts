import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { SuppressionsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { containsPattern } from '../../db/sql-helpers.ts';
import type { PageRequest } from '../shared/paging.ts';
import { domainSuppressionValue, erasureValue, type SuppressionSource } from './suppression.ts';
import { emailKey } from '../shared/email-address.ts';

/** Adds a value unless the account has it already; returns the row, new or existing, and which. */
export async function addSuppression(db: Db, values: Insertable<SuppressionsTable>) {
  const inserted = await db.insertInto('suppressions').values(values).onConflict((oc) => oc.columns(['account_id', 'value']).doNothing()).executeTakeFirst();
  const row = await db.selectFrom('suppressions').selectAll().where('account_id', '=', values.account_id).where('value', '=', values.value).executeTakeFirstOrThrow();
  return { row, created: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 };
}

/**
 * D19: the address a recipient row was sent to goes on its account's list (a hard bounce, a
 * complaint). One statement, in the caller's transaction; a value already there is kept as it was.
 */
export async function suppressRecipientAddress(db: Db, recipientId: number, source: SuppressionSource, reason: string | null, now: string): Promise<void> {
  await db
    .insertInto('suppressions')
    .columns(['account_id', 'value', 'reason', 'source', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('campaign_recipients as r')
        .innerJoin('campaigns as c', 'c.id', 'r.campaign_id')
        .select([
          'c.account_id',
          sql<string>`lower(r.email)`.as('value'),
          eb.val(reason?.slice(0, 1000) ?? null).as('reason'),
          eb.val(source).as('source'),
          eb.val(now).as('created_at'),
        ])
        .where('r.id', '=', recipientId),
    )
    .onConflict((oc) => oc.columns(['account_id', 'value']).doNothing())
    .execute();
}

/** Adds many values at once (one statement); values the account has already are kept as they were. */
export async function addSuppressions(db: Db, rows: Insertable<SuppressionsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('suppressions').values(rows).onConflict((oc) => oc.columns(['account_id', 'value']).doNothing()).execute();
}

/** D21: which of the values (erasureValue) the account keeps as ERASURE entries: one query. */
// One address, the case of every contact's create: built once (db/prepared.ts, issue 35).
const erasureEntry = preparedQuery(2, (db, _dialect, accountId: number, value: string) =>
  db.selectFrom('suppressions').select('value').where('account_id', '=', accountId).where('source', '=', 'ERASURE').where('value', '=', value),
);

export async function erasureEntriesAmong(db: Db, accountId: number, values: string[]): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  if (values.length === 1) return new Set((await erasureEntry(db, accountId, values[0])).map((r) => r.value));
  const rows = await db.selectFrom('suppressions').select('value').where('account_id', '=', accountId).where('source', '=', 'ERASURE').where('value', 'in', values).execute();
  return new Set(rows.map((r) => r.value));
}

/** D21: the account's entries for this exact address (any source): an erasure keeps only the address's hash. */
export async function deleteAddressSuppressions(db: Db, accountId: number, email: string): Promise<void> {
  await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('value', '=', email).execute();
}

/**
 * D21: an address's ERASURE entries, kept as the lower-cased address or as `sha256:` and the hex
 * SHA-256 of it (an erasure keeps no address), removed when the person confirms a subscription (D20).
 */
export async function deleteErasureSuppressions(db: Db, accountId: number, email: string): Promise<void> {
  const address = emailKey(email);
  await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('source', '=', 'ERASURE').where('value', 'in', [address, erasureValue(address)]).execute();
}

/**
 * D19 and D21: whether a double opt-in confirmation to the address is stopped: the address or its
 * domain is on the account's list. An ERASURE entry stops it too, except when `erasureLetsThrough`:
 * a form's confirmation is the one mail that lets an erased person come back; an API add, an
 * import or an automation mails an erased address nothing, not even a confirmation.
 */
export async function confirmationSuppressed(db: Db, accountId: number, email: string, erasureLetsThrough: boolean): Promise<boolean> {
  const address = emailKey(email);
  const row = await db
    .selectFrom('suppressions')
    .select('id')
    .where('account_id', '=', accountId)
    .where((eb) =>
      erasureLetsThrough
        ? eb.and([eb('value', 'in', [address, domainSuppressionValue(address)]), eb('source', '!=', 'ERASURE')])
        : eb('value', 'in', [address, domainSuppressionValue(address), erasureValue(address)]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function findSuppression(db: Db, accountId: number, id: number) {
  return db.selectFrom('suppressions').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function deleteSuppression(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** D6: newest first; `search` matches anywhere in the value. */
export function pageSuppressions(db: Db, accountId: number, search: string | undefined, page: PageRequest) {
  let base = db.selectFrom('suppressions').where('account_id', '=', accountId);
  if (search) base = base.where('value', 'like', containsPattern(search));
  return pageQuery(base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), base, page);
}

/** Every entry of the account in id order, a page at a time (CSV export). */
export function suppressionsAfter(db: Db, accountId: number, afterId: number, limit: number) {
  return db.selectFrom('suppressions').selectAll().where('account_id', '=', accountId).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

/** Which of the addresses the account suppresses, by address or by domain. */
export async function suppressedAmong(db: Db, accountId: number, emails: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < emails.length; i += 400) {
    const chunk = emails.slice(i, i + 400).map(emailKey);
    const values = [...new Set([...chunk, ...chunk.map(domainSuppressionValue)])];
    const rows = await db.selectFrom('suppressions').select('value').where('account_id', '=', accountId).where('value', 'in', values).execute();
    const hit = new Set(rows.map((r) => r.value));
    for (const email of chunk) if (hit.has(email) || hit.has(domainSuppressionValue(email))) found.add(email);
  }
  return found;
}

/**
 * D19 as SQL over `contacts`: the contact's address, or its domain, is on the account's list. The
 * account's entries are read once (`in (subquery)`, not per contact). The domain is the text from
 * the last `@` on (a quoted local part may hold one): SQLite's rtrim with the address's own other
 * characters strips back to it; PostgreSQL takes it by a regular expression. Values are never
 * NULL, so `not` of this is exact.
 */
export function contactSuppressed(dialect: Dialect, accountId: number): RawBuilder<boolean> {
  const domain =
    dialect === 'postgres'
      ? sql`substring(contacts.email from '@[^@]*$')`
      : sql`substr(contacts.email, length(rtrim(contacts.email, replace(contacts.email, '@', ''))))`;
  const values = sql`(select s.value from suppressions s where s.account_id = ${accountId})`;
  return sql<boolean>`(contacts.email in ${values} or ${domain} in ${values})`;
}

/** D25.1: the entry that suppresses an address (its own, its erasure's, then its domain's), if any. */
export async function findSuppressionOf(db: Db, accountId: number, email: string) {
  const key = emailKey(email);
  const rows = await db
    .selectFrom('suppressions')
    .select(['value', 'source', 'reason'])
    .where('account_id', '=', accountId)
    .where('value', 'in', [key, erasureValue(key), domainSuppressionValue(key)])
    .execute();
  return rows.find((r) => r.value === key) ?? rows.find((r) => r.source === 'ERASURE') ?? rows[0];
}
