import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { consumeOrWait, memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';

/** D20: submissions one client address may make to one form per minute. */
export const FORM_SUBMISSIONS_PER_MINUTE = 10;

/**
 * D20: `POST /f/{uid}` takes no key, so it is counted per form and client IP (req.ip: the real
 * client's behind a proxy once TRUST_PROXY says which proxies to believe). Every submission counts,
 * the honeypot's and the refused ones too, so a robot learns nothing by failing. Shared across
 * processes through Redis when REDIS_URL is set, like the API rate limits.
 */
export class FormRateLimiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(factory: LimiterFactory = memoryLimiters) {
    this.limiter = factory({ keyPrefix: 'form', points: FORM_SUBMISSIONS_PER_MINUTE, duration: 60 });
  }

  /** Counts one submission; answers the seconds to wait when over the limit, else null. */
  hit(formUid: string, ip: string): Promise<number | null> {
    return consumeOrWait(this.limiter, `${formUid}:${ip}`);
  }
}
