import type { MembershipStatus } from '../../db/schema.ts';

export type { MembershipStatus } from '../../db/schema.ts';
export const MEMBERSHIP_STATUSES = ['SUBSCRIBED', 'UNCONFIRMED', 'UNSUBSCRIBED'] as const satisfies readonly MembershipStatus[];

/**
 * D20: the one rule for a list membership's status, whatever the change comes from, written as
 * contact-status.ts is for a contact's (D17.5). Each kind of change has the status it leads to,
 * the status a new membership gets (null: it makes none) and the statuses it may leave; from any
 * other status it changes nothing. The repo puts `from` in the UPDATE's WHERE, so concurrent
 * writers cannot break the rule, and keeps `lists.contact_count` (SUBSCRIBED memberships only) in
 * step in the same transaction.
 * - nothing ever makes a SUBSCRIBED membership UNCONFIRMED (a second sign-up never downgrades);
 * - a person's own unsubscribe is undone only by the person (a form, the preference centre, a
 *   confirmation), never by an API add, an import or an automation (D17.6's rule for contacts);
 * - an import and an automation step only make memberships that did not exist.
 */
export type MembershipChange =
  /** the API adds without double opt-in (D20: "the caller vouches"), or the dashboard */
  | 'ADD'
  /** a bulk import (D17.6) or an automation's ADD_TO_LIST step: new memberships only */
  | 'ADD_NEW_ONLY'
  /** double opt-in asked for on a `double` list (a form, or the API with `double_opt_in`) */
  | 'REQUEST_CONFIRMATION'
  /** an automation's ADD_TO_LIST step on a `double` list (issue 28): new memberships only, waiting for the person */
  | 'REQUEST_CONFIRMATION_NEW_ONLY'
  /** the person asks, on a single opt-in list (a form) or in the preference centre */
  | 'PERSON_SUBSCRIBE'
  /** `POST /c/{token}` */
  | 'CONFIRM'
  /** the preference centre: a public list left unchecked */
  | 'UNSUBSCRIBE';

export interface MembershipRule {
  to: MembershipStatus;
  /** what a contact that is not a member becomes; null: the change makes no membership */
  create: MembershipStatus | null;
  from: readonly MembershipStatus[];
}

export const MEMBERSHIP_RULES: Record<MembershipChange, MembershipRule> = {
  ADD: { to: 'SUBSCRIBED', create: 'SUBSCRIBED', from: ['UNCONFIRMED'] },
  ADD_NEW_ONLY: { to: 'SUBSCRIBED', create: 'SUBSCRIBED', from: [] },
  REQUEST_CONFIRMATION: { to: 'UNCONFIRMED', create: 'UNCONFIRMED', from: ['UNSUBSCRIBED'] },
  REQUEST_CONFIRMATION_NEW_ONLY: { to: 'UNCONFIRMED', create: 'UNCONFIRMED', from: [] },
  PERSON_SUBSCRIBE: { to: 'SUBSCRIBED', create: 'SUBSCRIBED', from: ['UNCONFIRMED', 'UNSUBSCRIBED'] },
  CONFIRM: { to: 'SUBSCRIBED', create: null, from: ['UNCONFIRMED'] },
  UNSUBSCRIBE: { to: 'UNSUBSCRIBED', create: null, from: ['SUBSCRIBED', 'UNCONFIRMED'] },
};

/** The membership's status after `change` from `current` (null: not a member), as the repo writes it. */
export function membershipAfter(current: MembershipStatus | null, change: MembershipChange): MembershipStatus | null {
  const rule = MEMBERSHIP_RULES[change];
  if (current === null) return rule.create;
  return rule.from.includes(current) ? rule.to : current;
}

/** How `lists.contact_count` moves when a membership goes from `before` to `after` (null: none). */
export function countDelta(before: MembershipStatus | null, after: MembershipStatus | null): number {
  return (after === 'SUBSCRIBED' ? 1 : 0) - (before === 'SUBSCRIBED' ? 1 : 0);
}

/**
 * D20: what a subscription asks of one list: double opt-in applies only where it was asked for
 * AND the list is a `double` one; otherwise a person's request (a form) subscribes at once, and
 * the API or an import adds as the account's word.
 */
export function subscriptionChange(source: 'FORM' | 'API' | 'IMPORT', doubleOptIn: boolean, listOptIn: 'single' | 'double'): MembershipChange {
  if (doubleOptIn && listOptIn === 'double') return 'REQUEST_CONFIRMATION';
  if (source === 'FORM') return 'PERSON_SUBSCRIBE';
  return source === 'IMPORT' ? 'ADD_NEW_ONLY' : 'ADD';
}
