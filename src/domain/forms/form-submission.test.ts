import { describe, expect, it } from 'vitest';
import type { FormField } from './form.ts';
import { describeProblems, readSubmission } from './form-submission.ts';

const fields: FormField[] = [
  { name: 'email', label: 'E-mail', required: true },
  { name: 'first_name', label: 'First name', required: false },
  { name: 'last_name', label: 'Last name', required: true },
  { name: 'custom_fields.company', label: 'Company', required: false },
];

const problemsOf = (values: Record<string, unknown>, rules = {}) => {
  const s = readSubmission(fields, values, rules);
  return s.kind === 'invalid' ? Object.fromEntries(s.problems) : s.kind;
};

describe('reading a submission (D20)', () => {
  it('a valid one: trimmed, the address lower-cased, blanks left out', () => {
    expect(readSubmission(fields, { email: ' Ann@Example.COM ', first_name: '', last_name: ' Lee ', 'custom_fields.company': 'Acme', website: '' })).toEqual({
      kind: 'valid',
      contact: { email: 'ann@example.com', first_name: null, last_name: 'Lee', custom_fields: { company: 'Acme' } },
      consent: null,
      returnTo: null,
    });
  });

  it('JSON may give a custom field a number or a boolean, never a contact field', () => {
    expect(readSubmission(fields, { email: 'a@example.com', last_name: 'L', 'custom_fields.company': 42 })).toMatchObject({ kind: 'valid', contact: { custom_fields: { company: 42 } } });
    expect(problemsOf({ email: 'a@example.com', last_name: 7 })).toEqual({ last_name: 'must be text' });
  });

  it('a filled honeypot is a robot, whatever else the body holds', () => {
    expect(readSubmission(fields, { website: 'http://spam.example' })).toEqual({ kind: 'robot' });
    expect(readSubmission(fields, { website: 'x', email: 'not an address', evil: '1' })).toEqual({ kind: 'robot' });
    expect(readSubmission(fields, { website: 0, email: 'a@example.com', last_name: 'L' })).toEqual({ kind: 'robot' });
    expect(readSubmission(fields, { website: ['', ''] })).toEqual({ kind: 'robot' });
    expect(readSubmission(fields, { website: '  ', email: 'a@example.com', last_name: 'L' }).kind).toBe('valid');
  });

  // Every problem is named by its field.
  const cases: [string, Record<string, unknown>, Record<string, string>][] = [
    ['nothing', {}, { email: 'is required', last_name: 'is required' }],
    ['blanks', { email: '  ', last_name: '\t' }, { email: 'is required', last_name: 'is required' }],
    ['a bad address', { email: 'ann@', last_name: 'L' }, { email: 'is not a valid e-mail address' }],
    ['an address with CR LF', { email: '"a\r\nb"@example.com', last_name: 'L' }, { email: 'is not a valid e-mail address' }],
    ['an address of 255 characters', { email: `${'a'.repeat(243)}@example.com`, last_name: 'L' }, { email: 'must be at most 254 characters' }],
    ['a name of 256 characters', { email: 'a@example.com', last_name: 'é'.repeat(256) }, { last_name: 'must be at most 255 characters' }],
    ['a custom value of 1001 characters', { email: 'a@example.com', last_name: 'L', 'custom_fields.company': 'x'.repeat(1001) }, { 'custom_fields.company': 'must be at most 1000 characters' }],
    ['a NUL', { email: 'a@example.com', last_name: 'L\u0000' }, { last_name: 'must not contain the NUL character' }],
    ['a name given twice', { email: 'a@example.com', last_name: ['L', 'M'] }, { last_name: 'must be a single value' }],
    ['an object', { email: { $gt: '' }, last_name: 'L' }, { email: 'must be text' }],
    ['an undeclared custom field', { email: 'a@example.com', last_name: 'L', 'custom_fields.vip': 'yes' }, { 'custom_fields.vip': 'is not a field of this form' }],
    ['a contact field the form does not ask for', { email: 'a@example.com', last_name: 'L', status: 'UNSUBSCRIBED', tags: 'x' }, { status: 'is not a field of this form', tags: 'is not a field of this form' }],
    ['a nested custom_fields', { email: 'a@example.com', last_name: 'L', custom_fields: { company: 'x' } }, { custom_fields: 'is not a field of this form' }],
  ];
  it.each(cases)('refuses %s', (_name, values, problems) => {
    expect(problemsOf(values)).toEqual(problems);
  });

  it('a name at its limit is taken', () => {
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(longest).toHaveLength(254);
    expect(readSubmission(fields, { email: longest, last_name: 'é'.repeat(255) }).kind).toBe('valid');
  });

  it('never reads inherited properties as fields', () => {
    const poisoned = readSubmission(fields, JSON.parse('{"email":"a@example.com","last_name":"L","__proto__":{"first_name":"x"}}'));
    expect(poisoned.kind === 'invalid' && [...poisoned.problems]).toEqual([['__proto__', 'is not a field of this form']]);
    expect(problemsOf(Object.create({ email: 'a@example.com', last_name: 'L' }))).toEqual({ email: 'is required', last_name: 'is required' });
  });

  it('names at most 10 undeclared fields, then says how many more, each shortened', () => {
    const values: Record<string, unknown> = { email: 'a@example.com', last_name: 'L' };
    for (let i = 0; i < 1000; i++) values[`x${i}${'y'.repeat(100)}`] = '1';
    const problems = problemsOf(values) as Record<string, string>;
    expect(Object.keys(problems)).toHaveLength(11);
    expect(problems['(990 more)']).toBe('are not fields of this form');
    expect(Math.max(...Object.keys(problems).map((k) => k.length))).toBeLessThanOrEqual(67);
  });

  it('describes the problems in one sentence naming each field', () => {
    const s = readSubmission(fields, {});
    expect(s.kind === 'invalid' && describeProblems(s.problems)).toBe('email is required; last_name is required');
  });

  it('issue 34: with consent words, the box must be ticked, and the words go with the sign-up; without, `consent` is no field', () => {
    const rules = { consentText: 'I agree to <b>news</b>' };
    expect(problemsOf({ email: 'a@example.com', last_name: 'L' }, rules)).toEqual({ consent: 'must be ticked to sign up' });
    expect(problemsOf({ email: 'a@example.com', last_name: 'L', consent: 'no' }, rules)).toEqual({ consent: 'must be ticked to sign up' });
    for (const yes of ['on', 'yes', 'TRUE', '1', true]) {
      expect(readSubmission(fields, { email: 'a@example.com', last_name: 'L', consent: yes }, rules)).toMatchObject({ kind: 'valid', consent: { text: 'I agree to <b>news</b>' } });
    }
    expect(problemsOf({ email: 'a@example.com', last_name: 'L', consent: 'on' })).toEqual({ consent: 'is not a field of this form' });
  });

  it('issue 34: `return_to` is kept when it is an http(s) URL, dropped (not refused) otherwise, and never a contact field', () => {
    const ok = (return_to: unknown) => readSubmission(fields, { email: 'a@example.com', last_name: 'L', return_to });
    expect(ok('https://shop.example/page?a=1#top')).toMatchObject({ kind: 'valid', returnTo: 'https://shop.example/page?a=1', contact: { custom_fields: {} } });
    for (const bad of ['javascript:alert(1)', '//evil.example', 'data:text/html,x', 'https://user:pw@evil.example/', `https://e.example/${'a'.repeat(2000)}`, 42]) {
      expect(ok(bad)).toMatchObject({ kind: 'valid', returnTo: null });
    }
  });
});
