import type { Core } from '../core.ts';
import { AccountRateLimiter } from '../rate-limit/account-rate-limiter.ts';
import { FormRateLimiter } from '../rate-limit/form-rate-limiter.ts';
import { SignInRateLimiter } from '../rate-limit/sign-in-rate-limiter.ts';
import { TrackingRateLimiter } from '../rate-limit/tracking-rate-limiter.ts';

/** The limits only HTTP needs, built with the app: a sender-only process has none of them. */
export interface RequestLimiters {
  /** D10: each account's budget of API requests, and of the dashboard's (SESSION_RATE_LIMIT_FACTOR) */
  rateLimiter: AccountRateLimiter;
  /** dashboard sign-in and sign-up attempts */
  signInLimiter: SignInRateLimiter;
  /** the open pixel, click and unsubscribe routes, per client IP (issue 14 L2) */
  trackingLimiter: TrackingRateLimiter;
  /** D20: sign-ups per form and client IP */
  formLimiter: FormRateLimiter;
}

/**
 * What the HTTP app is built from: the core and the request limits. Each route file names the
 * parts it uses (`Pick<HttpParts, ...>`), so what a route can reach is in its signature.
 */
export type HttpParts = Core & RequestLimiters;

export function createRequestLimiters({ config, redis }: Pick<Core, 'config' | 'redis'>): RequestLimiters {
  // With REDIS_URL every instance shares each budget; without it each process keeps its own.
  return {
    rateLimiter: new AccountRateLimiter(redis?.limiters, config.sessionRateLimitFactor),
    signInLimiter: new SignInRateLimiter(redis?.limiters),
    trackingLimiter: new TrackingRateLimiter(config.trackingRateLimitPerMinute, redis?.limiters),
    formLimiter: new FormRateLimiter(redis?.limiters),
  };
}
