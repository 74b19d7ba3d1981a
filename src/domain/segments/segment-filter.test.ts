import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS, parseSegmentFilter } from './segment-filter.ts';

const parse = (filter: unknown) => parseSegmentFilter(filter);
const error = (filter: unknown) => {
  try {
    parse(filter);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('parseSegmentFilter (D18)', () => {
  it('keeps negative operators as not around their positive form', () => {
    expect(parse({ field: 'email', op: 'neq', value: 'A@B.test' }).condition).toEqual({ kind: 'not', child: { kind: 'text', field: 'email', op: 'eq', value: 'a@b.test' } });
    expect(parse({ field: 'tags', op: 'not_contains', value: ' vip ' }).condition).toEqual({ kind: 'not', child: { kind: 'tags', values: ['vip'] } });
    expect(parse({ field: 'custom_fields.plan', op: 'not_exists' }).condition).toEqual({ kind: 'not', child: { kind: 'custom', key: 'plan', op: 'exists', value: true } });
    expect(parse({ field: 'campaign.opened', op: 'eq', value: false, campaign_id: 3 }).condition).toEqual({
      kind: 'not',
      child: { kind: 'engagement', what: 'opened', campaignId: 3, withinDays: null },
    });
  });

  it('gathers the list and campaign ids with their paths, for the ownership check', () => {
    const { references } = parse({ all: [{ field: 'lists', op: 'in', value: [4, 5] }, { field: 'campaign.sent', op: 'eq', value: true, campaign_id: 9 }, { field: 'campaign.sent', op: 'eq', value: true, campaign_id: 'any' }] });
    expect(references).toEqual({
      listIds: [{ id: 4, path: 'filter.all[0].value[0]' }, { id: 5, path: 'filter.all[0].value[1]' }],
      campaignIds: [{ id: 9, path: 'filter.all[1].campaign_id' }],
    });
  });

  it('upper-cases statuses and lower-cases compared strings, keeping numbers and booleans typed', () => {
    expect(parse({ field: 'status', op: 'in', value: ['subscribed'] }).condition).toEqual({ kind: 'text_in', field: 'status', values: ['SUBSCRIBED'] });
    expect(parse({ field: 'custom_fields.n', op: 'in', value: ['A', 2, false] }).condition).toEqual({ kind: 'custom_in', key: 'n', values: ['A', 2, false] });
    expect(parse({ field: 'custom_fields.n', op: 'gt', value: 2 }).condition).toEqual({ kind: 'custom', key: 'n', op: 'gt', value: 2 });
  });

  it('stops at the depth limit without walking further, and counts conditions across groups', () => {
    let deep: unknown = { field: 'email', op: 'exists' };
    for (let i = 0; i < 10_000; i++) deep = { not: deep };
    expect(error(deep)).toMatch(/^filter(\.not){5}: groups nest at most 5 deep/);
    const many = { any: Array.from({ length: 2 }, () => ({ all: Array.from({ length: 60 }, () => ({ field: 'email', op: 'exists' })) })) };
    expect(error(many)).toMatch(new RegExp(`^filter\\.any\\[1\\]\\.all\\[40\\]: a filter holds at most ${FILTER_LIMITS.conditions} conditions`));
  });

  it('names the path of each kind of mistake', () => {
    expect(error({ all: [{ field: 'email', op: 'exists' }, { field: 'lead_score', op: 'contains', value: 1 }] })).toMatch(/^filter\.all\[1\]\.op: "contains" does not fit/);
    expect(error({ field: 'custom_fields.1bad', op: 'eq', value: 1 })).toMatch(/^filter\.field:/);
    expect(error({ field: 'email', op: 'exists', value: 'x' })).toMatch(/^filter\.value: must be left out/);
    expect(error({ field: 'email', op: 'eq', value: 'x', extra: 1 })).toMatch(/^filter\.extra: is not a condition key/);
    expect(error({ not: { field: 'event', op: 'eq', value: true, event: 'x', within_days: -1 } })).toMatch(/^filter\.not\.within_days:/);
  });
});

describe('parameter budget', () => {
  it('refuses more in-list values than the databases take as parameters, naming where it tipped over', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}@example.com`);
    const filter = { any: Array.from({ length: 6 }, () => ({ field: 'email', op: 'in', value: many(1000) })) };
    expect(error(filter)).toMatch(/^filter\.any\[5\]\.value: a filter holds at most 5000 values/);
    expect(() => parse({ any: Array.from({ length: 5 }, () => ({ field: 'email', op: 'in', value: many(1000) })) })).not.toThrow();
  });
});

describe('issue 28 C2: text-match budget', () => {
  const match = (op: string, value: string, field = 'email') => ({ field, op, value });
  it.each([
    ['contains', 'email'],
    ['not_contains', 'first_name'],
    ['starts_with', 'custom_fields.note'],
    ['ends_with', 'phone'],
  ])('C2: refuses a %s term on %s longer than the cap, naming the path and the limit', (op, field) => {
    expect(() => parse(match(op, 'x'.repeat(FILTER_LIMITS.patternMax), field))).not.toThrow();
    expect(error(match(op, 'x'.repeat(FILTER_LIMITS.patternMax + 1), field))).toMatch(new RegExp(`^filter\\.value: a text match .* at most ${FILTER_LIMITS.patternMax} characters`));
  });

  it('C2: counts characters, not UTF-16 units, and leaves eq and in at the general string limit', () => {
    expect(() => parse(match('contains', '😀'.repeat(FILTER_LIMITS.patternMax)))).not.toThrow();
    expect(() => parse(match('eq', 'x'.repeat(FILTER_LIMITS.stringMax)))).not.toThrow();
    expect(() => parse({ field: 'email', op: 'in', value: ['x'.repeat(FILTER_LIMITS.stringMax)] })).not.toThrow();
  });

  it("C2: refuses more characters of text-match terms per filter than the cap, naming where it tipped over; 100 short matches still fit", () => {
    const full = FILTER_LIMITS.patternCharsTotal / FILTER_LIMITS.patternMax;
    expect(() => parse({ any: Array.from({ length: FILTER_LIMITS.conditions }, () => match('ends_with', 'example.test')) })).not.toThrow();
    expect(() => parse({ all: Array.from({ length: full }, () => match('contains', 'x'.repeat(FILTER_LIMITS.patternMax))) })).not.toThrow();
    expect(error({ any: [{ all: Array.from({ length: full }, () => match('starts_with', 'x'.repeat(FILTER_LIMITS.patternMax))) }, { not: match('not_contains', 'b') }] })).toMatch(
      new RegExp(`^filter\\.any\\[1\\]\\.not\\.value: the terms of a filter's text matches .* at most ${FILTER_LIMITS.patternCharsTotal} characters together`),
    );
  });
});
