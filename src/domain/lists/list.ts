import type { ListOptIn, ListRow } from '../../db/schema.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { boundedText, nameWithKey } from '../shared/names.ts';
import { toApiTimestamp } from '../shared/time.ts';

/**
 * A list as the API shows it (D12), its row mapper, its limits and its name rule: pure, so the
 * lists service, the contacts service and the bulk import (which creates lists by name, D17.6)
 * share them without importing one another (issue 15).
 */
export const LIST_LIMITS = { nameMax: 255, descriptionMax: 1000, emailsPerAdd: 1000 } as const;

/**
 * D20, issue 28 M2: a list's own confirmation words (`confirmation_subject`, `confirmation_text`):
 * their limits, and the one placeholder the text must hold, `{{ confirm_url }}` (spaces inside
 * the braces optional), which consent/confirmation-mail.ts replaces with the confirmation link.
 */
export const CONFIRM_URL_PLACEHOLDER = '{{ confirm_url }}';
export const CONFIRM_URL_PATTERN = /\{\{\s*confirm_url\s*\}\}/g;

export const CONFIRMATION_LIMITS = { subjectMax: 200, textMax: 5000 } as const;

/** Whether a list's own text holds the link's placeholder. */
export const holdsConfirmUrl = (text: string): boolean => new RegExp(CONFIRM_URL_PATTERN.source).test(text);

export interface ContactList {
  id: number;
  name: string;
  description: string | null;
  is_active: boolean;
  /** D20: SUBSCRIBED memberships only */
  contact_count: number;
  /** D20 */
  opt_in: ListOptIn;
  is_public: boolean;
  confirmation_subject: string | null;
  confirmation_text: string | null;
  /** issue 28 M2: what the list's own subject and text are sent from (a verified sending domain's address) */
  confirmation_from_email: string | null;
  created_at: string;
  updated_at: string;
}

export interface ListInput {
  name?: string;
  description?: string | null;
  is_active?: boolean;
  opt_in?: ListOptIn;
  is_public?: boolean;
  confirmation_subject?: string | null;
  confirmation_text?: string | null;
  confirmation_from_email?: string | null;
}

export const LIST_OPT_INS = ['single', 'double'] as const satisfies readonly ListOptIn[];

export const listNotFound = () => new NotFoundError('LIST_NOT_FOUND', 'list not found');

export function toList(row: ListRow): ContactList {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    is_active: row.is_active === 1,
    contact_count: Number(row.contact_count),
    opt_in: row.opt_in,
    is_public: row.is_public === 1,
    confirmation_subject: row.confirmation_subject,
    confirmation_text: row.confirmation_text,
    confirmation_from_email: row.confirmation_from_email,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The name trimmed and its unique key (D12: names are unique per account ignoring case), or 400. */
export const listName = (raw: string, field = 'name') => nameWithKey(raw, LIST_LIMITS.nameMax, field);

export const listDescription = (value: string | null | undefined) => boundedText(value, LIST_LIMITS.descriptionMax);

/**
 * D20: a list's own confirmation subject: one line (it becomes a header) of 1-200 characters, or
 * null (blank too) for the default.
 */
export function confirmationSubject(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const subject = value.trim();
  if (subject === '') return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(subject)) throw new ValidationError('confirmation_subject must be one line of text, without control characters');
  if ([...subject].length > CONFIRMATION_LIMITS.subjectMax) throw new ValidationError(`confirmation_subject must be at most ${CONFIRMATION_LIMITS.subjectMax} characters`);
  return subject;
}

/** D20: a list's own confirmation text: plain text that holds the link's placeholder, or null (blank too) for the default. */
export function confirmationText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const text = value.replace(/\r\n?/g, '\n').trim();
  if (text === '') return null;
  if ([...text].length > CONFIRMATION_LIMITS.textMax) throw new ValidationError(`confirmation_text must be at most ${CONFIRMATION_LIMITS.textMax} characters`);
  if (!holdsConfirmUrl(text)) throw new ValidationError(`confirmation_text must hold ${CONFIRM_URL_PLACEHOLDER}, where the confirmation link goes`);
  return text;
}

/**
 * Issue 28 M2: a list's own confirmation words are a mail the account writes to people who have
 * not subscribed yet, so setting them (a subject, a text or the address they go from; clearing
 * needs nothing) takes `campaigns.send`, as mailing people does; `lists.write` and
 * `contacts.write` alone mailed "Security alert: your mailbox will be closed" to any address.
 */
export function setsOwnConfirmation(input: ListInput): boolean {
  const set = (v: string | null | undefined) => typeof v === 'string' && v.trim() !== '';
  return set(input.confirmation_subject) || set(input.confirmation_text) || set(input.confirmation_from_email);
}

export const ownConfirmationNeedsSend = () =>
  new ForbiddenError('PERMISSION_DENIED', "this API key lacks the permission campaigns.send, which a list's own confirmation subject, text or sender needs");

/** The address a list's own confirmation goes from, normalised as every address is, or null (blank too) for none. */
export function confirmationFromEmail(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  // The same rule as a campaign's from_email (D11): a sender address must be writable into a header.
  return value.trim() === '' ? null : normaliseEmail(value, 'confirmation_from_email');
}

/** How many holders a refusal names before it says how many more there are. */
const HOLDERS_NAMED = 10;

/** D26.1: 409 LIST_IN_USE, naming what holds the list. */
export function listInUse(listName: string, action: 'deleted' | 'made private', holders: string[]): InvalidStateError {
  const named = holders.slice(0, HOLDERS_NAMED).join(', ');
  const more = holders.length > HOLDERS_NAMED ? ` and ${holders.length - HOLDERS_NAMED} more` : '';
  return new InvalidStateError(`list "${listName}" cannot be ${action} while ${named}${more} use${holders.length === 1 ? 's' : ''} it: take it out of them first (or let the campaigns finish)`, 'LIST_IN_USE');
}
