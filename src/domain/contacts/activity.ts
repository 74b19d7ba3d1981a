import type { Db } from '../../db/connect.ts';

/**
 * The one place contact changes are announced. Every path that creates a contact, changes its
 * tags or list memberships, or receives an event for it (reference API, list API, bulk import,
 * POST /v1/events, another automation's steps) calls the announcement (AnnounceActivity below,
 * automations/contact-activity.ts's `announceContactActivity`) in the SAME transaction as the
 * change, so:
 * - matching ACTIVE automations start runs (D15) if and only if the change commits, and
 * - contact.* webhook events are enqueued (issue 5 section 3) under the same rule.
 */
export type Activity =
  | { type: 'CONTACT_CREATED'; contactId: number }
  | { type: 'TAG_ADDED' | 'TAG_REMOVED'; contactId: number; tag: string }
  | { type: 'LIST_JOINED'; contactId: number; listId: number }
  | { type: 'EVENT'; contactId: number; event: string; data: Record<string, unknown> };

export interface ContactNotice {
  type: 'contact.created' | 'contact.updated' | 'contact.unsubscribed';
  /** the contact as the API shows it (or, from bulk import, its id, e-mail and the fields given) */
  contact: { id: number; email: string };
}

/** TAG_ADDED / TAG_REMOVED for a contact whose tags went from `before` to `after` (tags compare case-insensitively, D11). */
export function tagActivities(contactId: number, before: readonly string[], after: readonly string[]): Activity[] {
  const had = new Set(before.map((t) => t.toLowerCase()));
  const has = new Set(after.map((t) => t.toLowerCase()));
  return [
    ...after.filter((t) => !had.has(t.toLowerCase())).map((tag) => ({ type: 'TAG_ADDED' as const, contactId, tag })),
    ...before.filter((t) => !has.has(t.toLowerCase())).map((tag) => ({ type: 'TAG_REMOVED' as const, contactId, tag })),
  ];
}

/**
 * The announcement, as contacts/ and consent/ call it: automations/ implements it
 * (`announceContactActivity`, which starts runs and enqueues the webhook events) and the wiring
 * passes it in. A port (issue 29, item 1): automations/ stands above contacts/, lists/ and consent/
 * (its workflows name their fields, lists and tags), so those do not import it.
 */
export type AnnounceActivity = (db: Db, accountId: number, activities: readonly Activity[], notices?: readonly ContactNotice[]) => Promise<unknown>;
