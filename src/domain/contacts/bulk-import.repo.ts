import { CompiledQuery } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { ContactRow, NewContact } from '../../db/schema.ts';

/**
 * The bulk import's two statements, written as SQL text with positional parameters. Building
 * them with the query builder cost about as much CPU as SQLite took to run them (1000 rows x 10
 * values per batch); these are plain string joins, the same on every batch of a given size (so
 * SQLite's prepared statement is reused, see db/connect.ts).
 */
const placeholders = (dialect: Dialect, rows: number, columns: number): string => {
  const groups: string[] = [];
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const one: string[] = [];
    for (let c = 0; c < columns; c++) one.push(dialect === 'postgres' ? `$${++n}` : '?');
    groups.push(`(${one.join(', ')})`);
  }
  return groups.join(', ');
};

export type ExistingContact = Pick<ContactRow, 'id' | 'email' | 'first_name' | 'last_name' | 'phone' | 'tags' | 'custom_fields'>;

export async function findContactsByEmails(db: Db, dialect: Dialect, accountId: number, emails: string[]): Promise<ExistingContact[]> {
  if (emails.length === 0) return [];
  const list = dialect === 'postgres' ? emails.map((_, i) => `$${i + 2}`).join(', ') : emails.map(() => '?').join(', ');
  const first = dialect === 'postgres' ? '$1' : '?';
  const query = CompiledQuery.raw(
    `select id, email, first_name, last_name, phone, tags, custom_fields from contacts where account_id = ${first} and email in (${list})`,
    [accountId, ...emails],
  );
  return (await db.executeQuery<ExistingContact>(query)).rows;
}

const COLUMNS = ['account_id', 'email', 'first_name', 'last_name', 'phone', 'tags', 'custom_fields', 'status', 'created_at', 'updated_at'] as const;

/** A contact row as the bulk import writes it: every column given. */
export type BulkContactRow = Required<Pick<NewContact, (typeof COLUMNS)[number]>>;
const UPDATED = ['first_name', 'last_name', 'phone', 'tags', 'custom_fields', 'updated_at'] as const;

/**
 * One multi-row INSERT for the batch: new contacts are created; an e-mail that exists is left
 * alone (`skip`) or given the row's fields (`update`). Returns the rows written (inserted or updated).
 */
export async function upsertContacts(db: Db, dialect: Dialect, rows: BulkContactRow[], onExisting: 'skip' | 'update') {
  if (rows.length === 0) return [];
  const params: unknown[] = [];
  for (const row of rows) for (const c of COLUMNS) params.push(row[c]);
  const conflict = onExisting === 'skip' ? 'do nothing' : `do update set ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  const query = CompiledQuery.raw(
    `insert into contacts (${COLUMNS.join(', ')}) values ${placeholders(dialect, rows.length, COLUMNS.length)} on conflict (account_id, email) ${conflict} returning id, email, tags`,
    params,
  );
  return (await db.executeQuery<{ id: number; email: string; tags: string }>(query)).rows;
}
