import validator from 'validator';
import { ValidationError } from '../shared/errors.ts';
import { CUSTOM_FIELD_KEY } from './custom-field-key.ts';

/** D11's limits, shared by the HTTP schemas (for documentation) and the normalisers (for every path). */
export const CONTACT_LIMITS = {
  emailMax: 254,
  nameMax: 255,
  phoneMax: 32,
  tagsMax: 100,
  tagMax: 64,
  customFieldsMax: 50,
  customStringMax: 1000,
} as const;

export const CONTACT_STATUSES = ['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

const codePoints = (s: string) => [...s].length;
const PHONE = /^[0-9 +\-().]*$/;

export type CustomValue = string | number | boolean | null;
export type CustomFields = Record<string, CustomValue>;

/**
 * Addresses of the plainest form (ASCII letters, digits and `_+-` in dot-separated local parts of
 * at most 64 characters; LDH labels with a letter TLD), which validator.isEmail accepts every time,
 * as the unit test checks on generated samples. isEmail took about 5 µs an address, most of a bulk
 * import's CPU per contact; this test takes well under 1 µs. Anything else still goes to isEmail.
 */
const PLAIN_EMAIL = /^(?=[^@]{1,64}@)[a-z0-9_+-]+(?:\.[a-z0-9_+-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Issue 14 M1: validator.isEmail lets a quoted local part hold anything, CR LF included
 * (`"x\r\ny"@example.com`). Such an address can never be written into an SMTP envelope or a header
 * (nodemailer refuses it, and a campaign counted that as a transport failure), so control characters
 * (C0, DEL, C1), the line and paragraph separators and the `<` `>` that delimit an address are
 * refused in every address field. Other quoted local parts stay valid.
 */
const UNSAFE_IN_ADDRESS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029<>]/;

export function isValidEmail(email: string): boolean {
  if (PLAIN_EMAIL.test(email)) return true;
  return !UNSAFE_IN_ADDRESS.test(email) && validator.isEmail(email, { require_tld: true, allow_ip_domain: false, allow_display_name: false });
}

/** D11: trimmed, lower-cased, at most 254 characters, valid with a dotted domain. The one e-mail normaliser. */
export function normaliseEmail(raw: string, field = 'email'): string {
  const email = raw.trim().toLowerCase();
  if (email.length === 0) throw new ValidationError(`${field} is required`);
  if (codePoints(email) > CONTACT_LIMITS.emailMax) throw new ValidationError(`${field} must be at most ${CONTACT_LIMITS.emailMax} characters`);
  if (UNSAFE_IN_ADDRESS.test(email)) throw new ValidationError(`${field} must not contain control characters, < or >`);
  if (!isValidEmail(email)) {
    throw new ValidationError(`${field} is not a valid e-mail address`);
  }
  return email;
}

export function normaliseName(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (codePoints(value) > CONTACT_LIMITS.nameMax) throw new ValidationError(`${field} must be at most ${CONTACT_LIMITS.nameMax} characters`);
  return value;
}

export function normalisePhone(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (codePoints(value) > CONTACT_LIMITS.phoneMax || !PHONE.test(value)) {
    throw new ValidationError(`phone must be at most ${CONTACT_LIMITS.phoneMax} characters of digits, spaces and + - ( ) .`);
  }
  return value;
}

/** D11: trimmed, 1-64 characters each, at most 100, duplicates removed case-insensitively keeping the first spelling. */
export function normaliseTags(tags: string[], field = 'tags'): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const length = codePoints(tag);
    if (length < 1 || length > CONTACT_LIMITS.tagMax) throw new ValidationError(`${field}: each tag must be 1-${CONTACT_LIMITS.tagMax} characters after trimming`);
    const key = tag.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  if (out.length > CONTACT_LIMITS.tagsMax) throw new ValidationError(`${field}: at most ${CONTACT_LIMITS.tagsMax} tags`);
  return out;
}

/**
 * D11: a flat object of at most 50 keys; values string (<= 1000 characters), number, boolean or null.
 * Merged onto `current`: a null value removes the key (at creation, `current` is empty so nulls are dropped).
 */
export function mergeCustomFields(current: CustomFields, changes: Record<string, unknown>, field = 'custom_fields'): CustomFields {
  const merged: CustomFields = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (!CUSTOM_FIELD_KEY.test(key)) throw new ValidationError(`${field}: key "${key}" must match ^[A-Za-z][A-Za-z0-9_]{0,63}$`);
    if (value === null) {
      delete merged[key];
      continue;
    }
    if (typeof value === 'string') {
      if (codePoints(value) > CONTACT_LIMITS.customStringMax) throw new ValidationError(`${field}.${key} must be at most ${CONTACT_LIMITS.customStringMax} characters`);
    } else if (!(typeof value === 'number' && Number.isFinite(value)) && typeof value !== 'boolean') {
      throw new ValidationError(`${field}.${key} must be a string, number, boolean or null`);
    }
    merged[key] = value as CustomValue;
  }
  if (Object.keys(merged).length > CONTACT_LIMITS.customFieldsMax) throw new ValidationError(`${field}: at most ${CONTACT_LIMITS.customFieldsMax} keys`);
  return merged;
}
