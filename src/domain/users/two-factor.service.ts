import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import { InvalidStateError, ValidationError } from '../shared/errors.ts';
import { verifyPassword } from './passwords.ts';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.ts';
import { sessionIdOf } from './session-token.ts';
import { recordOwnAudit } from './sign-in-audit.ts';
import { matchingSteps, newTotpSecret, otpauthUrl } from './totp.ts';
import type { OpenedSession, User, UserService } from './users.service.ts';
import * as security from './security.repo.ts';
import * as repo from './users.repo.ts';

const wrongCode = () => new ValidationError('the code is wrong or was used already; use the one your app shows now', 'INVALID_CREDENTIALS');
const wrongPassword = () => new ValidationError('the password is wrong', 'INVALID_CREDENTIALS');

/** The second step of a sign-in: a code of the authenticator, or one of the recovery codes. */
export type SecondFactor = { code: string; recovery_code?: undefined } | { code?: undefined; recovery_code: string };

/**
 * D24.6: two-factor sign-in with TOTP. Setup keeps a new secret (off until a code of it enables it);
 * enabling answers ten recovery codes, shown once and kept as hashes. A code is accepted once: the
 * user's last accepted step is moved forward by a conditional UPDATE, so the same code twice, or
 * an earlier one, is refused even when two requests race; the code that enabled it counts as used.
 */
export class TwoFactorService {
  constructor(
    private readonly handle: DbHandle,
    private readonly users: UserService,
  ) {}

  /** A new secret (replacing one set up and not enabled); 409 INVALID_STATE while two-factor is on. */
  async setup(user: User): Promise<{ secret: string; otpauth_url: string }> {
    const row = await repo.findUserById(this.handle.db, user.id);
    if (row?.totp_enabled_at != null) throw new InvalidStateError('two-factor sign-in is on already; turn it off first to set up another authenticator');
    const secret = newTotpSecret();
    await repo.setTotpSecret(this.handle.db, user.id, secret);
    return { secret, otpauth_url: otpauthUrl(secret, user.email) };
  }

  /** Turns two-factor on with a code of the secret from setup: the ten recovery codes (shown this once). */
  async enable(acting: ActingContext, user: User, code: string, now = Date.now()): Promise<{ recovery_codes: string[] }> {
    const codes = newRecoveryCodes();
    await this.handle.db.transaction().execute(async (trx) => {
      const row = await repo.findUserById(trx, user.id);
      if (row?.totp_enabled_at != null) throw new InvalidStateError('two-factor sign-in is on already');
      if (!row?.totp_secret) throw new InvalidStateError('set two-factor up first (POST /api/v1/auth/totp/setup)');
      if (!(await this.acceptCode(trx, user.id, row.totp_secret, code, now))) throw wrongCode();
      await repo.enableTotp(trx, user.id, new Date(now).toISOString());
      await security.replaceRecoveryCodes(trx, user.id, codes.map(recoveryCodeHash));
      await recordOwnAudit(trx, acting, user, 'auth.totp_enabled');
    });
    return { recovery_codes: codes };
  }

  /** Turns two-factor off with the password (400 INVALID_CREDENTIALS when wrong); a setup not enabled is dropped too. */
  async disable(acting: ActingContext, user: User, password: string): Promise<void> {
    const row = await repo.findUserById(this.handle.db, user.id);
    if (!row || !(await verifyPassword(row.password_hash, password))) throw wrongPassword();
    await this.handle.db.transaction().execute(async (trx) => {
      const wasOn = (await repo.findUserById(trx, user.id))?.totp_enabled_at != null;
      await repo.disableTotp(trx, user.id);
      await security.replaceRecoveryCodes(trx, user.id, []);
      await security.deleteChallengesOf(trx, user.id);
      if (wasOn) await recordOwnAudit(trx, acting, user, 'auth.totp_disabled');
    });
  }

  /** The e-mail a live challenge is about (for the sign-in throttle, D17), or null. */
  async challengeEmail(challenge: string): Promise<string | null> {
    return (await security.findLiveChallenge(this.handle.db, sessionIdOf(challenge), new Date().toISOString()))?.email ?? null;
  }

  /**
   * The second step: a session when the challenge is live and the code (or recovery code) is
   * right and unused, which ends the challenge; else null (401 INVALID_CREDENTIALS, the same for
   * every reason), recorded as auth.sign_in_failed when the challenge names a user.
   */
  async signIn(acting: ActingContext, challenge: string, factor: SecondFactor, now = Date.now()): Promise<OpenedSession | null> {
    const challengeHash = sessionIdOf(challenge);
    const userId = await this.handle.db.transaction().execute(async (trx) => {
      const row = await security.findLiveChallenge(trx, challengeHash, new Date(now).toISOString());
      if (!row?.totp_secret || row.totp_enabled_at == null) return null;
      const id = Number(row.id);
      const accepted =
        factor.recovery_code !== undefined
          ? await security.takeRecoveryCode(trx, id, recoveryCodeHash(factor.recovery_code), new Date(now).toISOString())
          : await this.acceptCode(trx, id, row.totp_secret, factor.code, now);
      if (!accepted) {
        await recordOwnAudit(trx, acting, { id, account_id: Number(row.account_id), email: row.email }, 'auth.sign_in_failed');
        return null;
      }
      // Single use: of two requests with one challenge, only the one that deletes it signs in.
      return (await security.deleteChallenge(trx, challengeHash)) ? id : null;
    });
    if (userId === null) return null;
    const user = await this.users.userById(userId);
    return user ? this.users.openSession(acting, user) : null;
  }

  /** The first step within the drift window whose code this is and that is later than the last accepted one, now taken. */
  private async acceptCode(trx: Parameters<typeof repo.acceptTotpStep>[0], userId: number, secret: string, code: string, now: number): Promise<boolean> {
    for (const step of matchingSteps(secret, code, now)) {
      if (await repo.acceptTotpStep(trx, userId, step)) return true;
    }
    return false;
  }
}
