import { sql, type Insertable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { PasswordResetsTable, TotpChallengesTable } from '../../db/schema.ts';

/** D24.4-D24.6: password resets, two-factor challenges and recovery codes, and a user's own sessions. */

// ----- password resets (D24.4)

/**
 * Holds the user's row until the transaction ends, so concurrent reset requests for one address
 * count each other's links (the 3-an-hour cap). SQLite's write transactions take turns already.
 */
export async function lockUserRow(db: Db, dialect: Dialect, userId: number): Promise<void> {
  if (dialect === 'postgres') await sql`select id from users where id = ${userId} for update`.execute(db);
}

export async function countResetsSince(db: Db, userId: number, since: string): Promise<number> {
  const row = await db.selectFrom('password_resets').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).where('created_at', '>', since).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPasswordReset(db: Db, values: Insertable<PasswordResetsTable>): Promise<void> {
  await db.insertInto('password_resets').values(values).execute();
}

/** Uses a reset link: its user when it was live and unused, else undefined. Only one of two racing uses gets it. */
/** Whether a reset link's token is live (unused, unexpired): checked before any password is hashed. */
export async function isLivePasswordReset(db: Db, tokenHash: string, now: string): Promise<boolean> {
  const row = await db.selectFrom('password_resets').select('user_id').where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}

export async function takePasswordReset(db: Db, tokenHash: string, now: string): Promise<number | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row ? Number(row.user_id) : undefined;
}

/** After a reset, the user's other links stop working too. */
export async function usePasswordResetsOf(db: Db, userId: number, now: string): Promise<void> {
  await db.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Links older than a day are neither live nor counted: gone. */
export async function deletePasswordResetsBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('password_resets').where('created_at', '<', before).execute();
}

// ----- two-factor challenges and recovery codes (D24.6)

export async function insertTotpChallenge(db: Db, values: Insertable<TotpChallengesTable>): Promise<void> {
  await db.insertInto('totp_challenges').values(values).execute();
}

export async function deleteExpiredTotpChallenges(db: Db, now: string): Promise<void> {
  await db.deleteFrom('totp_challenges').where('expires_at', '<=', now).execute();
}

/** A live challenge's user, with what checking a code needs. */
export function findLiveChallenge(db: Db, tokenHash: string, now: string) {
  return db
    .selectFrom('totp_challenges')
    .innerJoin('users', 'users.id', 'totp_challenges.user_id')
    .select(['users.id', 'users.account_id', 'users.email', 'users.totp_secret', 'users.totp_enabled_at'])
    .where('totp_challenges.token_hash', '=', tokenHash)
    .where('totp_challenges.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteChallenge(db: Db, tokenHash: string): Promise<boolean> {
  const res = await db.deleteFrom('totp_challenges').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function deleteChallengesOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('totp_challenges').where('user_id', '=', userId).execute();
}

export async function replaceRecoveryCodes(db: Db, userId: number, hashes: string[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length) await db.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null }))).execute();
}

/** Uses a recovery code: true once, for a code of the user's that was never used. */
export async function takeRecoveryCode(db: Db, userId: number, codeHash: string, now: string): Promise<boolean> {
  const res = await db.updateTable('recovery_codes').set({ used_at: now }).where('user_id', '=', userId).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

// ----- a user's own sessions (D24.5)

export function pageSessionsOf(db: Db, userId: number, now: string, page: { page: number; size: number }) {
  const live = db.selectFrom('sessions').where('user_id', '=', userId).where('expires_at', '>', now);
  return Promise.all([
    live
      .select(['id', 'public_id', 'created_at', 'last_seen_at', 'ip', 'user_agent'])
      .orderBy('created_at', 'desc')
      .orderBy('public_id')
      .limit(page.size)
      .offset(page.page * page.size)
      .execute(),
    live.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
}

/** Ends one of the user's sessions by its public id: false when the user has none by that id. */
export async function deleteSessionOf(db: Db, userId: number, publicId: string): Promise<boolean> {
  const res = await db.deleteFrom('sessions').where('user_id', '=', userId).where('public_id', '=', publicId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Every session of the user but `keepId` (the one asking). */
export async function deleteOtherSessionsOf(db: Db, userId: number, keepId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepId).execute();
}
