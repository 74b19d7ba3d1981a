import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { MediaTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

export function insertMedia(db: Db, values: Insertable<MediaTable>) {
  return db.insertInto('media').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findMedia(db: Db, accountId: number, id: number) {
  return db.selectFrom('media').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** The public `/media/{file_name}` lookup: the unguessable name alone finds the file. */
export function findMediaByFileName(db: Db, fileName: string) {
  return db.selectFrom('media').select(['file_name', 'content_type', 'size']).where('file_name', '=', fileName).executeTakeFirst();
}

export async function deleteMedia(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('media').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The bytes the account's library holds, for its storage cap. */
export async function accountMediaBytes(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('media').select(sql<number | string>`coalesce(sum(size), 0)`.as('bytes')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.bytes);
}

/** D6: newest first, as campaigns: the image just uploaded is the one an editor looks for. */
export function pageMedia(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('media').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('id', 'desc'), base, page);
}
