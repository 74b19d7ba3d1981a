import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { consumeOrWait, memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';
import { emailKey } from '../domain/shared/email-address.ts';

/**
 * Issue 14 M3: failed sign-ins slow down the one who fails, never lock the address's owner out.
 * Counted per e-mail and client IP (so failures from elsewhere do not touch the owner), and per IP
 * across e-mails (a looser bucket against trying many accounts). A success clears its e-mail+IP.
 */
export const SIGN_IN_LIMITS = {
  /** failed sign-ins an e-mail+IP gets before each further attempt must wait its turn */
  freeFailures: 5,
  /** the wait after the free failures: 1 s, doubling with each further failure, capped at this */
  maxDelaySeconds: 15 * 60,
  /** an e-mail+IP's failures are forgotten this long after the first of them (at once on a success) */
  failureMemorySeconds: 24 * 60 * 60,
  /** failed sign-ins one IP may make across all e-mails per window */
  perIpFailures: 30,
  perIpWindowSeconds: 15 * 60,
} as const;

/**
 * Sign-up attempts, counted per client IP and per e-mail address. Each may send the address a mail
 * (issue 14 L5), so an address gets at most 3 an hour however many IPs ask.
 */
export const SIGN_UP_LIMITS = { perIp: 30, perIpWindowSeconds: 15 * 60, perEmail: 3, perEmailWindowSeconds: 60 * 60 } as const;

/** How long an attempt past the free failures holds its e-mail+IP's turn while its password is checked. */
const TURN_HOLD_SECONDS = 60;

/** The wait before the next attempt once an e-mail+IP has `failures` failures (at least the free ones). */
export function delayAfterFailures(failures: number): number {
  return Math.min(SIGN_IN_LIMITS.maxDelaySeconds, 2 ** (failures - SIGN_IN_LIMITS.freeFailures));
}

/**
 * Dashboard sign-in and sign-up throttling. Shared across processes through Redis when REDIS_URL
 * is set, like the API rate limits. Behind a proxy, the client IP is right only with TRUST_PROXY.
 */
export class SignInRateLimiter {
  /** per e-mail+IP: failed sign-ins, and attempts under way (counted as failed until they succeed) */
  private readonly failures: RateLimiterAbstract;
  /** per e-mail+IP past its free failures: one attempt per wait (`block`ed for the wait after a failure) */
  private readonly turns: RateLimiterAbstract;
  private readonly ipFailures: RateLimiterAbstract;
  private readonly signUpsByIp: RateLimiterAbstract;
  private readonly signUpsByEmail: RateLimiterAbstract;

  constructor(factory: LimiterFactory = memoryLimiters) {
    this.failures = factory({ keyPrefix: 'signin:fail', points: SIGN_IN_LIMITS.freeFailures, duration: SIGN_IN_LIMITS.failureMemorySeconds });
    this.turns = factory({ keyPrefix: 'signin:turn', points: 1, duration: TURN_HOLD_SECONDS });
    this.ipFailures = factory({ keyPrefix: 'signin:ip', points: SIGN_IN_LIMITS.perIpFailures, duration: SIGN_IN_LIMITS.perIpWindowSeconds });
    this.signUpsByIp = factory({ keyPrefix: 'signup:ip', points: SIGN_UP_LIMITS.perIp, duration: SIGN_UP_LIMITS.perIpWindowSeconds });
    this.signUpsByEmail = factory({ keyPrefix: 'signup:email', points: SIGN_UP_LIMITS.perEmail, duration: SIGN_UP_LIMITS.perEmailWindowSeconds });
  }

  /**
   * Before a password is checked: null to go ahead, or the seconds to wait. The attempt counts as
   * a failure from here on (so a burst of parallel guesses is counted before any is checked);
   * `signInSucceeded` takes it back, `signInFailed` starts the wait before the next one.
   */
  async beginSignIn(ip: string, email: string): Promise<number | null> {
    const ipWait = await consumeOrWait(this.ipFailures, ip);
    if (ipWait !== null) return ipWait;
    const key = keyOf(ip, email);
    const failures = await this.failures.penalty(key);
    if (failures.consumedPoints <= SIGN_IN_LIMITS.freeFailures) return null;
    const wait = await consumeOrWait(this.turns, key);
    if (wait !== null) {
      // Refused before any password was checked: not a failure.
      await Promise.all([this.failures.reward(key), this.ipFailures.reward(ip)]);
    }
    return wait;
  }

  /** The password was wrong: once past the free failures, the next attempt waits 1 s, 2 s, 4 s, ... */
  async signInFailed(ip: string, email: string): Promise<void> {
    const key = keyOf(ip, email);
    const failures = (await this.failures.get(key))?.consumedPoints ?? 0;
    if (failures >= SIGN_IN_LIMITS.freeFailures) await this.turns.block(key, delayAfterFailures(failures));
  }

  /** The password was right: this e-mail+IP starts afresh, and the attempt leaves the IP's failures. */
  async signInSucceeded(ip: string, email: string): Promise<void> {
    const key = keyOf(ip, email);
    await Promise.all([this.failures.delete(key), this.turns.delete(key), this.ipFailures.reward(ip)]);
  }

  /**
   * D24.6: the password was right but a code must follow: the attempt is taken back (it was no
   * failure) while the e-mail+IP's earlier failures stay, so a known password does not reset the
   * count of wrong codes; only a sign-in that completes (`signInSucceeded`) does. Past the free
   * failures the turn it held becomes the wait a failure would have set, so the code waits its
   * turn too (the password does not skip it).
   */
  async signInHalfway(ip: string, email: string): Promise<void> {
    const key = keyOf(ip, email);
    await Promise.all([this.failures.reward(key), this.ipFailures.reward(ip)]);
    const failures = (await this.failures.get(key))?.consumedPoints ?? 0;
    if (failures >= SIGN_IN_LIMITS.freeFailures) await this.turns.block(key, delayAfterFailures(failures));
  }

  /** Counts one sign-up attempt; answers the seconds to wait when over either limit, else null. */
  async signUpAttempt(ip: string, email: string): Promise<number | null> {
    return (await consumeOrWait(this.signUpsByIp, ip)) ?? (await consumeOrWait(this.signUpsByEmail, emailKey(email)));
  }
}

function keyOf(ip: string, email: string): string {
  return `${emailKey(email)}|${ip}`;
}
