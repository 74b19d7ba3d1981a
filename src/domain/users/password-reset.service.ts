import type { ActingContext } from '../shared/actor.ts';
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/connect.ts';
import { emailKey } from '../shared/email-address.ts';
import { ValidationError } from '../shared/errors.ts';
import { checkNewPassword, hashPassword } from './passwords.ts';
import { passwordResetMail } from './security-mail.ts';
import { newSessionToken, sessionIdOf } from './session-token.ts';
import { recordOwnAudit } from './sign-in-audit.ts';
import type { SignUpMail } from './users.service.ts';
import * as security from './security.repo.ts';
import * as repo from './users.repo.ts';

/** D24.4: how long a reset link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** D24.4: reset mails an address gets per hour at most; a request past it mails nothing. */
export const PASSWORD_RESETS_PER_HOUR = 3;

const invalidToken = () => new ValidationError('this reset link is unknown, was used already or has expired; ask for a new one', 'INVALID_TOKEN');

/**
 * D24.4: "forgot password". A request answers the same whatever the address: a user gets a link
 * valid one hour and usable once (its token random, kept as SHA-256), at most three an hour (the
 * links made in the last hour are counted, under a lock on the user's row); the mail goes after
 * the answer, so its time does not tell the address is a user's. Setting the password with the
 * link ends every session of the user and signs nobody in.
 */
export class PasswordResetService {
  constructor(
    private readonly handle: DbHandle,
    private readonly mail: SignUpMail,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the request is decided; `mailed` resolves once its mail (if any) is handed over. */
  async request(rawEmail: string, now = Date.now()): Promise<{ mailed: Promise<void> }> {
    // Made for every address, so a user's request and a stranger's cost the same.
    const token = newSessionToken();
    const tokenHash = sessionIdOf(token);
    const user = await repo.findUserByEmail(this.handle.db, emailKey(rawEmail));
    if (!user) return { mailed: Promise.resolve() };
    const userId = Number(user.id);
    const granted = await this.handle.db.transaction().execute(async (trx) => {
      await security.lockUserRow(trx, this.handle.dialect, userId);
      await security.deletePasswordResetsBefore(trx, new Date(now - 24 * PASSWORD_RESET_TTL_MS).toISOString());
      if ((await security.countResetsSince(trx, userId, new Date(now - 60 * 60 * 1000).toISOString())) >= PASSWORD_RESETS_PER_HOUR) return false;
      await security.insertPasswordReset(trx, {
        token_hash: tokenHash,
        user_id: userId,
        expires_at: new Date(now + PASSWORD_RESET_TTL_MS).toISOString(),
        used_at: null,
        created_at: new Date(now).toISOString(),
      });
      return true;
    });
    if (!granted) return { mailed: Promise.resolve() };
    const link = `${this.mail.publicUrl}/reset/${token}`;
    const mailed = this.mail.mailer.send(Number(user.account_id), user.email, passwordResetMail(link, PASSWORD_RESET_TTL_MS / 60_000)).catch((err: unknown) => {
      // Never the link: it is a password's worth.
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), user_id: userId }, 'the password reset mail could not be sent');
    });
    return { mailed };
  }

  /** Sets the password with a link's token (8-256 characters, else 400 naming `password`). */
  async confirm(acting: ActingContext, input: { token: string; password: string }): Promise<void> {
    checkNewPassword(input.password);
    // A forged token costs a look-up, not a password hash: the hash is what an anonymous caller
    // could otherwise make the server compute at will. The transaction takes the link for good.
    if (!(await security.isLivePasswordReset(this.handle.db, sessionIdOf(input.token), new Date().toISOString()))) throw invalidToken();
    const passwordHash = await hashPassword(input.password);
    await this.handle.db.transaction().execute(async (trx) => {
      const userId = await security.takePasswordReset(trx, sessionIdOf(input.token), new Date().toISOString());
      if (userId === undefined) throw invalidToken();
      const user = await repo.findUserById(trx, userId);
      if (!user) throw invalidToken();
      await repo.updatePasswordHash(trx, userId, passwordHash);
      await security.usePasswordResetsOf(trx, userId, new Date().toISOString());
      await repo.deleteSessionsOf(trx, userId);
      await security.deleteChallengesOf(trx, userId);
      await recordOwnAudit(trx, acting, { id: userId, account_id: Number(user.account_id), email: user.email }, 'auth.password_reset');
    });
  }
}
