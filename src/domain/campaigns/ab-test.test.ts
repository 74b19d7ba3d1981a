import { describe, expect, it } from 'vitest';
import { checkAbSettings, pickWinner, storedVariant, testShareSizes, variantContent } from './ab-test.ts';

const tally = (delivered: number, human_opened: number, human_clicked = 0) => ({ delivered, human_opened, human_clicked });

describe('D23 A/B test rules', () => {
  it('splits test_percent of the audience equally, at least one per variant while the audience allows', () => {
    expect(testShareSizes(40, 50, 2)).toEqual([10, 10]);
    expect(testShareSizes(100, 10, 3)).toEqual([4, 3, 3]);
    expect(testShareSizes(10, 2, 4)).toEqual([1, 1, 1, 1]); // 0.2 rounds to 0, but each variant gets one
    expect(testShareSizes(3, 50, 4)).toEqual([1, 1, 1, 0]); // the audience does not allow one each
  });

  it('picks the best rate over delivered recipients, ties to the first, exact fractions', () => {
    expect(pickWinner([tally(10, 1), tally(10, 3)], 'human_opens')).toBe(1);
    expect(pickWinner([tally(10, 3), tally(10, 3)], 'human_opens')).toBe(0);
    expect(pickWinner([tally(10, 5, 0), tally(10, 1, 2)], 'human_clicks')).toBe(1);
    expect(pickWinner([tally(0, 0), tally(5, 0)], 'human_opens')).toBe(0);
    expect(pickWinner([tally(3, 1), tally(10000, 3334)], 'human_opens')).toBe(1); // 33.34% beats 33.33...%
    expect(pickWinner([tally(0, 0), tally(5, 1), tally(4, 1)], 'human_opens')).toBe(2);
  });

  it('merges a variant over the base; missing, null and empty fields keep the base, and are not stored', () => {
    const base = { subject: 'Base', from_name: 'Ann', html: '<p>x</p>', text: null };
    expect(variantContent(base, { subject: 'B', html: null, from_name: '' })).toEqual({ ...base, subject: 'B' });
    expect(storedVariant({ subject: 'B', html: null, from_name: '', text: 'T' })).toEqual({ subject: 'B', text: 'T' });
  });

  it('wants both or neither, and names the field out of range', () => {
    const test = { test_percent: 20, metric: 'human_opens' as const, wait_minutes: 60 };
    expect(() => checkAbSettings([{}, {}], null)).toThrow(/^ab_test is required/);
    expect(() => checkAbSettings(null, test)).toThrow(/^variants are required/);
    expect(() => checkAbSettings([{}], test)).toThrow(/^variants must hold 2-4/);
    expect(() => checkAbSettings([{}, {}], { ...test, test_percent: 51 })).toThrow(/^ab_test.test_percent /);
    expect(() => checkAbSettings([{}, {}], { ...test, wait_minutes: 0 })).toThrow(/^ab_test.wait_minutes /);
    expect(() => checkAbSettings(null, null)).not.toThrow();
  });
});
