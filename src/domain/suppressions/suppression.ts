import { createHash } from 'node:crypto';
import validator from 'validator';
import type { SuppressionRow } from '../../db/schema.ts';
import { emailDomain, emailKey, normaliseEmail } from '../shared/email-address.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { toApiTimestamp } from '../shared/time.ts';

/** D19: a suppression as the API shows it, its sources, and the one rule for what a value may be. Pure. */
export const SUPPRESSION_SOURCES = ['MANUAL', 'BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'ERASURE'] as const;
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];
export const SUPPRESSION_LIMITS = { reasonMax: 1000, valueMax: 254 } as const;

export interface Suppression {
  id: number;
  value: string;
  reason: string | null;
  source: SuppressionSource;
  created_at: string;
}

/** Why a recipient was not sent (D19): on the ledger of a campaign and an automation's step log alike. */
export const SUPPRESSED_REASON = "not sent: the address is on the account's suppression list";

export const suppressionNotFound = () => new NotFoundError('SUPPRESSION_NOT_FOUND', 'suppression not found');

export function toSuppression(row: SuppressionRow): Suppression {
  return { id: row.id, value: row.value, reason: row.reason, source: row.source as SuppressionSource, created_at: toApiTimestamp(row.created_at) };
}

/**
 * An address (normalised as contacts' are, D11) or `@domain` (a hostname with a dot, lower-cased):
 * what the list stores and matches on; anything else is 400 naming `field`.
 */
export function suppressionValue(raw: string, field = 'value'): string {
  const value = emailKey(raw);
  if (value.startsWith('@')) {
    const domain = value.slice(1);
    if (domain.length > 253 || !validator.isFQDN(domain, { require_tld: true, allow_underscores: false })) {
      throw new ValidationError(`${field} must be an e-mail address or @ followed by a domain such as @example.com`);
    }
    return value;
  }
  return normaliseEmail(value, field);
}

/** The domain suppression (`@domain`) that covers an address: the value suppressionValue stores for it. */
export function domainSuppressionValue(email: string): string {
  return `@${emailDomain(email)}`;
}

/**
 * D21: what an erasure keeps of an address: `sha256:` and the hex SHA-256 of the lower-cased
 * address, so the address is never stored again yet can be recognised when it comes back.
 */
export function erasureValue(email: string): string {
  return `sha256:${createHash('sha256').update(emailKey(email)).digest('hex')}`;
}

/** D21: why an address that came back after an erasure is on the list (source ERASURE). */
/** D26.6: the `warnings` entry of a contact created with an erased address. */
export const ERASED_ADDRESS_WARNING = 'this address was erased before (D21): it is on the suppression list by that erasure and will not be mailed until the person confirms a subscription by a form with double opt-in';

export const ERASED_RETURN_REASON = 'the personal data of this address was erased; it is mailed again only once the person confirms a subscription by a form with double opt-in';

export function suppressionReason(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const reason = value.trim();
  if ([...reason].length > SUPPRESSION_LIMITS.reasonMax) throw new ValidationError(`reason must be at most ${SUPPRESSION_LIMITS.reasonMax} characters`);
  return reason || null;
}
