import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';

/** Sign-in and sign-up attempts allowed per window, counted per client IP and per e-mail address. */
export const SIGN_IN_LIMITS = { perIp: 30, perEmail: 5, windowSeconds: 15 * 60 } as const;

/**
 * Slows password guessing: an e-mail gets a few attempts per window (guessing one account's
 * password), an IP a few more (trying many accounts). Shared across processes through Redis when
 * REDIS_URL is set, like the API rate limits.
 */
export class SignInRateLimiter {
  private readonly byIp: RateLimiterAbstract;
  private readonly byEmail: RateLimiterAbstract;

  constructor(factory: LimiterFactory = memoryLimiters) {
    this.byIp = factory({ keyPrefix: 'signin:ip', points: SIGN_IN_LIMITS.perIp, duration: SIGN_IN_LIMITS.windowSeconds });
    this.byEmail = factory({ keyPrefix: 'signin:email', points: SIGN_IN_LIMITS.perEmail, duration: SIGN_IN_LIMITS.windowSeconds });
  }

  /** Counts one attempt; answers the seconds to wait when over either limit, else null. */
  async attempt(ip: string, email: string): Promise<number | null> {
    for (const [limiter, key] of [
      [this.byIp, ip],
      [this.byEmail, email.trim().toLowerCase()],
    ] as const) {
      try {
        await limiter.consume(key);
      } catch (res) {
        if (res instanceof Error) throw res;
        return Math.max(1, Math.ceil((res as { msBeforeNext: number }).msBeforeNext / 1000));
      }
    }
    return null;
  }
}
