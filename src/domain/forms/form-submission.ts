import type { CustomValue } from '../contacts/contact-fields.ts';
import { emailKey, isValidEmail } from '../shared/email-address.ts';
import { CONSENT_FIELD, customFieldKey, fieldMaxLength, HONEYPOT_FIELD, RETURN_TO_FIELD, returnToUrl, type FormField } from './form.ts';

/**
 * D20: what a submission to `/f/{uid}` says, read against the form's own fields. Pure: the values
 * arrive as one flat object, from a form-encoded body (text, or a list when a name repeats) or a
 * JSON one (any JSON value).
 */
export type Submission =
  /** the honeypot was filled: answered as a success, nothing stored */
  | { kind: 'robot' }
  /** field name -> what is wrong with it (`is required`), in the form's field order, unknown names last */
  | { kind: 'invalid'; problems: Map<string, string> }
  | { kind: 'valid'; contact: SubmittedContact; consent: GivenConsent | null; returnTo: string | null };

/** Issue 34: the consent checkbox ticked, with its words as the form showed them (stored in the consent record). */
export interface GivenConsent {
  text: string;
}

/** What the form asks beyond its fields: the consent checkbox's words (null: no checkbox). */
export interface SubmissionRules {
  consentText?: string | null;
}

/** What a ticked checkbox posts: a browser sends `on` (or the box's value); a script may send `true`. */
const TICKED = new Set(['on', 'yes', 'true', '1']);
const ticked = (value: unknown) => value === true || (typeof value === 'string' && TICKED.has(value.trim().toLowerCase()));

/** A new contact's fields, as given (a submission never changes an existing contact). */
export interface SubmittedContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  custom_fields: Record<string, CustomValue>;
}

/** At most this many names the form does not declare are listed in one answer (the body limit bounds the rest). */
const UNKNOWN_NAMES_SHOWN = 10;

const hasNul = (text: string) => text.includes('\u0000');

/** A filled honeypot: any value but nothing or blank text. */
function filled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return typeof value !== 'string' || value.trim() !== '';
}

/** A name the form does not declare, shortened for the answer (it can be as long as the body). */
const shown = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}...` : name);

export function readSubmission(fields: FormField[], values: Record<string, unknown>, rules: SubmissionRules = {}): Submission {
  const valueOf = (name: string) => (Object.hasOwn(values, name) ? values[name] : undefined);
  if (filled(valueOf(HONEYPOT_FIELD))) return { kind: 'robot' };
  const problems = new Map<string, string>();
  const contact: SubmittedContact = { email: '', first_name: null, last_name: null, custom_fields: {} };

  for (const field of fields) {
    const raw = valueOf(field.name);
    const key = customFieldKey(field.name);
    let value: string | number | boolean | null = null;
    if (Array.isArray(raw)) problems.set(field.name, 'must be a single value');
    else if (typeof raw === 'string') value = raw.trim() === '' ? null : raw.trim();
    // JSON may give a custom field a number or a boolean (D11 custom values); contact fields are text.
    else if (key !== null && ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean')) value = raw;
    else if (raw !== undefined && raw !== null) problems.set(field.name, 'must be text');
    if (problems.has(field.name)) continue;

    if (value === null) {
      if (field.required) problems.set(field.name, 'is required');
      continue;
    }
    if (typeof value === 'string') {
      const max = fieldMaxLength(field.name);
      if ([...value].length > max) problems.set(field.name, `must be at most ${max} characters`);
      else if (hasNul(value)) problems.set(field.name, 'must not contain the NUL character');
      else if (field.name === 'email' && !isValidEmail(emailKey(value))) problems.set(field.name, 'is not a valid e-mail address');
      if (problems.has(field.name)) continue;
    }
    if (key !== null) contact.custom_fields[key] = value;
    else if (field.name === 'email') contact.email = emailKey(value as string);
    else contact[field.name as 'first_name' | 'last_name'] = value as string;
  }

  // Issue 34: a form with consent words takes no sign-up without the box ticked; one without has no such field.
  const consentText = rules.consentText ?? null;
  if (consentText !== null && !ticked(valueOf(CONSENT_FIELD))) problems.set(CONSENT_FIELD, 'must be ticked to sign up');

  // No submission can write a field the form does not ask for, a custom field above all.
  const declared = new Set([...fields.map((f) => f.name), RETURN_TO_FIELD, ...(consentText !== null ? [CONSENT_FIELD] : [])]);
  const unknown = Object.keys(values).filter((name) => name !== HONEYPOT_FIELD && !declared.has(name));
  for (const name of unknown.slice(0, UNKNOWN_NAMES_SHOWN)) problems.set(shown(name), 'is not a field of this form');
  if (unknown.length > UNKNOWN_NAMES_SHOWN) problems.set(`(${unknown.length - UNKNOWN_NAMES_SHOWN} more)`, 'are not fields of this form');

  if (problems.size > 0) return { kind: 'invalid', problems };
  return { kind: 'valid', contact, consent: consentText !== null ? { text: consentText } : null, returnTo: returnToUrl(valueOf(RETURN_TO_FIELD)) };
}

/** The problems as one sentence naming each field (the 400's message). */
export function describeProblems(problems: Map<string, string>): string {
  return [...problems].map(([name, problem]) => `${name} ${problem}`).join('; ');
}
