import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { InvitationsTable } from '../../db/schema.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { emailKey, normaliseEmail } from '../shared/email-address.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { INVITATION_TTL_MS, type Invitation } from './invitation.ts';
import { invitationMail } from './invitation-mail.ts';
import { beyondReach, reachNow, roleOf, type MemberCaller } from './members.service.ts';
import { checkNewPassword, hashPassword } from './passwords.ts';
import { mayChangeRole, type Role } from './roles.ts';
import { newSessionToken, sessionIdOf } from './session-token.ts';
import type { OpenedSession, SignUpMail, UserService } from './users.service.ts';
import { findUserByEmail } from './users.repo.ts';
import * as repo from './members.repo.ts';

type InvitationRow = Selectable<InvitationsTable>;

const invitationNotFound = () => new NotFoundError('INVITATION_NOT_FOUND', 'no pending invitation of this account has this id');
export const invalidToken = () => new ValidationError('this invitation link is unknown, used, revoked or expired; ask for a new invitation', 'INVALID_TOKEN');
const userExists = () => new ConflictError('USER_ALREADY_EXISTS', 'a user with this e-mail already exists; it cannot be invited or join again');

function toInvitation(row: InvitationRow): Invitation {
  return {
    id: Number(row.id),
    email: row.email,
    role: roleOf(row.role),
    invited_by: row.invited_by === null ? null : Number(row.invited_by),
    expires_at: toApiTimestamp(row.expires_at),
    created_at: toApiTimestamp(row.created_at),
  };
}

/** A new link: the token goes in the mail only, the row keeps its SHA-256. */
function newLink(now: number) {
  const token = newSessionToken();
  return { token, tokenHash: sessionIdOf(token), expiresAt: new Date(now + INVITATION_TTL_MS).toISOString() };
}

/**
 * D24.3: invitations to join an account. Made, listed, resent and revoked within the caller's
 * reach (an admin neither invites an owner nor resends or revokes an owner's invitation); the link
 * `{PUBLIC_URL}/invite/{token}` works 7 days and once. Accepting makes the user with the
 * invitation's address and role and signs it in. The mail goes once the change is committed,
 * through the account mailer (MAIL_FROM); a mail that cannot go fails the request (500), the
 * invitation staying pending for a resend.
 */
export class InvitationService {
  constructor(
    private readonly handle: DbHandle,
    private readonly users: UserService,
    private readonly mail: SignUpMail,
  ) {}

  async invite(acting: ActingContext, accountId: number, caller: MemberCaller, input: { email: string; role: Role }): Promise<Invitation> {
    const email = normaliseEmail(input.email);
    const link = newLink(Date.now());
    const { row, accountName } = await this.handle.db.transaction().execute(async (trx) => {
      // Two invitations of one address at once: the second finds the first.
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      if (!mayChangeRole(await reachNow(trx, accountId, caller), null, input.role)) throw beyondReach(`inviting an ${input.role}`);
      const account = await getAccount(trx, accountId);
      // users.email is unique across the instance: a user of any account cannot join another.
      if (await findUserByEmail(trx, email)) throw userExists();
      if (await repo.findPendingInvitationFor(trx, accountId, email)) {
        throw new ConflictError('INVITATION_EXISTS', 'this address already has a pending invitation; resend or revoke it');
      }
      const created = await repo.insertInvitation(trx, {
        account_id: accountId,
        email,
        role: input.role,
        token_hash: link.tokenHash,
        invited_by: caller.userId,
        expires_at: link.expiresAt,
        created_at: nowIso(),
        status: 'PENDING',
      });
      await recordAudit(trx, acting, accountId, 'member.invited', { type: 'invitation', id: Number(created.id) });
      return { row: created, accountName: account.name };
    });
    await this.send(acting, accountId, accountName, row.email, link.token);
    return toInvitation(row);
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pagePendingInvitations(this.handle.db, accountId, page);
    return toPage('invitations', rows.map(toInvitation), total, page);
  }

  async revoke(acting: ActingContext, accountId: number, caller: MemberCaller, id: number): Promise<Invitation> {
    return this.handle.db.transaction().execute(async (trx) => {
      const row = await this.pendingWithinReach(trx, accountId, caller, id, 'revoking');
      if (!(await repo.revokeInvitation(trx, row.id))) throw invitationNotFound();
      await recordAudit(trx, acting, accountId, 'member.invitation_revoked', { type: 'invitation', id });
      return toInvitation(row);
    });
  }

  /** A new link valid 7 days from now; the old link stops working. */
  async resend(acting: ActingContext, accountId: number, caller: MemberCaller, id: number): Promise<Invitation> {
    const link = newLink(Date.now());
    const { row, accountName } = await this.handle.db.transaction().execute(async (trx) => {
      const found = await this.pendingWithinReach(trx, accountId, caller, id, 'resending');
      if (!(await repo.renewInvitation(trx, found.id, link.tokenHash, link.expiresAt))) throw invitationNotFound();
      await recordAudit(trx, acting, accountId, 'member.invitation_resent', { type: 'invitation', id });
      return { row: { ...found, expires_at: link.expiresAt }, accountName: (await getAccount(trx, accountId)).name };
    });
    await this.send(acting, accountId, accountName, row.email, link.token);
    return toInvitation(row);
  }

  /**
   * Follows a link (public): makes the user, ends the invitation and signs in. 400 INVALID_TOKEN
   * for a token that is unknown, used, revoked or expired; 400 naming `password` for a bad one.
   */
  async accept(acting: ActingContext, input: { token: string; password: string }): Promise<OpenedSession> {
    checkNewPassword(input.password);
    // A forged token costs a look-up, not a password hash (which an anonymous caller could
    // otherwise make the server compute at will); the transaction below takes the invitation once.
    if (!(await repo.findLiveInvitationByToken(this.handle.db, sessionIdOf(input.token), nowIso()))) throw invalidToken();
    const passwordHash = await hashPassword(input.password);
    const opened = await this.join(acting, (trx) => repo.findLiveInvitationByToken(trx, sessionIdOf(input.token), nowIso()), passwordHash);
    if (!opened) throw invalidToken();
    return opened;
  }

  /**
   * For single sign-on (D24.7): accepts the newest live invitation of an address its identity
   * provider has verified, with no password: the user gets the hash of a random secret nobody
   * holds, so only SSO (or a password reset) signs it in. null when the address has none, or is
   * a user already (whom SSO signs in as such).
   */
  async acceptPendingFor(acting: ActingContext, verifiedEmail: string): Promise<OpenedSession | null> {
    const email = emailKey(verifiedEmail);
    if (await findUserByEmail(this.handle.db, email)) return null;
    const unusable = await hashPassword(randomBytes(32).toString('base64url'));
    return this.join(acting, (trx) => repo.findLiveInvitationByEmail(trx, email, nowIso()), unusable);
  }

  /** One transaction: the invitation ends once (a second use finds it gone), the user is made, the join recorded as the new user's. */
  private async join(acting: ActingContext, find: (trx: Db) => Promise<InvitationRow | undefined>, passwordHash: string): Promise<OpenedSession | null> {
    const user = await this.handle.db.transaction().execute(async (trx) => {
      const invitation = await find(trx);
      if (!invitation || !(await repo.markInvitationAccepted(trx, invitation.id))) return null;
      const accountId = Number(invitation.account_id);
      const joined = await this.users.insertUser(trx, accountId, invitation.email, passwordHash, roleOf(invitation.role));
      await recordAudit(trx, acting, accountId, 'member.joined', { type: 'user', id: joined.id }, { type: 'user', id: String(joined.id), label: joined.email });
      return joined;
    });
    return user ? this.users.openSession(acting, user) : null;
  }

  private async pendingWithinReach(trx: Db, accountId: number, caller: MemberCaller, id: number, doing: string): Promise<InvitationRow> {
    if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
    const row = await repo.findPendingInvitation(trx, accountId, id);
    if (!row) throw invitationNotFound();
    if (!mayChangeRole(await reachNow(trx, accountId, caller), null, roleOf(row.role))) throw beyondReach(`${doing} an invitation of an ${row.role}`);
    return row;
  }

  private async send(acting: ActingContext, accountId: number, accountName: string, to: string, token: string): Promise<void> {
    const actor = acting.actor;
    const mail = invitationMail({
      link: `${this.mail.publicUrl}/invite/${token}`,
      accountName,
      invitedBy: actor?.type === 'user' ? actor.label : null,
      validDays: INVITATION_TTL_MS / 86_400_000,
    });
    await this.mail.mailer.send(accountId, to, mail);
  }
}
