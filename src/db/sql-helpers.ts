import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.ts';

/** A LIKE pattern matching `term` anywhere, with LIKE's wildcards in the term taken literally. */
export function containsPattern(term: string): RawBuilder<string> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  return sql<string>`${'%' + escaped + '%'} escape '\\'`;
}

/** The name under which every SQLite connection has a Unicode-aware lower() (registerSqliteFunctions). */
export const SQLITE_UNICODE_LOWER = 'sendwell_lower';

/**
 * The functions the SQL built here may call, on every SQLite connection: the server's and the
 * read processes' (issue 28 C2, read-worker.ts) alike. SQLite's lower() folds A-Z only;
 * comparisons of text beyond ASCII fold case the way the rest of the app does, in JavaScript.
 */
export function registerSqliteFunctions(sqlite: { function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown }): void {
  sqlite.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
}

/**
 * `expr` lower-cased, for comparing with `terms` the caller lower-cased in JavaScript. PostgreSQL's
 * lower() folds every letter. SQLite's folds A-Z only, so "MÜLLER" would never equal "müller":
 * when a term holds a character beyond ASCII, SQLite compares through the connection's
 * JavaScript function instead (a call per row, paid only by such terms; an ASCII term cannot
 * equal or be found in text whose other letters differ only in case).
 */
export function lowerFor(dialect: Dialect, expr: Expression<unknown> | RawBuilder<unknown>, terms: readonly string[]): RawBuilder<string> {
  const beyondAscii = dialect === 'sqlite' && terms.some((t) => /[^\u0000-\u007f]/.test(t));
  return beyondAscii ? sql<string>`${sql.raw(SQLITE_UNICODE_LOWER)}(${expr})` : sql<string>`lower(${expr})`;
}

/**
 * Whether a contact's tags (a JSON array of strings) hold one of `values`, ignoring case (D11).
 * PostgreSQL: the lower-cased `jsonb` document has one of them as an element, the expression
 * `contacts_tag_keys_idx` indexes (migration 0013), so the test reads its contacts from the index
 * and the planner has statistics for it. SQLite: the text document's elements, read in place.
 */
export function jsonArrayHasAny(dialect: Dialect, column: string, values: string[]): RawBuilder<boolean> {
  const lowered = [...new Set(values.map((v) => v.toLowerCase()))];
  if (dialect === 'postgres') return sql<boolean>`(lower(${sql.ref(column)}::text)::jsonb ?| ${lowered}::text[])`;
  return sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) as t where ${lowerFor(dialect, sql`t.value`, lowered)} in (${sql.join(lowered.map((v) => sql`${v}`))}))`;
}

/** A LIKE pattern for a prefix or a suffix match of `term` (lower-cased), wildcards in it taken literally. */
export function affixPattern(term: string, where: 'prefix' | 'suffix'): RawBuilder<string> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  return sql<string>`${where === 'prefix' ? escaped + '%' : '%' + escaped} escape '\\'`;
}
