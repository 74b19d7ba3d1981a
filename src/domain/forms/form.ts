import type { FormRow } from '../../db/schema.ts';
import { CONTACT_LIMITS } from '../contacts/contact-fields.ts';
import { CUSTOM_FIELD_KEY } from '../contacts/custom-field-key.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { cleanHttpUrl } from '../shared/http-url.ts';
import { readJson } from '../shared/json.ts';
import { boundedText, nameWithKey } from '../shared/names.ts';
import { toApiTimestamp } from '../shared/time.ts';

/**
 * D20: a sign-up form as the API shows it (without its HTML, which the HTTP layer adds), its
 * limits and the rules for what it may hold. Pure (no Node), so the dashboard's form builder
 * offers what the server takes from this same file.
 */
export const FORM_LIMITS = {
  nameMax: 255,
  labelMax: 200,
  fieldsMax: 20,
  listsMax: 20,
  successMessageMax: 1000,
  redirectUrlMax: 2000,
  buttonTextMax: 60,
  /** what a consent record keeps of the words (CONSENT_LIMITS.statementMax on main) */
  consentTextMax: 500,
  /** a `return_to` longer than this is not shown (a visitor's page address, not ours to store) */
  returnToMax: 2000,
} as const;

/** The button's words when the form sets none. */
export const DEFAULT_BUTTON_TEXT = 'Subscribe';

/** `#rgb` or `#rrggbb`: a colour written the one way every page, mail and embedding site reads. */
export const BUTTON_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The consent checkbox's name in a submission (issue 34): never a contact field, so it can never be stored as one. */
export const CONSENT_FIELD = 'consent';
/** Where the visitor came from, given by the embedding page (issue 34): shown as a link on the thank-you page, never followed by itself. */
export const RETURN_TO_FIELD = 'return_to';

/** The contact fields a form may ask for; custom fields are `custom_fields.<key>` (D11's keys). */
export const STANDARD_FORM_FIELDS = ['email', 'first_name', 'last_name'] as const;
export type StandardFormField = (typeof STANDARD_FORM_FIELDS)[number];
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';

/** The honeypot (D20): a field no person fills, so whatever fills it is a robot. Never a contact field. */
export const HONEYPOT_FIELD = 'website';

export interface FormField {
  name: string;
  label: string;
  required: boolean;
}

export interface FormFieldInput {
  name: string;
  label: string;
  required?: boolean;
}

export interface Form {
  id: number;
  uid: string;
  name: string;
  list_ids: number[];
  fields: FormField[];
  success_message: string | null;
  redirect_url: string | null;
  button_text: string | null;
  button_color: string | null;
  consent_text: string | null;
  confirm_redirect_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface FormInput {
  name?: string;
  list_ids?: number[];
  fields?: FormFieldInput[];
  success_message?: string | null;
  redirect_url?: string | null;
  button_text?: string | null;
  button_color?: string | null;
  consent_text?: string | null;
  confirm_redirect_url?: string | null;
}

export const formNotFound = () => new NotFoundError('FORM_NOT_FOUND', 'form not found');

export function toForm(row: FormRow): Form {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    list_ids: readJson<number[]>(row.list_ids, []),
    fields: readJson<FormField[]>(row.fields, []),
    success_message: row.success_message,
    redirect_url: row.redirect_url,
    button_text: row.button_text ?? null,
    button_color: row.button_color ?? null,
    consent_text: row.consent_text ?? null,
    confirm_redirect_url: row.confirm_redirect_url ?? null,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The D11 key of a `custom_fields.<key>` field name, else null. */
export function customFieldKey(name: string): string | null {
  if (!name.startsWith(CUSTOM_FIELD_PREFIX)) return null;
  const key = name.slice(CUSTOM_FIELD_PREFIX.length);
  return CUSTOM_FIELD_KEY.test(key) ? key : null;
}

const isStandard = (name: string): name is StandardFormField => (STANDARD_FORM_FIELDS as readonly string[]).includes(name);

/** The longest value a submission may give the field: the contact field's own limit (D11). */
export function fieldMaxLength(name: string): number {
  if (name === 'email') return CONTACT_LIMITS.emailMax;
  if (isStandard(name)) return CONTACT_LIMITS.nameMax;
  return CONTACT_LIMITS.customStringMax;
}

export const formName = (raw: string) => nameWithKey(raw, FORM_LIMITS.nameMax).name;

/**
 * The fields checked and normalised, in the order given: each names a contact field once, has a
 * label, and email is among them and required (a sign-up without an address signs no one up).
 */
export function formFields(raw: FormFieldInput[]): FormField[] {
  if (raw.length < 1 || raw.length > FORM_LIMITS.fieldsMax) throw new ValidationError(`fields must hold 1-${FORM_LIMITS.fieldsMax} fields`);
  const seen = new Set<string>();
  const fields = raw.map((field, i) => {
    const at = `fields[${i}]`;
    if (!isStandard(field.name) && customFieldKey(field.name) === null) {
      throw new ValidationError(`${at}.name must be email, first_name, last_name or custom_fields.<key>, the key a letter then up to 63 letters, digits or _`);
    }
    if (seen.has(field.name)) throw new ValidationError(`${at}.name: ${field.name} appears more than once`);
    seen.add(field.name);
    const label = field.label.trim();
    if (label.length === 0 || [...label].length > FORM_LIMITS.labelMax) throw new ValidationError(`${at}.label must be 1-${FORM_LIMITS.labelMax} characters`);
    if (field.name === 'email' && field.required === false) throw new ValidationError(`${at}.required: the email field is always required`);
    return { name: field.name, label, required: field.required ?? field.name === 'email' };
  });
  if (!seen.has('email')) throw new ValidationError('fields must include email');
  return fields;
}

/** 1-20 list ids, duplicates dropped; whether each is a public list of the account is the service's to check. */
export function formListIds(raw: number[]): number[] {
  const ids = [...new Set(raw)];
  if (ids.length < 1 || ids.length > FORM_LIMITS.listsMax) throw new ValidationError(`list_ids must name 1-${FORM_LIMITS.listsMax} lists`);
  return ids;
}

/** Blank is none (the default message is shown). */
export function formSuccessMessage(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const text = raw.trim();
  return text === '' ? null : (boundedText(text, FORM_LIMITS.successMessageMax, 'success_message') as string);
}

/** Where a person goes after signing up; blank is none (the success message is shown instead). */
export function formRedirectUrl(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null || raw.trim() === '') return raw === undefined ? undefined : null;
  return cleanHttpUrl(raw, 'redirect_url', FORM_LIMITS.redirectUrlMax);
}

/** Blank text is none: null. Else trimmed and at most `max` characters, with no NUL (it is shown on pages). */
function optionalText(raw: string | null | undefined, max: number, field: string): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const text = raw.trim();
  if (text === '') return null;
  if (text.includes('\u0000')) throw new ValidationError(`${field} must not contain the NUL character`);
  return boundedText(text, max, field) as string;
}

/** The button's words; blank is none (Subscribe). One line: a line break is a space. */
export const formButtonText = (raw: string | null | undefined) => optionalText(raw?.replace(/\s+/g, ' '), FORM_LIMITS.buttonTextMax, 'button_text');

/** The button's colour, `#rgb` or `#rrggbb`, stored lower-case; blank is none (the page's own blue). */
export function formButtonColor(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null || raw.trim() === '') return raw === undefined ? undefined : null;
  const colour = raw.trim();
  if (!BUTTON_COLOR.test(colour)) throw new ValidationError('button_color must be a hex colour: # and 3 or 6 hex digits, like #0b7285');
  return colour.toLowerCase();
}

/** The consent checkbox's words as the marketer writes them; blank is none (no checkbox). */
export const formConsentText = (raw: string | null | undefined) => optionalText(raw, FORM_LIMITS.consentTextMax, 'consent_text');

/** Where a person who confirmed by mail is sent; blank is none (the confirmation page is shown). */
export function formConfirmRedirectUrl(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null || raw.trim() === '') return raw === undefined ? undefined : null;
  return cleanHttpUrl(raw, 'confirm_redirect_url', FORM_LIMITS.redirectUrlMax);
}

/** The words on a coloured button: black or white, whichever reads better on it (WCAG relative luminance). */
export function buttonTextColor(colour: string): '#000000' | '#ffffff' {
  const hex = colour.length === 4 ? [...colour.slice(1)].map((c) => c + c).join('') : colour.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white (1.05 / (L + 0.05)) beats contrast with black ((L + 0.05) / 0.05) below L = 0.179.
  return luminance > 0.179 ? '#000000' : '#ffffff';
}

/**
 * A `return_to` (or a Referer) the thank-you page may link to: an absolute http(s) URL with a host,
 * no credentials, of bounded length; anything else is null, never an error (the visitor did
 * nothing wrong when the embedding page gave a bad one). Only ever shown as a link the person
 * chooses to follow: never a redirect.
 */
export function returnToUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  try {
    return cleanHttpUrl(raw, RETURN_TO_FIELD, FORM_LIMITS.returnToMax);
  } catch {
    return null;
  }
}
