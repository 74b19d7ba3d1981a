import { sql, type SelectQueryBuilder } from 'kysely';
import { readHere, type ReadRows } from './read-pool.ts';

/**
 * D6's one paging query (issue 15: it was written in every repo): the page of `rows` (selected
 * and ordered by the caller) and the count of `base` (the same FROM and WHERE, nothing selected).
 * Use: `pageQuery(base.selectAll().orderBy('id', 'desc'), base, page)`, then `toPage()` in the service.
 * `read`: where both run, the read pool for a filter a tenant shapes (issue 28 C2).
 * `page` is D6's page request (domain/shared/paging.ts) by shape: the floor names no domain module.
 */
export async function pageQuery<O>(
  rows: SelectQueryBuilder<any, any, O>,
  base: SelectQueryBuilder<any, any, any>,
  page: { page: number; size: number },
  read: ReadRows = readHere,
): Promise<{ rows: O[]; total: number }> {
  const [found, [total]] = await Promise.all([
    read(rows.limit(page.size).offset(page.page * page.size)) as Promise<O[]>,
    read(base.select(sql<number | string>`count(*)`.as('n'))) as Promise<{ n: number | string }[]>,
  ]);
  return { rows: found, total: Number(total!.n) };
}
