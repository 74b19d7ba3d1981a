import { ValidationError } from '../shared/errors.ts';
import { CUSTOM_FIELD_KEY } from './custom-field-key.ts';
import { EMAIL_MAX } from '../shared/email-address.ts';

/** D11's limits, shared by the HTTP schemas (for documentation) and the normalisers (for every path). */
export const CONTACT_LIMITS = {
  emailMax: EMAIL_MAX,
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
