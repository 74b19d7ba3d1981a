import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect.ts';

/**
 * Keyset paging over several sources merged newest first (issue 34's contact timeline): the
 * order is (time desc, rank desc, id desc), where `rank` tells the sources apart. A position is
 * the last row a page showed; the next page is everything after it in that order.
 */
export interface KeysetPosition {
  /** the row's time as the database returned it: SQLite's stored text, PostgreSQL's as ISO 8601 */
  at: string;
  rank: number;
  id: number;
}

/** One source's slice of a page: its rank, where the page starts (null: the newest) and how many rows at most. */
export interface KeysetSlice {
  dialect: Dialect;
  rank: number;
  after: KeysetPosition | null;
  limit: number;
}

/**
 * The WHERE term that keeps a source's rows (time `timeRef`, id `idRef`) after `slice.after`.
 * The rank is fixed within a source, so the term is a plain range on (time, id), which the
 * source's (contact, time, id) index seeks to: a deep page reads no more rows than the first.
 */
export function keysetAfter(slice: KeysetSlice, timeRef: string, idRef: string): RawBuilder<SqlBool> {
  const { after, rank, dialect } = slice;
  if (after === null) return sql<SqlBool>`1 = 1`;
  const at = dialect === 'postgres' ? sql`cast(${after.at} as timestamptz)` : sql`${after.at}`;
  const time = sql.ref(timeRef);
  // Same time: a lower rank comes after, a higher one before; same rank: the lower id after.
  if (rank < after.rank) return sql<SqlBool>`${time} <= ${at}`;
  if (rank > after.rank) return sql<SqlBool>`${time} < ${at}`;
  return sql<SqlBool>`(${time}, ${sql.ref(idRef)}) < (${at}, ${after.id})`;
}

/** A source's row as the merge reads it: each source selects these columns, in this order. */
export interface KeysetRow {
  rank: number;
  at: string | Date;
  id: number;
  ref_id: number | null;
  ref_name: string | null;
  detail: string | null;
}

/** Typed NULL / literal columns for a source that has no such value (PostgreSQL types a bare NULL in a UNION by its first branch). */
export const noRefId = () => sql<number | null>`cast(null as integer)`;
export const noText = () => sql<string | null>`cast(null as text)`;
export const rankOf = (rank: number) => sql<number>`cast(${sql.lit(rank)} as integer)`;

/**
 * The newest `limit` rows of the sources merged: one query, a UNION ALL of the sources, each inside
 * a subquery of its own so its ORDER BY and LIMIT hold within the union, ordered (at, rank, id)
 * descending as keysetAfter pages it. The sources are their areas' repos' queries; this touches
 * no table of its own.
 */
export function newestOfSources(db: Kysely<any>, sources: SelectQueryBuilder<any, any, any>[], limit: number) {
  const branches = sources.map((source) => db.selectFrom(source.$castTo<KeysetRow>().as('source')).selectAll());
  const merged = branches.slice(1).reduce((all, branch) => all.unionAll(branch), branches[0]!);
  return db.selectFrom(merged.as('timeline')).selectAll().orderBy('at', 'desc').orderBy('rank', 'desc').orderBy('id', 'desc').limit(limit).$castTo<KeysetRow>();
}
