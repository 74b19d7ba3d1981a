import { describe, expect, it } from 'vitest';
import { computeStatistics, rate } from './statistics.ts';

describe('campaign statistics (spec definitions, D13)', () => {
  it('derives delivered and every rate from the counts', () => {
    const s = computeStatistics({ sent: 300, bounced: 3, opened: 100, clicked: 7, complained: 1, unsubscribed: 2 });
    expect(s.delivered).toBe(297);
    expect(s.open_rate).toBe(33.67); // 100 / 297
    expect(s.click_rate).toBe(2.36); // 7 / 297
    expect(s.bounce_rate).toBe(1); // 3 / 300
    expect(s.click_to_open_rate).toBe(7); // 7 / 100
    expect(s.unsubscribe_rate).toBe(0.67); // 2 / 297
  });

  it('answers 0 for every rate with a zero denominator', () => {
    const s = computeStatistics({ sent: 0, bounced: 0, opened: 0, clicked: 0, complained: 0, unsubscribed: 0 });
    expect([s.open_rate, s.click_rate, s.bounce_rate, s.click_to_open_rate, s.unsubscribe_rate]).toEqual([0, 0, 0, 0, 0]);
    expect(computeStatistics({ sent: 2, bounced: 2, opened: 0, clicked: 0, complained: 0, unsubscribed: 0 }).open_rate).toBe(0);
  });

  it('rounds half away from zero at 2 decimals', () => {
    expect(rate(1, 3)).toBe(33.33);
    expect(rate(2, 3)).toBe(66.67);
    expect(rate(1, 8)).toBe(12.5);
  });
});
