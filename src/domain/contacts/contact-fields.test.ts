import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { mergeCustomFields, normalisePhone, normaliseTags } from './contact-fields.ts';

describe('contact field rules (D11)', () => {
  it('dedupes tags case-insensitively, keeps the first spelling and trims', () => {
    expect(normaliseTags([' VIP ', 'vip', 'News'])).toEqual(['VIP', 'News']);
    expect(() => normaliseTags(['   '])).toThrow(/1-64/);
    expect(normaliseTags(['x'.repeat(64)])).toHaveLength(1);
    expect(() => normaliseTags(['x'.repeat(65)])).toThrow(/1-64/);
    expect(normaliseTags(Array.from({ length: 100 }, (_, i) => `t${i}`))).toHaveLength(100);
    expect(() => normaliseTags(Array.from({ length: 101 }, (_, i) => `t${i}`))).toThrow(/at most 100/);
  });

  it('counts lengths in code points', () => {
    expect(normaliseTags(['😀'.repeat(64)])).toHaveLength(1);
  });

  it('accepts phone characters only, up to 32', () => {
    expect(normalisePhone('+1 (555) 010-99.00')).toBe('+1 (555) 010-99.00');
    expect(() => normalisePhone('555-CALL')).toThrow(ValidationError);
    expect(normalisePhone('1'.repeat(32))).toHaveLength(32);
    expect(() => normalisePhone('1'.repeat(33))).toThrow(ValidationError);
  });

  it('merges custom fields: null removes, keys and values are checked', () => {
    expect(mergeCustomFields({ a: 1, b: 'x' }, { b: null, c: true })).toEqual({ a: 1, c: true });
    expect(mergeCustomFields({}, { gone: null })).toEqual({});
    expect(() => mergeCustomFields({}, { '1bad': 1 })).toThrow(/key/);
    expect(() => mergeCustomFields({}, { nested: { a: 1 } })).toThrow(/string, number, boolean or null/);
    expect(() => mergeCustomFields({}, { s: 'x'.repeat(1001) })).toThrow(/1000/);
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(mergeCustomFields({}, fifty))).toHaveLength(50);
    expect(() => mergeCustomFields(fifty as Record<string, number>, { k50: 1 })).toThrow(/50/);
  });
});
