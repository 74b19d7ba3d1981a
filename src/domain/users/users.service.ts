import type { DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { findAccount } from '../accounts/accounts.repo.ts';
import { normaliseEmail } from '../contacts/contact-fields.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { checkNewPassword, hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { newCsrfToken, newSessionToken, SESSION_TTL_MS, sessionIdOf } from './session-token.ts';
import * as repo from './users.repo.ts';

export interface User {
  id: number;
  account_id: number;
  email: string;
  created_at: string;
}

/** What a signed-in request knows; `csrf_token` must come back in X-CSRF-Token on writes. */
export interface Session {
  id: string;
  user: User;
  account: { id: number; name: string; plan: string };
  csrf_token: string;
  expires_at: string;
}

/** A new session: the token goes in the cookie and nowhere else. */
export interface OpenedSession {
  token: string;
  session: Session;
}

const userExists = () => new ConflictError('USER_ALREADY_EXISTS', 'a user with this e-mail already exists; sign in instead');

function toUser(row: { id: number; account_id: number; email: string; created_at: string | Date }): User {
  return { id: Number(row.id), account_id: Number(row.account_id), email: row.email, created_at: toApiTimestamp(row.created_at) };
}

export class UserService {
  constructor(private readonly handle: DbHandle) {}

  /** Sign-up: a new account on the Free plan with its first user, signed in. */
  async signUp(input: { email: string; password: string; account_name?: string | null }): Promise<OpenedSession> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const user = await this.handle.db.transaction().execute(async (trx) => {
      if (await repo.findUserByEmail(trx, email)) throw userExists();
      const account = await createAccount(trx, { name: input.account_name?.trim() || email, plan: 'free' });
      return this.insertUser(trx, account.id, email, passwordHash);
    });
    return this.openSession(user);
  }

  /** For self-hosters (`sendwell users create`): a user in an existing account. */
  async create(accountId: number, input: { email: string; password: string }): Promise<User> {
    const email = normaliseEmail(input.email);
    checkNewPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    return this.handle.db.transaction().execute(async (trx) => {
      if (!(await findAccount(trx, accountId))) throw new NotFoundError('NOT_FOUND', `account ${accountId} does not exist`);
      if (await repo.findUserByEmail(trx, email)) throw userExists();
      return this.insertUser(trx, accountId, email, passwordHash);
    });
  }

  /** null when the e-mail or the password is wrong (the caller must not say which). */
  async logIn(input: { email: string; password: string }): Promise<OpenedSession | null> {
    const email = input.email.trim().toLowerCase();
    const row = await repo.findUserByEmail(this.handle.db, email);
    const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDecoy(input.password);
    if (!row || !ok) return null;
    await repo.deleteExpiredSessions(this.handle.db, nowIso());
    return this.openSession(toUser(row));
  }

  async sessionFor(token: string): Promise<Session | null> {
    const row = await repo.findLiveSession(this.handle.db, sessionIdOf(token), nowIso());
    if (!row) return null;
    return {
      id: row.session_id,
      user: toUser({ id: row.user_id, account_id: row.account_id, email: row.email, created_at: row.user_created_at }),
      account: { id: Number(row.account_id), name: row.account_name, plan: row.plan },
      csrf_token: row.csrf_token,
      expires_at: toApiTimestamp(row.expires_at),
    };
  }

  async endSession(sessionId: string): Promise<void> {
    await repo.deleteSession(this.handle.db, sessionId);
  }

  private async insertUser(trx: Parameters<typeof repo.insertUser>[0], accountId: number, email: string, passwordHash: string): Promise<User> {
    try {
      return toUser(await repo.insertUser(trx, { account_id: accountId, email, password_hash: passwordHash, created_at: nowIso() }));
    } catch (err) {
      // Two sign-ups with one e-mail at once: the unique index decides.
      if (isUniqueViolation(err)) throw userExists();
      throw err;
    }
  }

  private async openSession(user: User): Promise<OpenedSession> {
    const token = newSessionToken();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
    const csrf = newCsrfToken();
    await repo.insertSession(this.handle.db, {
      id: sessionIdOf(token),
      user_id: user.id,
      account_id: user.account_id,
      csrf_token: csrf,
      expires_at: expiresAt,
      created_at: now.toISOString(),
    });
    const session = await this.sessionFor(token);
    if (!session) throw new Error('a session just opened could not be read back');
    return { token, session };
  }
}
