import validator from 'validator';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { emailDomain, emailKey, isValidEmail, normaliseEmail } from './email-address.ts';

describe('the e-mail rule (D11)', () => {
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

  it('gives one lookup key for every spelling, without judging the value', () => {
    expect(emailKey('  Ann.Lee@Example.COM\t')).toBe('ann.lee@example.com');
    expect(emailKey('ann.lee@example.com')).toBe('ann.lee@example.com');
    // A path segment that is no address is a miss for the caller, never an error here.
    expect(emailKey(' Not An Address ')).toBe('not an address');
  });

  it('takes the domain after the last @, lower-cased, whatever the spelling', () => {
    expect(emailDomain('ann@Example.COM')).toBe('example.com');
    expect(emailDomain('"a@b"@Mail.Example.org')).toBe('mail.example.org');
    expect(emailDomain('ann@example.com')).toBe(emailDomain('ANN@EXAMPLE.COM'));
    expect(emailDomain('no-at-sign.example')).toBe('no-at-sign.example');
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
