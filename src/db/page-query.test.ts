import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageQuery } from './page-query.ts';

interface Items {
  items: { id: number; tag: string };
}

describe("D6's one paging query", () => {
  const db = new Kysely<Items>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
  const base = () => db.selectFrom('items').where('tag', '=', 'a');

  beforeAll(async () => {
    await db.schema.createTable('items').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('tag', 'text', (c) => c.notNull()).execute();
    // Five rows tagged 'a' (ids 1-5) and two tagged 'b', so the count must follow the filter.
    await db.insertInto('items').values([1, 2, 3, 4, 5].map((id) => ({ id, tag: 'a' }))).execute();
    await db.insertInto('items').values([6, 7].map((id) => ({ id, tag: 'b' }))).execute();
  });
  afterAll(() => db.destroy());

  it('returns the requested page in the given order and counts every matching row', async () => {
    const first = await pageQuery(base().selectAll().orderBy('id', 'desc'), base(), { page: 0, size: 2 });
    expect(first).toEqual({ rows: [{ id: 5, tag: 'a' }, { id: 4, tag: 'a' }], total: 5 });
    const last = await pageQuery(base().select('id').orderBy('id', 'desc'), base(), { page: 2, size: 2 });
    expect(last).toEqual({ rows: [{ id: 1 }], total: 5 });
  });

  it('answers an empty page past the end with the total still counted', async () => {
    expect(await pageQuery(base().selectAll().orderBy('id'), base(), { page: 9, size: 20 })).toEqual({ rows: [], total: 5 });
  });

  it('counts as a number even when nothing matches', async () => {
    const none = db.selectFrom('items').where('tag', '=', 'z');
    expect(await pageQuery(none.selectAll(), none, { page: 0, size: 20 })).toEqual({ rows: [], total: 0 });
  });
});
