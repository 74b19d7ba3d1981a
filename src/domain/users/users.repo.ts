import type { Db, Dialect } from '../../db/connect.ts';
import { sql, type Insertable } from 'kysely';
import type { SessionsTable, SignupRequestsTable } from '../../db/schema.ts';

export function insertUser(db: Db, values: { account_id: number; email: string; password_hash: string; role?: string; created_at: string; last_sign_in_at?: string }) {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/**
 * Serialises sign-ups until the transaction ends, so only one can be the instance's first (D17.7).
 * SQLite needs nothing: its write transactions already run one at a time.
 */
export async function lockSignUps(db: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('sendwell.signup'))`.execute(db);
}

export async function insertSignupRequest(db: Db, values: Insertable<SignupRequestsTable>): Promise<void> {
  await db.insertInto('signup_requests').values(values).execute();
}

/** The sign-up a confirmation link stands for, if it has not expired. */
export function findLiveSignupRequest(db: Db, id: string, now: string) {
  return db.selectFrom('signup_requests').selectAll().where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
}

/** Every sign-up waiting for `email`: one confirmed settles them all. */
export async function deleteSignupRequestsFor(db: Db, email: string): Promise<void> {
  await db.deleteFrom('signup_requests').where('email', '=', email).execute();
}

export async function deleteExpiredSignupRequests(db: Db, now: string): Promise<void> {
  await db.deleteFrom('signup_requests').where('expires_at', '<=', now).execute();
}

export function insertSession(db: Db, values: Insertable<SessionsTable>) {
  return db.insertInto('sessions').values(values).execute();
}

/** The session with its user and account, if it has not expired. */
export function findLiveSession(db: Db, id: string, now: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select([
      'sessions.id as session_id',
      'sessions.csrf_token',
      'sessions.expires_at',
      'sessions.public_id',
      'sessions.last_seen_at',
      'users.id as user_id',
      'users.email',
      'users.role',
      'users.totp_enabled_at',
      'users.created_at as user_created_at',
      'accounts.id as account_id',
      'accounts.name as account_name',
      'accounts.plan',
      'accounts.slug as account_slug',
      'accounts.time_zone as account_time_zone',
    ])
    .where('sessions.id', '=', id)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

/** An account's dashboard users, oldest first. */
export function listUsersOf(db: Db, accountId: number) {
  return db.selectFrom('users').select(['id', 'account_id', 'email', 'role', 'created_at']).where('account_id', '=', accountId).orderBy('id').execute();
}

export function updatePasswordHash(db: Db, userId: number, passwordHash: string) {
  return db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).executeTakeFirst();
}

/** Signs a user out everywhere: after a password reset, whoever knew the old one keeps no session. */
export async function deleteSessionsOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export function findUserById(db: Db, userId: number) {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/** D24.8's members list shows it: set on every sign-in. */
export async function setLastSignIn(db: Db, userId: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: at }).where('id', '=', userId).execute();
}

/** D24.5: a session's last_seen_at, written only when it is older than `staleBefore` (at most once a minute). */
export async function touchSession(db: Db, id: string, now: string, staleBefore: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', staleBefore)]))
    .execute();
}

/** D24.6: a new secret from setup; two-factor stays off until enabled with a code of it. */
export async function setTotpSecret(db: Db, userId: number, secret: string): Promise<void> {
  await db.updateTable('users').set({ totp_secret: secret, totp_enabled_at: null, totp_last_step: null }).where('id', '=', userId).where('totp_enabled_at', 'is', null).execute();
}

export async function enableTotp(db: Db, userId: number, at: string): Promise<void> {
  await db.updateTable('users').set({ totp_enabled_at: at }).where('id', '=', userId).execute();
}

export async function disableTotp(db: Db, userId: number): Promise<void> {
  await db.updateTable('users').set({ totp_secret: null, totp_enabled_at: null, totp_last_step: null }).where('id', '=', userId).execute();
}

/**
 * D24.6: marks `step` as the last one whose code was accepted, only if it is later than the one
 * before: of two requests with one code, or a code and an earlier one, only the first wins.
 */
export async function acceptTotpStep(db: Db, userId: number, step: number): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
