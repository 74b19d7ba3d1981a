import validator from 'validator';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { isValidEmail, mergeCustomFields, normaliseEmail, normalisePhone, normaliseTags } from './contact-fields.ts';

describe('contact field rules (D11)', () => {
  it('trims and lower-cases e-mails and requires a dotted domain', () => {
    expect(normaliseEmail('  Ann.Lee+news@Example.COM ')).toBe('ann.lee+news@example.com');
    expect(() => normaliseEmail('ann@localhost')).toThrow(ValidationError);
    expect(() => normaliseEmail('not-an-email')).toThrow(ValidationError);
  });

  it('issue 14 M1: refuses control characters, line separators, < and > anywhere, quoted or not', () => {
    for (const bad of ['"x\r\ny"@example.com', '"x\ny"@example.com', '"x\ty"@example.com', '"x\u0001y"@example.com', '"x\u007fy"@example.com', '"x\u0085y"@example.com', '"x\u2028y"@example.com', '"x\u2029y"@example.com', '"a<b"@example.com', '"a>b"@example.com']) {
      expect(isValidEmail(bad), JSON.stringify(bad)).toBe(false);
      expect(() => normaliseEmail(bad, 'from_email'), JSON.stringify(bad)).toThrow('from_email must not contain control characters, < or >');
    }
    // Other quoted local parts stay valid.
    expect(normaliseEmail('"a b"@example.com')).toBe('"a b"@example.com');
    expect(normaliseEmail('"a\\"b"@example.com')).toBe('"a\\"b"@example.com');
  });

  it('accepts a 254-character e-mail and refuses 255', () => {
    const address = (lastLabel: number) => `${'a'.repeat(64)}@${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(lastLabel)}.com`;
    expect(address(57)).toHaveLength(254);
    expect(normaliseEmail(address(57))).toBe(address(57));
    expect(() => normaliseEmail(address(58))).toThrow(/254/);
  });

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

describe('the plain e-mail fast path agrees with validator.isEmail', () => {
  const validatorSays = (email: string) => validator.isEmail(email, { require_tld: true, allow_ip_domain: false, allow_display_name: false });
  const pick = (chars: string, min: number, max: number, random: () => number) =>
    Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => chars[Math.floor(random() * chars.length)]).join('');

  it('accepts nothing validator refuses, on generated addresses near the edges', () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const local = 'abcz09_+-.';
    const label = 'az09-';
    let fastAccepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const domain = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(label, 1, random() < 0.05 ? 64 : 8, random)).join('.') + '.' + pick('abz09', 1, random() < 0.05 ? 64 : 4, random);
      const email = `${pick(local, 1, random() < 0.05 ? 66 : 10, random)}@${domain}`;
      if (isValidEmail(email) && !validatorSays(email)) throw new Error(`fast path accepts ${email}, validator does not`);
      if (isValidEmail(email)) fastAccepted++;
      expect(isValidEmail(email)).toBe(validatorSays(email));
    }
    expect(fastAccepted).toBeGreaterThan(1000);
  });

  it('leaves everything else to validator (same answers)', () => {
    for (const email of ['a@b.co', 'a..b@x.io', '.a@x.io', 'a.@x.io', 'a@-x.io', 'a@x-.io', 'a@x.i', 'a@x.123', "o'neil@x.io", 'ü@x.io', 'a@münchen.de', 'a@x_y.io', 'a"b@x.io', `${'a'.repeat(64)}@x.io`, `${'a'.repeat(65)}@x.io`]) {
      expect(isValidEmail(email), email).toBe(validatorSays(email));
    }
  });
});
