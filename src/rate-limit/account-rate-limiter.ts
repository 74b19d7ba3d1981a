import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PLAN_LIMITS, type Plan } from '../domain/accounts/plans.ts';
import { SESSION_RATE_FACTOR } from '../config.ts';

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

/** Whole seconds until a rejected limiter frees a point, at least 1 (Retry-After). */
const secondsOf = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** Consumes a point: null when allowed, else the seconds to wait. A store failure is thrown, not taken for a refusal. */
export async function consumeOrWait(limiter: RateLimiterAbstract, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (res) {
    if (res instanceof RateLimiterRes) return secondsOf(res);
    throw res;
  }
}

/** Who is being metered: an API key (D10), or a dashboard session (issue 14 L1), each with its own budget. */
export type Caller = 'key' | 'session';

interface Budget {
  limits: { perSecond: number; perMinute: number };
  second: RateLimiterAbstract;
  minute: RateLimiterAbstract;
}

/**
 * D10: one budget per account, shared by all its keys, with the plan's per-second burst and
 * per-minute windows both applied. Enterprise is unlimited (`check` answers null).
 * Issue 14 L1: dashboard sessions bypassed the plan's limits; they are metered per account too,
 * on a budget of their own (`sessionFactor` times the plan's rates), so the dashboard never eats
 * into what the account's integrations may spend, and a session cannot spend without bound.
 */
export class AccountRateLimiter {
  private readonly budgets = new Map<`${Caller}:${Plan}`, Budget>();

  constructor(factory: LimiterFactory = memoryLimiters, sessionFactor: number = SESSION_RATE_FACTOR) {
    for (const [plan, limits] of Object.entries(PLAN_LIMITS) as [Plan, (typeof PLAN_LIMITS)[Plan]][]) {
      if (!limits.rate) continue;
      const session = { perSecond: limits.rate.perSecond * sessionFactor, perMinute: limits.rate.perMinute * sessionFactor };
      for (const [caller, rate, prefix] of [
        ['key', limits.rate, `rl:${plan}`],
        ['session', session, `rl:session:${plan}`],
      ] as const) {
        this.budgets.set(`${caller}:${plan}`, {
          limits: rate,
          second: factory({ keyPrefix: `${prefix}:s`, points: rate.perSecond, duration: 1 }),
          minute: factory({ keyPrefix: `${prefix}:m`, points: rate.perMinute, duration: 60 }),
        });
      }
    }
  }

  async check(accountId: number, plan: Plan, caller: Caller = 'key'): Promise<RateDecision | null> {
    const budget = this.budgets.get(`${caller}:${plan}`);
    if (!budget) return null;
    const { limits, second, minute: minuteWindow } = budget;
    const key = String(accountId);
    // The burst window is tried first so a rejected burst does not also spend the minute budget.
    try {
      await second.consume(key);
    } catch (res) {
      const exceeded = toWindow(limits.perSecond, rejected(res));
      const minuteRes = await minuteWindow.get(key);
      const minute = minuteRes ? toWindow(limits.perMinute, minuteRes) : { limit: limits.perMinute, remaining: limits.perMinute, resetMs: 60_000 };
      return { allowed: false, minute, exceeded };
    }
    try {
      const res = await minuteWindow.consume(key);
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
