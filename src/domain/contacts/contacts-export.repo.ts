import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { ReadRows } from '../../db/read-pool.ts';
import { filteredContacts, type ContactFilter } from './contacts.repo.ts';

/**
 * D17.6 export, and issue 34's from the dashboard: the contacts a filter keeps, read in bounded
 * steps by id (keyset), each step one query a read pool can run within its budget, so no step's
 * cost grows with the account (issue 28 rule 1).
 */

/**
 * The custom-field keys held by the filter's contacts with ids after `afterId`, at most `chunk` of
 * them: the keys, and the last id the step covered (null when it reached the end). The first query
 * finds where the chunk ends, the second reads the keys up to it.
 */
export async function customFieldKeysStep(db: Db, dialect: Dialect, accountId: number, f: ContactFilter, afterId: number, chunk: number, read: ReadRows): Promise<{ keys: string[]; last: number | null }> {
  const after = () => filteredContacts(db, dialect, accountId, f).where('contacts.id', '>', afterId);
  const [end] = await read(after().select('contacts.id').orderBy('contacts.id').limit(1).offset(chunk - 1));
  const upTo = end === undefined ? after() : after().where('contacts.id', '<=', end.id);
  const keys =
    dialect === 'postgres'
      ? upTo.select(sql<string>`jsonb_object_keys(contacts.custom_fields)`.as('key')).distinct()
      : upTo
          .innerJoin(sql<{ key: string }>`json_each(contacts.custom_fields)`.as('j'), (join) => join.onTrue())
          .select(sql<string>`j.key`.as('key'))
          .distinct();
  const rows = await read(keys);
  return { keys: rows.map((r) => r.key), last: end === undefined ? null : Number(end.id) };
}

/**
 * One page of export: the contact with its SUBSCRIBED lists' names joined by U+001F (a character
 * no list name holds), so a page is one query however many lists there are.
 */
export function exportPage(db: Db, dialect: Dialect, accountId: number, f: ContactFilter, afterId: number, limit: number, read: ReadRows) {
  const names = dialect === 'postgres' ? sql<string | null>`string_agg(lists.name, chr(31))` : sql<string | null>`group_concat(lists.name, char(31))`;
  return read(
    filteredContacts(db, dialect, accountId, f)
      .select((eb) => [
        'contacts.id',
        'contacts.email',
        'contacts.first_name',
        'contacts.last_name',
        'contacts.phone',
        'contacts.status',
        'contacts.tags',
        'contacts.custom_fields',
        eb
          .selectFrom('list_members')
          .innerJoin('lists', 'lists.id', 'list_members.list_id')
          .select(names.as('names'))
          .whereRef('list_members.contact_id', '=', 'contacts.id')
          .where('list_members.status', '=', 'SUBSCRIBED')
          .as('list_names'),
      ])
      .where('contacts.id', '>', afterId)
      .orderBy('contacts.id')
      .limit(limit),
  );
}
