import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './connect.ts';

/** A LIKE pattern matching `term` anywhere, with LIKE's wildcards in the term taken literally. */
export function containsPattern(term: string): RawBuilder<string> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  return sql<string>`${'%' + escaped + '%'} escape '\\'`;
}

/** Whether a JSON array of strings held in a TEXT column has an element equal (case-insensitively) to one of `values`. */
export function jsonArrayHasAny(dialect: Dialect, column: string, values: string[]): RawBuilder<boolean> {
  const lowered = values.map((v) => v.toLowerCase());
  const list = sql.join(lowered.map((v) => sql`${v}`));
  return dialect === 'postgres'
    ? sql<boolean>`exists (select 1 from json_array_elements_text(${sql.ref(column)}::json) as t(v) where lower(t.v) in (${list}))`
    : sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) as t where lower(t.value) in (${list}))`;
}

/** A LIKE pattern for a prefix or a suffix match of `term` (lower-cased), wildcards in it taken literally. */
export function affixPattern(term: string, where: 'prefix' | 'suffix'): RawBuilder<string> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  return sql<string>`${where === 'prefix' ? escaped + '%' : '%' + escaped} escape '\\'`;
}
