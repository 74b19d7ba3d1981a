import { describe, expect, it } from 'vitest';
import { computeStatistics, rate } from './statistics.ts';

describe('campaign statistics (spec definitions, D13)', () => {
  it('derives delivered and every rate from the counts', () => {
    const s = computeStatistics({ sent: 300, bounced: 3, opened: 100, clicked: 7, complained: 1, unsubscribed: 2, human_opened: 40, machine_opened: 70, human_clicked: 3, machine_clicked: 5 });
    expect(s.delivered).toBe(297);
    expect(s.open_rate).toBe(33.67); // 100 / 297
    expect(s.click_rate).toBe(2.36); // 7 / 297
    expect(s.bounce_rate).toBe(1); // 3 / 300
    expect(s.click_to_open_rate).toBe(7); // 7 / 100
    expect(s.unsubscribe_rate).toBe(0.67); // 2 / 297
    expect(s.human_open_rate).toBe(13.47); // 40 / 297 (D23)
    expect(s.human_click_rate).toBe(1.01); // 3 / 297
    expect([s.human_opened, s.machine_opened, s.human_clicked, s.machine_clicked]).toEqual([40, 70, 3, 5]);
  });

  it('answers 0 for every rate with a zero denominator', () => {
    const s = computeStatistics({ sent: 0, bounced: 0, opened: 0, clicked: 0, complained: 0, unsubscribed: 0, human_opened: 0, machine_opened: 0, human_clicked: 0, machine_clicked: 0 });
    expect([s.open_rate, s.click_rate, s.bounce_rate, s.click_to_open_rate, s.unsubscribe_rate, s.human_open_rate, s.human_click_rate]).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(computeStatistics({ sent: 2, bounced: 2, opened: 0, clicked: 0, complained: 0, unsubscribed: 0, human_opened: 0, machine_opened: 0, human_clicked: 0, machine_clicked: 0 }).open_rate).toBe(0);
  });

  it('rounds half away from zero at 2 decimals', () => {
    expect(rate(1, 3)).toBe(33.33);
    expect(rate(2, 3)).toBe(66.67);
    expect(rate(1, 8)).toBe(12.5);
  });
});
