import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PLAN_LIMITS, type Plan } from '../domain/accounts/plans.ts';

export interface WindowState {
  limit: number;
  remaining: number;
  /** milliseconds until the window frees a request */
  resetMs: number;
}

export type RateDecision =
  | { allowed: true; minute: WindowState }
  | { allowed: false; minute: WindowState; exceeded: WindowState };

/** Builds the limiter for one plan window; swapped for a Redis-backed one when REDIS_URL is set. */
export type LimiterFactory = (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract;

export const memoryLimiters: LimiterFactory = (opts) => new RateLimiterMemory(opts);

/**
 * D10: one budget per account, shared by all its keys, with the plan's per-second burst and
 * per-minute windows both applied. Enterprise is unlimited (`check` answers null).
 */
export class AccountRateLimiter {
  private readonly windows = new Map<Plan, { second: RateLimiterAbstract; minute: RateLimiterAbstract }>();

  constructor(factory: LimiterFactory = memoryLimiters) {
    for (const [plan, limits] of Object.entries(PLAN_LIMITS) as [Plan, (typeof PLAN_LIMITS)[Plan]][]) {
      if (!limits.rate) continue;
      this.windows.set(plan, {
        second: factory({ keyPrefix: `rl:${plan}:s`, points: limits.rate.perSecond, duration: 1 }),
        minute: factory({ keyPrefix: `rl:${plan}:m`, points: limits.rate.perMinute, duration: 60 }),
      });
    }
  }

  async check(accountId: number, plan: Plan): Promise<RateDecision | null> {
    const windows = this.windows.get(plan);
    const limits = PLAN_LIMITS[plan].rate;
    if (!windows || !limits) return null;
    const key = String(accountId);
    // The burst window is tried first so a rejected burst does not also spend the minute budget.
    try {
      await windows.second.consume(key);
    } catch (res) {
      const exceeded = toWindow(limits.perSecond, rejected(res));
      const minuteRes = await windows.minute.get(key);
      const minute = minuteRes ? toWindow(limits.perMinute, minuteRes) : { limit: limits.perMinute, remaining: limits.perMinute, resetMs: 60_000 };
      return { allowed: false, minute, exceeded };
    }
    try {
      const res = await windows.minute.consume(key);
      return { allowed: true, minute: toWindow(limits.perMinute, res) };
    } catch (res) {
      const minute = toWindow(limits.perMinute, rejected(res));
      return { allowed: false, minute, exceeded: minute };
    }
  }
}

function rejected(res: unknown): RateLimiterRes {
  // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, and with an Error when its store fails.
  if (res instanceof RateLimiterRes) return res;
  throw res;
}

function toWindow(limit: number, res: RateLimiterRes): WindowState {
  return { limit, remaining: Math.max(0, res.remainingPoints), resetMs: Math.max(0, res.msBeforeNext) };
}
