import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { evaluateCondition, hourOf, triggerKey, withinBudget, validateStep, validateSteps, validateTrigger, type ConditionSubject } from './automation-definition.ts';

const subject = (over: Partial<ConditionSubject> = {}): ConditionSubject => ({
  tags: ['VIP', 'beta'],
  lead_score: 10,
  status: 'SUBSCRIBED',
  custom_fields: { plan: 'Gold', seats: 3, trial: false, empty: '' },
  event: { total: 99.5, order: { id: 'A-1', lines: 2 }, coupon: null },
  ...over,
});

describe('D15 CONDITION', () => {
  const cases: [string, string, unknown, boolean][] = [
    ['tags', 'contains', 'vip', true],
    ['tags', 'equals', 'BETA', true],
    ['tags', 'contains', 'gold', false],
    ['tags', 'not_equals', 'gold', true],
    ['tags', 'not_equals', 'vip', false],
    ['tags', 'exists', null, true],
    ['lead_score', 'gte', 10, true],
    ['lead_score', 'gte', 11, false],
    ['lead_score', 'lte', '10', true],
    ['lead_score', 'equals', 10, true],
    ['lead_score', 'equals', '10', true],
    ['status', 'equals', 'SUBSCRIBED', true],
    ['status', 'not_equals', 'SUBSCRIBED', false],
    ['custom_fields.plan', 'equals', 'Gold', true],
    ['custom_fields.plan', 'equals', 'gold', false],
    ['custom_fields.plan', 'contains', 'OL', true],
    ['custom_fields.seats', 'gte', 3, true],
    ['custom_fields.trial', 'equals', false, true],
    ['custom_fields.trial', 'gte', 0, false],
    ['custom_fields.empty', 'gte', 0, false],
    ['custom_fields.missing', 'exists', null, false],
    ['custom_fields.missing', 'not_equals', 'x', true],
    ['custom_fields.missing', 'equals', 'x', false],
    ['event.total', 'gte', 99.5, true],
    ['event.total', 'lte', 99, false],
    ['event.order.id', 'equals', 'A-1', true],
    ['event.order.lines', 'equals', 2, true],
    ['event.order.nothing', 'exists', null, false],
    ['event.coupon', 'exists', null, false],
    ['event.order', 'exists', null, true],
    ['event.total.deeper', 'exists', null, false],
    ['event.constructor', 'exists', null, false],
  ];
  for (const [field, op, value, expected] of cases) {
    it(`${field} ${op} ${JSON.stringify(value)} is ${expected}`, () => {
      expect(evaluateCondition({ field, op: op as never, value }, subject())).toBe(expected);
    });
  }

  it('reads nothing from a run that no event started', () => {
    expect(evaluateCondition({ field: 'event.total', op: 'exists', value: null }, subject({ event: null }))).toBe(false);
    expect(evaluateCondition({ field: 'tags', op: 'exists', value: null }, subject({ tags: [] }))).toBe(false);
  });
});

describe('D15 definitions', () => {
  it('normalises triggers and matches tags case-insensitively, events exactly', () => {
    expect(validateTrigger({ type: 'TAG_ADDED', tag: ' Vip ' })).toEqual({ type: 'TAG_ADDED', tag: 'Vip' });
    expect(triggerKey({ type: 'TAG_ADDED', tag: 'Vip' })).toBe('vip');
    expect(triggerKey({ type: 'EVENT', event: 'Order' })).toBe('Order');
    expect(triggerKey({ type: 'LIST_JOINED', list_id: 7 })).toBe('7');
    expect(validateTrigger({ type: 'CONTACT_CREATED', tag: 'ignored' })).toEqual({ type: 'CONTACT_CREATED' });
  });

  it('refuses what D15 does not allow, naming the field', () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'WAIT' }, /steps\[0\]\.seconds/],
      [{ type: 'WAIT', seconds: 366 * 24 * 3600 + 1 }, /seconds/],
      [{ type: 'ADD_TAG', tag: 'x'.repeat(65) }, /tag/],
      [{ type: 'ADD_TO_LIST', list_id: 0 }, /list_id/],
      [{ type: 'UPDATE_LEAD_SCORE', delta: 1.5 }, /delta/],
      [{ type: 'SEND_EMAIL', subject: 's', html: 'h', from_email: 'a@b' }, /from_email/],
      [{ type: 'CONDITION', field: 'custom_fields.1x', op: 'exists' }, /field/],
      [{ type: 'CONDITION', field: 'event.', op: 'exists' }, /field/],
      [{ type: 'CONDITION', field: 'status', op: 'equals', value: { a: 1 } }, /value/],
      [null, /object/],
    ];
    for (const [step, message] of bad) {
      expect(() => validateStep(step, 0)).toThrow(ValidationError);
      expect(() => validateStep(step, 0)).toThrow(message);
    }
    expect(() => validateSteps([])).toThrow(/1-50/);
    expect(() => validateSteps(Array.from({ length: 51 }, () => ({ type: 'WAIT', seconds: 1 })))).toThrow(/1-50/);
  });

  it('keeps only the parameters of each step type', () => {
    expect(validateStep({ type: 'ADD_TAG', tag: ' a ', extra: 1 }, 0)).toEqual({ type: 'ADD_TAG', tag: 'a' });
    expect(validateStep({ type: 'CONDITION', field: 'tags', op: 'exists', value: 'ignored?' }, 0)).toMatchObject({ op: 'exists' });
  });
});

describe('issue 28 H3 budgets', () => {
  it.each([
    // budget, used, wanted, may go ahead
    [20, 0, 5, 5],
    [20, 18, 5, 2],
    [20, 20, 1, 0],
    [20, 25, 1, 0], // overrun by concurrent writers: none, never negative
    [20, 0, 0, 0],
  ])('withinBudget(%i, %i, %i) = %i', (budget, used, wanted, allowed) => {
    expect(withinBudget(budget, used, wanted)).toBe(allowed);
  });

  it('hourOf counts clock hours (UTC): the last millisecond of an hour and the first of the next differ', () => {
    expect(hourOf('1970-01-01T00:59:59.999Z')).toBe(0);
    expect(hourOf('1970-01-01T01:00:00.000Z')).toBe(1);
    expect(hourOf('2026-11-28T11:30:00.000+01:00')).toBe(hourOf('2026-11-28T10:00:00.000Z'));
  });
});
