import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { buttonTextColor, fieldMaxLength, formButtonColor, formButtonText, formConfirmRedirectUrl, formConsentText, formFields, formListIds, formRedirectUrl, formSuccessMessage, type FormFieldInput } from './form.ts';
import { newFormUid } from './forms.service.ts';

const email = { name: 'email', label: 'E-mail' };

describe('a form definition (D20)', () => {
  it('keeps the fields in order, trims labels, and makes email required whatever is left out', () => {
    expect(formFields([{ name: 'first_name', label: '  First name ' }, email, { name: 'custom_fields.plan', label: 'Plan', required: true }])).toEqual([
      { name: 'first_name', label: 'First name', required: false },
      { name: 'email', label: 'E-mail', required: true },
      { name: 'custom_fields.plan', label: 'Plan', required: true },
    ]);
  });

  // Each refusal names the field at fault.
  const refused: [string, FormFieldInput[], RegExp][] = [
    ['no fields', [], /^fields must hold 1-20 fields$/],
    ['21 fields', [email, ...Array.from({ length: 20 }, (_, i) => ({ name: `custom_fields.f${i}`, label: 'x' }))], /^fields must hold 1-20/],
    ['no email', [{ name: 'first_name', label: 'Name' }], /^fields must include email$/],
    ['email not required', [{ ...email, required: false }], /^fields\[0\]\.required: the email field is always required$/],
    ['a field twice', [email, { name: 'last_name', label: 'a' }, { name: 'last_name', label: 'b' }], /^fields\[2\]\.name: last_name appears more than once$/],
    ['an unknown contact field', [email, { name: 'phone', label: 'Phone' }], /^fields\[1\]\.name must be email, first_name, last_name or custom_fields/],
    ['a status', [email, { name: 'status', label: 'Status' }], /^fields\[1\]\.name/],
    ['a bare custom_fields', [email, { name: 'custom_fields', label: 'x' }], /^fields\[1\]\.name/],
    ['a custom key starting with a digit', [email, { name: 'custom_fields.1st', label: 'x' }], /^fields\[1\]\.name/],
    ['a custom key with a dot', [email, { name: 'custom_fields.a.b', label: 'x' }], /^fields\[1\]\.name/],
    ['a custom key of 65 characters', [email, { name: `custom_fields.a${'b'.repeat(64)}`, label: 'x' }], /^fields\[1\]\.name/],
    ['a blank label', [{ name: 'email', label: '   ' }], /^fields\[0\]\.label must be 1-200 characters$/],
    ['a label of 201 characters', [{ name: 'email', label: 'é'.repeat(201) }], /^fields\[0\]\.label must be 1-200/],
  ];
  it.each(refused)('refuses %s (400 naming the field)', (_name, fields, message) => {
    expect(() => formFields(fields)).toThrow(ValidationError);
    expect(() => formFields(fields)).toThrow(message);
  });

  it('takes a custom key of 64 characters and a label of 200', () => {
    const key = `a${'b'.repeat(63)}`;
    expect(formFields([{ name: 'email', label: 'x'.repeat(200) }, { name: `custom_fields.${key}`, label: 'y' }])[1].name).toBe(`custom_fields.${key}`);
  });

  it('lists: 1-20 ids, duplicates dropped', () => {
    expect(formListIds([3, 1, 3])).toEqual([3, 1]);
    expect(() => formListIds([])).toThrow(/^list_ids must name 1-20 lists$/);
    expect(() => formListIds(Array.from({ length: 21 }, (_, i) => i + 1))).toThrow(/^list_ids must name 1-20/);
  });

  it('success message: trimmed, blank is none, at most 1000 characters', () => {
    expect(formSuccessMessage('  Thanks!  ')).toBe('Thanks!');
    expect(formSuccessMessage('   ')).toBeNull();
    expect(formSuccessMessage(null)).toBeNull();
    expect(formSuccessMessage(undefined)).toBeUndefined();
    expect(() => formSuccessMessage('x'.repeat(1001))).toThrow(/^success_message must be at most 1000 characters$/);
  });

  it('redirect: an http(s) URL without credentials, blank is none', () => {
    expect(formRedirectUrl('https://example.com/thanks#top')).toBe('https://example.com/thanks');
    expect(formRedirectUrl(' ')).toBeNull();
    expect(formRedirectUrl(undefined)).toBeUndefined();
    for (const bad of ['javascript:alert(1)', '/thanks', 'ftp://example.com/', 'https://user:pw@example.com/', `https://example.com/${'x'.repeat(2000)}`]) {
      expect(() => formRedirectUrl(bad), bad).toThrow(/^redirect_url /);
    }
  });

  it("a submission's limits are the contact fields' own (D11)", () => {
    expect([fieldMaxLength('email'), fieldMaxLength('first_name'), fieldMaxLength('last_name'), fieldMaxLength('custom_fields.x')]).toEqual([254, 255, 255, 1000]);
  });

  it('uids are 128 random bits in base64url, never the same twice', () => {
    const uids = new Set(Array.from({ length: 1000 }, newFormUid));
    expect(uids.size).toBe(1000);
    for (const uid of uids) expect(uid).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('issue 34: button words on one line, at most 60 characters; a colour is # and 3 or 6 hex digits; blank is none', () => {
    expect(formButtonText('  Join\n  us ')).toBe('Join us');
    expect(formButtonText(' ')).toBeNull();
    expect(formButtonText(undefined)).toBeUndefined();
    expect(() => formButtonText('x'.repeat(61))).toThrow(/^button_text must be at most 60 characters$/);
    expect(formButtonColor(' #0B7285 ')).toBe('#0b7285');
    expect(formButtonColor('#fa0')).toBe('#fa0');
    expect(formButtonColor('')).toBeNull();
    for (const bad of ['red', '#12345', '#gggggg', '0b7285', '#0b7285;background:url(x)', 'rgb(1,2,3)']) expect(() => formButtonColor(bad), bad).toThrow(/^button_color must be a hex colour/);
  });

  it('issue 34: the button words are white on a dark colour, black on a light one', () => {
    expect(['#000000', '#1864ab', '#0b7285', '#c92a2a'].map(buttonTextColor)).toEqual(['#ffffff', '#ffffff', '#ffffff', '#ffffff']);
    expect(['#ffffff', '#ffd43b', '#fa0', '#8ce99a'].map(buttonTextColor)).toEqual(['#000000', '#000000', '#000000', '#000000']);
  });

  it('issue 34: consent words at most 500 characters, blank is none; the confirm redirect an http(s) URL', () => {
    expect(formConsentText('  I agree.  ')).toBe('I agree.');
    expect(formConsentText('')).toBeNull();
    expect(() => formConsentText('x'.repeat(501))).toThrow(/^consent_text must be at most 500 characters$/);
    expect(formConfirmRedirectUrl('https://example.com/welcome')).toBe('https://example.com/welcome');
    expect(formConfirmRedirectUrl('')).toBeNull();
    for (const bad of ['javascript:alert(1)', '/welcome', 'https://u:p@example.com/']) expect(() => formConfirmRedirectUrl(bad), bad).toThrow(/^confirm_redirect_url /);
  });
});
