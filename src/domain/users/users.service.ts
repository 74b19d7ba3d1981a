import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import { USER_AGENT_MAX } from '../audit/audit-entry.ts';
import type { Db, DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { createAccount, firstAccountId, getAccount } from '../accounts/accounts.service.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { checkNewPassword, hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { alreadyRegisteredMail, confirmationMail, type AccountMailer } from './sign-up-mail.ts';
import { newCsrfToken, newSessionToken, SESSION_TTL_MS, sessionIdOf } from './session-token.ts';
import { isRole, type Role } from './roles.ts';
import * as repo from './users.repo.ts';
import { openTotpChallenge, recordOwnAudit } from './sign-in-audit.ts';
import { emailKey, normaliseEmail } from '../shared/email-address.ts';

export interface User {
  id: number;
  account_id: number;
  email: string;
  /** D24.1 */
  role: Role;
  created_at: string;
}

/** What a signed-in request knows; `csrf_token` must come back in X-CSRF-Token on writes. */
export interface Session {
  id: string;
  /** D24.5: the id GET /api/v1/auth/sessions shows (not the cookie's token nor its hash) */
  public_id: string;
  user: User;
  /** `slug`: D22, names the account's public archive (`/archive/{slug}`) */
  account: { id: number; name: string; plan: string; slug: string; time_zone: string };
  csrf_token: string;
  expires_at: string;
  /** D24.6: whether the user signs in with a second factor (the Security page shows it) */
  two_factor: boolean;
}

/** A new session: the token goes in the cookie and nowhere else. */
export interface OpenedSession {
  token: string;
  session: Session;
}

/**
 * What a sign-in with a password came to. D24.6: a user with two-factor gets a challenge (no
 * session yet), to be answered with a code at POST /api/v1/auth/login/totp.
 */
export type SignInOutcome = { kind: 'signed-in'; opened: OpenedSession } | { kind: 'two-factor'; challenge: string } | { kind: 'failed' };

/** D24.5: a session's last_seen_at is written at most this often. */
export const LAST_SEEN_EVERY_MS = 60_000;

const userExists = () => new ConflictError('USER_ALREADY_EXISTS', 'a user with this e-mail already exists; sign in instead');

function toUser(row: { id: number; account_id: number; email: string; role: string; created_at: string | Date }): User {
  // A role the code does not know (a hand-edited row) is read as the least one, never as more.
  return { id: Number(row.id), account_id: Number(row.account_id), email: row.email, role: isRole(row.role) ? row.role : 'viewer', created_at: toApiTimestamp(row.created_at) };
}

/** How long a sign-up's confirmation link works. */
export const SIGNUP_CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What a sign-up came to: the first on an empty instance is signed in at once; any other is told
 * to check its mail, in the same words whether or not the address already has an account.
 */
export type SignUpOutcome = { kind: 'signed-in'; opened: OpenedSession } | { kind: 'confirmation-sent'; email: string };

/** What sign-up needs to mail people: the mailer, and the dashboard's address for the links. */
export interface SignUpMail {
  mailer: AccountMailer;
  publicUrl: string;
}

/** D17.7: sign-up after the first account while ALLOW_SIGNUP is off. */
/** D24.1: the role `sendwell users create --role` gives a later user when left out: the least one. */
export const CLI_DEFAULT_ROLE: Role = 'viewer';

export const signUpClosed = () =>
  new ForbiddenError('SIGNUP_CLOSED', 'sign-up is closed on this instance; ask its operator for an account (sendwell users create), or to set ALLOW_SIGNUP=true');

export class UserService {
  /** `mail` may be left out where nobody signs up (the CLI). */
  constructor(
    private readonly handle: DbHandle,
    private readonly mail: SignUpMail | null = null,
    /** D17.7: whether anyone may ask for an account once the first exists (ALLOW_SIGNUP) */
    private readonly allowSignup = false,
  ) {}

  /** D17.7: whether a sign-up would be taken now: always on an empty instance, else only with ALLOW_SIGNUP. */
  async signUpOpen(): Promise<boolean> {
    return this.allowSignup || (await this.isEmptyInstance());
  }

  /**
   * No account yet: the next sign-up is the operator's. An account made with the CLI (README's
   * "First calls") counts, so an instance used only through the API is not left open to the first
   * stranger who finds its dashboard; its operator adds users with `sendwell users create`.
   */
  async isEmptyInstance(): Promise<boolean> {
    return (await firstAccountId(this.handle.db)) === null;
  }

  /**
   * Sign-up, issue 14 L5. It revealed which addresses had accounts (409) and never checked the
   * address was the person's. D17.7: the first sign-up on an empty instance is the operator's,
   * signed in at once (the dashboard's first run works without SMTP). Any later one is only a
   * request: a link valid for 24 hours is mailed to the address, and the account (Free plan) and
   * its user are made when it is followed (`confirmSignUp`). An address that has an account gets
   * a mail saying so instead; the answer is the same either way, and both cost a password hash
   * and one mail. Later sign-ups are taken only with ALLOW_SIGNUP; without it they are 403
   * SIGNUP_CLOSED, so a public instance does not lend its mail server to strangers.
   */
  async signUp(acting: ActingContext, input: { email: string; password: string; account_name?: string | null }): Promise<SignUpOutcome> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const accountName = input.account_name?.trim() || null;
    const now = Date.now();
    const decided = await this.handle.db.transaction().execute(async (trx) => {
      // Two first sign-ups at once must not both find the instance empty (PostgreSQL reads committed data only).
      await repo.lockSignUps(trx, this.handle.dialect);
      const operatorAccountId = await firstAccountId(trx);
      if (operatorAccountId === null) {
        const account = await createAccount(trx, { name: accountName ?? email, plan: 'free' });
        return { kind: 'first' as const, user: await this.insertUser(trx, account.id, email, passwordHash) };
      }
      if (!this.allowSignup) throw signUpClosed();
      const existing = await repo.findUserByEmail(trx, email);
      if (existing) return { kind: 'registered' as const, accountId: Number(existing.account_id) };
      await repo.deleteExpiredSignupRequests(trx, new Date(now).toISOString());
      // Random, stored only as its SHA-256, like a session's token.
      const token = newSessionToken();
      await repo.insertSignupRequest(trx, {
        id: sessionIdOf(token),
        email,
        password_hash: passwordHash,
        account_name: accountName,
        expires_at: new Date(now + SIGNUP_CONFIRMATION_TTL_MS).toISOString(),
        created_at: new Date(now).toISOString(),
      });
      // Without SMTP the mail lands in a dev inbox, which belongs to an account: the operator's
      // (the first), as the one person who can read captured mail before the new account exists.
      return { kind: 'requested' as const, token, operatorAccountId };
    });
    if (decided.kind === 'first') return { kind: 'signed-in', opened: await this.openSession(acting, decided.user) };
    const { mailer, publicUrl } = this.requireMail();
    if (decided.kind === 'registered') {
      await mailer.send(decided.accountId, email, alreadyRegisteredMail(`${publicUrl}/signin`));
    } else {
      // The token travels in the fragment, which browsers never send: it stays out of access logs and Referer.
      await mailer.send(decided.operatorAccountId, email, confirmationMail(`${publicUrl}/signup/confirm#${decided.token}`, SIGNUP_CONFIRMATION_TTL_MS / 3_600_000));
    }
    return { kind: 'confirmation-sent', email };
  }

  /**
   * Follows a sign-up's confirmation link: creates its account and user and signs in. null when
   * the link is unknown or has expired; 409 USER_ALREADY_EXISTS when the address got an account
   * since (through another of its links, or the CLI).
   */
  async confirmSignUp(acting: ActingContext, token: string): Promise<OpenedSession | null> {
    const user = await this.handle.db.transaction().execute(async (trx) => {
      const request = await repo.findLiveSignupRequest(trx, sessionIdOf(token), nowIso());
      if (!request) return null;
      if (await repo.findUserByEmail(trx, request.email)) throw userExists();
      await repo.deleteSignupRequestsFor(trx, request.email);
      const account = await createAccount(trx, { name: request.account_name ?? request.email, plan: 'free' });
      return this.insertUser(trx, account.id, request.email, request.password_hash);
    });
    return user ? this.openSession(acting, user) : null;
  }

  private requireMail(): SignUpMail {
    if (!this.mail) throw new Error('this UserService was made without a mailer, so it cannot take sign-ups');
    return this.mail;
  }

  /**
   * For self-hosters (`sendwell users create`): a user in an existing account. D24.1: the
   * account's first user is its owner (another `role` for it is refused: an account keeps an
   * owner); a later one gets `role`, by default CLI_DEFAULT_ROLE. Recorded as the system's.
   */
  async create(acting: ActingContext, accountId: number, input: { email: string; password: string; role?: Role }): Promise<User> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    return this.handle.db.transaction().execute(async (trx) => {
      await getAccount(trx, accountId);
      // Two first users at once must not both be made without an owner among them, nor both think they are first.
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      if (await repo.findUserByEmail(trx, email)) throw userExists();
      const first = (await repo.listUsersOf(trx, accountId)).length === 0;
      if (first && input.role !== undefined && input.role !== 'owner') throw new ValidationError(`role: the first user of an account is its owner (D24.1); leave --role out or give owner`);
      const user = await this.insertUser(trx, accountId, email, passwordHash, first ? 'owner' : (input.role ?? CLI_DEFAULT_ROLE));
      await recordAudit(trx, acting, accountId, 'member.joined', { type: 'user', id: user.id });
      return user;
    });
  }

  /** D17.7 (`sendwell users list --account ID`): 404 for an account that does not exist. */
  async listOf(accountId: number): Promise<User[]> {
    await getAccount(this.handle.db, accountId);
    return (await repo.listUsersOf(this.handle.db, accountId)).map(toUser);
  }

  /**
   * D17.7 (`sendwell users reset-password --email E`): the operator sets a new password. Every
   * session of the user ends with it, so whoever used the old password is signed out too.
   */
  async resetPassword(input: { email: string; password: string }): Promise<User> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    return this.handle.db.transaction().execute(async (trx) => {
      const row = await repo.findUserByEmail(trx, email);
      if (!row) throw new NotFoundError('NOT_FOUND', `no dashboard user has the e-mail ${email}`);
      await repo.updatePasswordHash(trx, Number(row.id), passwordHash);
      await repo.deleteSessionsOf(trx, Number(row.id));
      return toUser(row);
    });
  }

  /**
   * `failed` when the e-mail or the password is wrong (the caller must not say which). D24.8: a
   * wrong password of a user is recorded (auth.sign_in_failed), a sign-in too (auth.signed_in, in
   * openSession); D24.6: a right password of a user with two-factor only opens a challenge.
   */
  async logIn(acting: ActingContext, input: { email: string; password: string }): Promise<SignInOutcome> {
    const email = emailKey(input.email);
    const row = await repo.findUserByEmail(this.handle.db, email);
    const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDecoy(input.password);
    if (!row) return { kind: 'failed' };
    const user = toUser(row);
    if (!ok) {
      await recordOwnAudit(this.handle.db, acting, user, 'auth.sign_in_failed');
      return { kind: 'failed' };
    }
    if (row.totp_enabled_at !== null) return { kind: 'two-factor', challenge: await openTotpChallenge(this.handle.db, user.id) };
    await repo.deleteExpiredSessions(this.handle.db, nowIso());
    return { kind: 'signed-in', opened: await this.openSession(acting, user) };
  }

  /**
   * D24.7: signs in the user with this address, which an OpenID provider has verified: no password
   * and no TOTP asked. null when no user has it. The session, `last_sign_in_at` and the audit entry
   * commit together.
   */
  async signInWithVerifiedEmail(acting: ActingContext, email: string): Promise<OpenedSession | null> {
    const row = await repo.findUserByEmail(this.handle.db, emailKey(email));
    if (!row) return null;
    const user = toUser(row);
    await repo.deleteExpiredSessions(this.handle.db, nowIso());
    return this.openSession(acting, user);
  }

  async sessionFor(token: string): Promise<Session | null> {
    const now = Date.now();
    const row = await repo.findLiveSession(this.handle.db, sessionIdOf(token), new Date(now).toISOString());
    if (!row) return null;
    // D24.5: kept fresh for the sessions list, with one write a minute at most per session.
    if (row.last_seen_at === null || new Date(row.last_seen_at).getTime() < now - LAST_SEEN_EVERY_MS) {
      await repo.touchSession(this.handle.db, row.session_id, new Date(now).toISOString(), new Date(now - LAST_SEEN_EVERY_MS).toISOString());
    }
    return {
      id: row.session_id,
      public_id: row.public_id,
      user: toUser({ id: row.user_id, account_id: row.account_id, email: row.email, role: row.role, created_at: row.user_created_at }),
      account: { id: Number(row.account_id), name: row.account_name, plan: row.plan, slug: row.account_slug, time_zone: row.account_time_zone },
      csrf_token: row.csrf_token,
      expires_at: toApiTimestamp(row.expires_at),
      two_factor: row.totp_enabled_at !== null,
    };
  }

  async endSession(sessionId: string): Promise<void> {
    await repo.deleteSession(this.handle.db, sessionId);
  }

  /** A new user of the account (D24.1: `role`, the first user's being owner); 409 USER_ALREADY_EXISTS for a taken address. */
  async insertUser(trx: Parameters<typeof repo.insertUser>[0], accountId: number, email: string, passwordHash: string, role: Role = 'owner'): Promise<User> {
    try {
      return toUser(await repo.insertUser(trx, { account_id: accountId, email, password_hash: passwordHash, role, created_at: nowIso() }));
    } catch (err) {
      // Two sign-ups with one e-mail at once: the unique index decides.
      if (isUniqueViolation(err)) throw userExists();
      throw err;
    }
  }

  /**
   * Signs the user in: a new session, users.last_sign_in_at and the audit entry (auth.signed_in,
   * D24.8) in one transaction. Also for D24.6's second step, once the code is accepted,
   * and for an accepted invitation (D24.3).
   */
  async openSession(acting: ActingContext, user: User): Promise<OpenedSession> {
    const token = newSessionToken();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
    const csrf = newCsrfToken();
    await this.handle.db.transaction().execute(async (trx) => {
      await repo.insertSession(trx, {
        id: sessionIdOf(token),
        user_id: user.id,
        account_id: user.account_id,
        csrf_token: csrf,
        expires_at: expiresAt,
        created_at: now.toISOString(),
        // D24.5: the id the API shows, random rather than derived from the cookie's token.
        public_id: randomBytes(12).toString('base64url'),
        ip: acting.ip,
        user_agent: acting.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
        last_seen_at: now.toISOString(),
      });
      await repo.setLastSignIn(trx, user.id, now.toISOString());
      await recordOwnAudit(trx, acting, user, 'auth.signed_in');
    });
    const session = await this.sessionFor(token);
    if (!session) throw new Error('a session just opened could not be read back');
    return { token, session };
  }

  /** D24.6: the user a two-factor sign-in is about, by id. */
  async userById(userId: number): Promise<User | null> {
    const row = await repo.findUserById(this.handle.db, userId);
    return row ? toUser(row) : null;
  }
}
