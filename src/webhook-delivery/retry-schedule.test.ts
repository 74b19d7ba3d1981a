import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from './retry-schedule.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const policy = { baseMs: MINUTE, maxDelayMs: HOUR, windowMs: 24 * HOUR };
const middle = () => 0.5; // no jitter

describe('webhook retry schedule', () => {
  it('doubles from the base and caps at the maximum', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => nextAttemptAt(policy, n, 0, 1000, middle)! - 1000);
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60].map((m) => m * MINUTE));
  });

  it('spreads each delay by at most a fifth either way', () => {
    expect(nextAttemptAt(policy, 1, 0, 0, () => 0)).toBe(0.8 * MINUTE);
    expect(nextAttemptAt(policy, 1, 0, 0, () => 0.999999)).toBeCloseTo(1.2 * MINUTE, -1);
  });

  it('keeps retrying until the window since the event has passed, then gives up', () => {
    expect(nextAttemptAt(policy, 30, 0, 24 * HOUR - 1, middle)).not.toBeNull();
    expect(nextAttemptAt(policy, 30, 0, 24 * HOUR, middle)).toBeNull();
  });

  it('retries for the whole window: about 30 attempts over 24 hours at the defaults', () => {
    let now = 0;
    let attempts = 0;
    for (;;) {
      attempts++;
      const next = nextAttemptAt(policy, attempts, 0, now, middle);
      if (next === null) break;
      now = next;
    }
    expect(now).toBeGreaterThanOrEqual(24 * HOUR);
    expect(attempts).toBeGreaterThan(25);
    expect(attempts).toBeLessThan(35);
  });
});
