import { sql, type SelectQueryBuilder } from 'kysely';
import { offsetOf, type PageRequest } from '../domain/shared/paging.ts';

/**
 * D6's one paging query (issue 15: it was written in every repo): the page of `rows` (selected
 * and ordered by the caller) and the count of `base` (the same FROM and WHERE, nothing selected).
 * Use: `pageQuery(base.selectAll().orderBy('id', 'desc'), base, page)`, then `toPage()` in the service.
 */
export async function pageQuery<O>(
  rows: SelectQueryBuilder<any, any, O>,
  base: SelectQueryBuilder<any, any, any>,
  page: PageRequest,
): Promise<{ rows: O[]; total: number }> {
  const [found, total] = await Promise.all([
    rows.limit(page.size).offset(offsetOf(page)).execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow() as Promise<{ n: number | string }>,
  ]);
  return { rows: found, total: Number(total.n) };
}
