import { describe, expect, it } from 'vitest';
import { daysSince, utcDay, warmupCap } from './warmup.ts';

// D23: the warm-up cap is round(start * factor^(days since started_at)), per UTC day.
describe('warmupCap', () => {
  const plan = { start: 50, factor: 1.5, startedAt: '2026-11-20T18:30:00.000Z' };

  it('is `start` on the first UTC day, whatever the hour', () => {
    expect(warmupCap(plan, new Date('2026-11-20T18:30:00Z'))).toBe(50);
    expect(warmupCap(plan, new Date('2026-11-20T23:59:59Z'))).toBe(50);
  });

  it('grows by the factor each UTC day from midnight, rounded', () => {
    expect(warmupCap(plan, new Date('2026-11-21T00:00:00Z'))).toBe(75);
    expect(warmupCap(plan, new Date('2026-11-22T12:00:00Z'))).toBe(113); // 112.5
    expect(warmupCap(plan, new Date('2026-11-30T12:00:00Z'))).toBe(Math.round(50 * 1.5 ** 10));
  });

  it('stays at start with factor 1, and before its first day', () => {
    expect(warmupCap({ ...plan, factor: 1 }, new Date('2027-03-01T00:00:00Z'))).toBe(50);
    expect(warmupCap(plan, new Date('2026-11-01T00:00:00Z'))).toBe(50);
  });

  it('is start when the plan never ran, and never Infinity', () => {
    expect(warmupCap({ ...plan, startedAt: null }, new Date())).toBe(50);
    expect(warmupCap({ start: 1_000_000, factor: 10, startedAt: '2000-01-01T00:00:00Z' }, new Date('2026-01-01T00:00:00Z'))).toBe(1_000_000_000);
  });
});

describe('days', () => {
  it('counts whole UTC days between the days of two instants', () => {
    expect(daysSince('2026-11-20T23:59:00Z', new Date('2026-11-21T00:01:00Z'))).toBe(1);
    expect(daysSince('2026-03-28T12:00:00Z', new Date('2026-03-30T01:00:00Z'))).toBe(2);
    expect(utcDay(new Date('2026-11-20T23:59:59.999Z'))).toBe('2026-11-20');
  });
});
