import type { Db } from '../../db/connect.ts';

export function insertAccount(db: Db, values: { name: string; plan: string; created_at: string }) {
  return db.insertInto('accounts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findAccount(db: Db, id: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every account, oldest first (the operator's CLI; an instance holds few enough to list at once). */
export function listAccounts(db: Db) {
  return db.selectFrom('accounts').selectAll().orderBy('id').execute();
}

export function updateAccountPlan(db: Db, id: number, plan: string) {
  return db.updateTable('accounts').set({ plan }).where('id', '=', id).returningAll().executeTakeFirst();
}
