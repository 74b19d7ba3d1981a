import type { Db, Dialect } from '../../db/connect.ts';
import { sql, type Insertable } from 'kysely';
import type { SessionsTable, SignupRequestsTable } from '../../db/schema.ts';

export function insertUser(db: Db, values: { account_id: number; email: string; password_hash: string; created_at: string }) {
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
      'users.id as user_id',
      'users.email',
      'users.role',
      'users.totp_enabled_at',
      'users.created_at as user_created_at',
      'accounts.id as account_id',
      'accounts.name as account_name',
      'accounts.plan',
      'accounts.slug as account_slug',
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

/** D24.2: a member's `last_sign_in_at`. */
export async function setLastSignIn(db: Db, userId: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: at }).where('id', '=', userId).execute();
}
