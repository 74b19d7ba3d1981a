import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { consumeOrWait, memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';

/** The public routes in mails, each with a budget of its own: the open pixel, click redirects, the unsubscribe page and its POST, D20's confirmation page and its POST, and D20's preference centre (`/p/`), and D22's web view (`/w/`) and public archive pages. */
export const TRACKING_ROUTES = ['open', 'click', 'unsubscribe', 'confirm', 'preferences', 'webview', 'archive'] as const;
export type TrackingRoute = (typeof TRACKING_ROUTES)[number];

/**
 * Issue 14 L2: the tracking routes take no key, so they are counted per client IP (req.ip, which
 * TRUST_PROXY makes the real client's behind a proxy), per route kind, per minute. The budget is
 * generous: mail providers' image proxies fetch many recipients' pixels from one address. Shared
 * across processes through Redis when REDIS_URL is set, like the API rate limits.
 */
export class TrackingRateLimiter {
  private readonly limiters: Map<TrackingRoute, RateLimiterAbstract> | null;

  /** `perMinute` 0: no limit. */
  constructor(perMinute: number, factory: LimiterFactory = memoryLimiters) {
    this.limiters =
      perMinute === 0 ? null : new Map(TRACKING_ROUTES.map((route) => [route, factory({ keyPrefix: `track:${route}`, points: perMinute, duration: 60 })]));
  }

  /** Counts one request; answers the seconds to wait when over the limit, else null. */
  async hit(route: TrackingRoute, ip: string): Promise<number | null> {
    const limiter = this.limiters?.get(route);
    return limiter ? consumeOrWait(limiter, ip) : null;
  }
}
