import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_RETRY_DELAY_MS } from './backoff.ts';

describe('one retry backoff', () => {
  it('doubles from the base per failed attempt', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(60_000, n))).toEqual([60_000, 120_000, 240_000, 480_000]);
  });

  it('never waits longer than the cap, an hour by default, whatever the attempt count', () => {
    expect(backoffDelay(60_000, 7)).toBe(MAX_RETRY_DELAY_MS);
    expect(backoffDelay(60_000, 10_000)).toBe(MAX_RETRY_DELAY_MS);
    expect(backoffDelay(20, 3, 50)).toBe(50);
  });

  it('treats attempt 0 as the first', () => {
    expect(backoffDelay(100, 0)).toBe(100);
  });
});
