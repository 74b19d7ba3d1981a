import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { InvitationsTable } from '../../db/schema.ts';

/**
 * D24.2 and D24.3: the SQL of an account's members (its users) and of the invitations table. The
 * rule that an account keeps an owner is in the writes' WHERE, and the writers hold the account's
 * row (accounts.repo.ts `lockAccount`) on PostgreSQL, so concurrent demotions cannot both pass.
 */

const MEMBER_COLUMNS = ['id', 'account_id', 'email', 'role', 'totp_enabled_at', 'last_sign_in_at', 'created_at'] as const;

export function pageMembers(db: Db, accountId: number, page: { page: number; size: number }) {
  const base = db.selectFrom('users').where('account_id', '=', accountId);
  return pageQuery(base.select([...MEMBER_COLUMNS]).orderBy('id'), base, page);
}

export function findMember(db: Db, accountId: number, userId: number) {
  return db.selectFrom('users').select([...MEMBER_COLUMNS]).where('account_id', '=', accountId).where('id', '=', userId).executeTakeFirst();
}

/** Another owner of the account than `userId`: the condition for demoting or removing an owner. */
const anotherOwner = (db: Db, accountId: number, userId: number) =>
  db.selectFrom('users as o').select('o.id').where('o.account_id', '=', accountId).where('o.role', '=', 'owner').where('o.id', '!=', userId);

/**
 * Sets a member's role; an owner becomes something else only while the account has another owner.
 * Returns whether the row changed (false: not found, or the last owner).
 */
export async function updateRoleKeepingAnOwner(db: Db, accountId: number, userId: number, role: string): Promise<boolean> {
  let update = db.updateTable('users').set({ role }).where('id', '=', userId).where('account_id', '=', accountId);
  if (role !== 'owner') update = update.where((eb) => eb.or([eb('role', '!=', 'owner'), eb.exists(anotherOwner(db, accountId, userId))]));
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes a member (its sessions, resets and codes go by cascade), never the account's last owner. */
export async function deleteMemberKeepingAnOwner(db: Db, accountId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('users')
    .where('id', '=', userId)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('role', '!=', 'owner'), eb.exists(anotherOwner(db, accountId, userId))]))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function insertInvitation(db: Db, values: Insertable<InvitationsTable>) {
  return db.insertInto('invitations').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A pending invitation of the account, expired or not (the dashboard offers to resend an expired one). */
export function findPendingInvitation(db: Db, accountId: number, id: number) {
  return db.selectFrom('invitations').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
}

export function findPendingInvitationFor(db: Db, accountId: number, email: string) {
  return db.selectFrom('invitations').select('id').where('account_id', '=', accountId).where('email', '=', email).where('status', '=', 'PENDING').executeTakeFirst();
}

export function pagePendingInvitations(db: Db, accountId: number, page: { page: number; size: number }) {
  const base = db.selectFrom('invitations').where('account_id', '=', accountId).where('status', '=', 'PENDING');
  return pageQuery(base.selectAll().orderBy('id'), base, page);
}

/** A resend: a new token and a new expiry; the old link stops working with the old hash. */
export async function renewInvitation(db: Db, id: number, tokenHash: string, expiresAt: string): Promise<boolean> {
  const result = await db.updateTable('invitations').set({ token_hash: tokenHash, expires_at: expiresAt }).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeInvitation(db: Db, id: number): Promise<boolean> {
  const result = await db.updateTable('invitations').set({ status: 'REVOKED' }).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The live invitation a link's token stands for: pending and not expired. */
export function findLiveInvitationByToken(db: Db, tokenHash: string, now: string) {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).where('status', '=', 'PENDING').where('expires_at', '>', now).executeTakeFirst();
}

/** For single sign-on (D24.7): the newest live invitation of a verified address, in any account. */
export function findLiveInvitationByEmail(db: Db, email: string, now: string) {
  return db.selectFrom('invitations').selectAll().where('email', '=', email).where('status', '=', 'PENDING').where('expires_at', '>', now).orderBy('id', 'desc').executeTakeFirst();
}

/** Ends an invitation as accepted, once: false when another request used it first. */
export async function markInvitationAccepted(db: Db, id: number): Promise<boolean> {
  const result = await db.updateTable('invitations').set({ status: 'ACCEPTED' }).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
