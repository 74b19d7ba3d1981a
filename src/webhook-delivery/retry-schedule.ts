import { backoffDelay } from '../domain/shared/backoff.ts';

/** How failed deliveries are retried: exponential backoff with jitter, for a window, then FAILED. */
export interface RetryPolicy {
  /** the first retry's delay; it doubles per attempt (WEBHOOK_RETRY_BASE_MS) */
  baseMs: number;
  /** no delay is longer than this (an hour by default) */
  maxDelayMs: number;
  /** retries continue until this long after the event (WEBHOOK_RETRY_WINDOW_MS, 24 h by default) */
  windowMs: number;
}

/**
 * When to try again after the `attempts`-th failed attempt, or null to give up: the delay doubles
 * from `baseMs` up to `maxDelayMs`, spread by ±20% so that a receiver coming back from an outage
 * is not hit by every delivery at the same instant. Giving up happens only once the window since
 * the event has passed, so a receiver is retried for at least the whole window.
 */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, createdAtMs: number, nowMs: number, random: () => number = Math.random): number | null {
  if (nowMs - createdAtMs >= policy.windowMs) return null;
  const delay = backoffDelay(policy.baseMs, attempts, policy.maxDelayMs);
  return nowMs + Math.round(delay * (0.8 + 0.4 * random()));
}
