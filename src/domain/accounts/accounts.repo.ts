import type { Db } from '../../db/connect.ts';

export function insertAccount(db: Db, values: { name: string; plan: string; slug: string; created_at: string }) {
  return db.insertInto('accounts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findAccount(db: Db, id: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The instance's first account (D17.7: the operator's, whether made by the first sign-up or by
 * `sendwell accounts create`), or undefined on an empty instance. The primary key answers it.
 */
export function findFirstAccount(db: Db) {
  return db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
}

/** Every account, oldest first (the operator's CLI; an instance holds few enough to list at once). */
export function listAccounts(db: Db) {
  return db.selectFrom('accounts').selectAll().orderBy('id').execute();
}

/** Issue 34: the account's settings a member may change (today its time zone). */
export function updateAccountSettings(db: Db, id: number, changes: { time_zone?: string }) {
  return db.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export function updateAccountPlan(db: Db, id: number, plan: string) {
  return db.updateTable('accounts').set({ plan }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** D22: the slugs taken among `base` and `base-…`, the ones uniqueSlug may collide with. */
export async function slugsStartingWith(db: Db, base: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('accounts')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return new Set(rows.map((r) => r.slug));
}

/** D22: the account whose public archive is at `/archive/{slug}`. */
export function findAccountBySlug(db: Db, slug: string) {
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/**
 * PostgreSQL: locks the account row until the transaction ends, so a per-account budget counted
 * and then spent in the transaction (media bytes, sending domains, API keys; issue 28) is counted by
 * concurrent requests one after another. SQLite transactions already run one at a time.
 */
export async function lockAccount(db: Db, accountId: number): Promise<void> {
  await db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}
