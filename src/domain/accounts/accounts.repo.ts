import type { Db } from '../../db/connect.ts';

export function insertAccount(db: Db, values: { name: string; plan: string; created_at: string }) {
  return db.insertInto('accounts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findAccount(db: Db, id: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}
