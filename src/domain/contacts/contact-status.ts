import { CONTACT_STATUSES, type ContactStatus } from './contact-fields.ts';

/**
 * D17.5: the one rule for a contact's status, whatever the change comes from. Each kind of
 * change has the status it leads to and the statuses it may leave; from any other status it
 * changes nothing. Every write of `contacts.status` goes through `statusChange()` (the repo puts
 * `from` in the UPDATE's WHERE, so concurrent writers cannot break it):
 * - COMPLAINED is left only by an explicit PUT (D11);
 * - a bounce never overwrites UNSUBSCRIBED or COMPLAINED;
 * - an unsubscribe never overwrites BOUNCED or COMPLAINED;
 * - the unsubscribe page's resubscribe (D17.1) lifts only UNSUBSCRIBED;
 * - an import never makes anyone SUBSCRIBED again (D17.6), but honours a file's stronger status.
 * It was written four ways: an SMTP hard bounce set BOUNCED over anything, a provider's bounce
 * over UNSUBSCRIBED.
 */
export type StatusChange =
  /** `PUT /contacts/{email}` with `status` (D11): the account says so, from any status */
  | 'PUT_SUBSCRIBED'
  | 'PUT_UNSUBSCRIBED'
  /** the unsubscribe link, RFC 8058 one-click, the unsubscribe page's form */
  | 'UNSUBSCRIBE'
  /** the unsubscribe page's "subscribe again" (D17.1) */
  | 'RESUBSCRIBE'
  /** a 5xx at SMTP time, or a hard bounce a provider reports */
  | 'HARD_BOUNCE'
  /** a spam report */
  | 'COMPLAINT'
  /** a CSV import naming a status for a contact that exists (D17.6) */
  | 'IMPORT_UNSUBSCRIBED'
  | 'IMPORT_BOUNCED'
  | 'IMPORT_COMPLAINED';

const ANY = CONTACT_STATUSES;

export const STATUS_RULES: Record<StatusChange, { to: ContactStatus; from: readonly ContactStatus[] }> = {
  PUT_SUBSCRIBED: { to: 'SUBSCRIBED', from: ANY },
  PUT_UNSUBSCRIBED: { to: 'UNSUBSCRIBED', from: ANY },
  UNSUBSCRIBE: { to: 'UNSUBSCRIBED', from: ['SUBSCRIBED'] },
  RESUBSCRIBE: { to: 'SUBSCRIBED', from: ['UNSUBSCRIBED'] },
  HARD_BOUNCE: { to: 'BOUNCED', from: ['SUBSCRIBED'] },
  COMPLAINT: { to: 'COMPLAINED', from: ['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED'] },
  IMPORT_UNSUBSCRIBED: { to: 'UNSUBSCRIBED', from: ['SUBSCRIBED'] },
  IMPORT_BOUNCED: { to: 'BOUNCED', from: ['SUBSCRIBED'] },
  IMPORT_COMPLAINED: { to: 'COMPLAINED', from: ['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED'] },
};

/** The status and the guard for one change: write `to` only where the status is one of `from`. */
export function statusChange(change: StatusChange): { to: ContactStatus; from: readonly ContactStatus[] } {
  return STATUS_RULES[change];
}

/** The status after `change` from `current`: the new one, or `current` when the rule does not allow it. */
export function statusAfter(current: ContactStatus, change: StatusChange): ContactStatus {
  const rule = STATUS_RULES[change];
  return rule.from.includes(current) ? rule.to : current;
}

/** The import change a file's status asks for; SUBSCRIBED (or nothing) asks for none. */
export function importChangeFor(status: ContactStatus): StatusChange | null {
  switch (status) {
    case 'UNSUBSCRIBED':
      return 'IMPORT_UNSUBSCRIBED';
    case 'BOUNCED':
      return 'IMPORT_BOUNCED';
    case 'COMPLAINED':
      return 'IMPORT_COMPLAINED';
    default:
      return null;
  }
}

/**
 * Issue 28 M3: whether mail other than a confirmation may go to the contact. D11 and D20 keep a
 * contact that a double opt-in created SUBSCRIBED (no status of its own: the spec's four stay
 * four), so its `awaiting_confirmation` flag is what holds it back until the person confirms.
 * recipients.repo's audience and segments.repo's `status` say the same in SQL.
 */
export function mailable(contact: { status: string; awaiting_confirmation: number }): boolean {
  return contact.status === 'SUBSCRIBED' && contact.awaiting_confirmation === 0;
}
