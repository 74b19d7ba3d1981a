import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { keysetAfter, rankOf, type KeysetSlice } from '../../db/keyset.ts';
import type { ConsentsTable } from '../../db/schema.ts';

/** D20: one consent record, in the caller's transaction. */
export async function insertConsent(db: Db, values: Insertable<ConsentsTable>): Promise<void> {
  await db.insertInto('consents').values(values).execute();
}

/** D20: many at once (a bulk import's), one statement per 500 rows. */
export async function insertConsents(db: Db, rows: Insertable<ConsentsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('consents').values(rows.slice(i, i + 500)).execute();
}

/** D20: a contact's consent records, oldest first: by id, the order they were given (consents_contact_idx). */
export function consentsOfContact(db: Db, accountId: number, contactId: number) {
  return db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('contact_id', '=', contactId).orderBy('id').execute();
}

/** Issue 34: the contact's consent records (sign-ups) for its timeline, newest first, at most `slice.limit`, with the form's name (index (contact_id, created_at, id), migration 0033). */
export function consentTimeline(db: Db, contactId: number, slice: KeysetSlice) {
  return db
    .selectFrom('consents')
    .leftJoin('forms', 'forms.id', 'consents.form_id')
    .select([rankOf(slice.rank).as('rank'), 'consents.created_at as at', 'consents.id as id', 'forms.id as ref_id', 'forms.name as ref_name', 'consents.source as detail'])
    .where('consents.contact_id', '=', contactId)
    .where(keysetAfter(slice, 'consents.created_at', 'consents.id'))
    .orderBy('consents.created_at', 'desc')
    .orderBy('consents.id', 'desc')
    .limit(slice.limit);
}

/**
 * Issue 34: the forms whose sign-ups of the contact named any of `listIds`, newest first: what a
 * confirmation of those lists goes back to (the form's page to send the person to).
 */
export async function formsOfConsents(db: Db, accountId: number, contactId: number): Promise<{ form_id: number; list_ids: string }[]> {
  const rows = await db
    .selectFrom('consents')
    .select(['form_id', 'list_ids'])
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where('source', '=', 'FORM')
    .where('form_id', 'is not', null)
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
  return rows.map((r) => ({ form_id: Number(r.form_id), list_ids: r.list_ids }));
}
