import type { Db } from '../../db/connect.ts';
import { enqueueWebhookEvents, type WebhookEvent } from '../outbound-webhooks/enqueue.ts';
import { writeJson } from '../shared/json.ts';
import type { TriggerType } from './automation-definition.ts';

/**
 * The one place contact changes are announced. Every path that creates a contact, changes its
 * tags or list memberships, or receives an event for it (reference API, list API, bulk import,
 * POST /v1/events, another automation's steps) calls `announceContactActivity` in the SAME
 * transaction as the change, so:
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

function keyOf(a: Activity): string {
  switch (a.type) {
    case 'EVENT':
      return a.event;
    case 'TAG_ADDED':
    case 'TAG_REMOVED':
      return a.tag.toLowerCase();
    case 'LIST_JOINED':
      return String(a.listId);
    case 'CONTACT_CREATED':
      return '';
  }
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

// Rows per INSERT: 11 parameters each stays well under SQLite's bound-parameter limit.
const RUN_INSERT_CHUNK = 1000;

/**
 * Starts a run of every matching active automation for each activity, in one INSERT per chunk.
 * A workflow without re-entry that already has an ACTIVE run for the contact is left alone by the
 * unique partial index (ON CONFLICT DO NOTHING), so concurrent triggers cannot start it twice.
 * When the account has no active automation for these trigger types, this costs one indexed read.
 * Returns how many runs started.
 */
export async function startMatchingRuns(db: Db, accountId: number, activities: readonly Activity[], now: string): Promise<number> {
  if (activities.length === 0) return 0;
  const types = [...new Set(activities.map((a) => a.type))] as TriggerType[];
  const automations = await db
    .selectFrom('automations')
    .select(['id', 'trigger_type', 'trigger_key', 'allow_reentry'])
    .where('account_id', '=', accountId)
    .where('is_active', '=', 1)
    .where('trigger_type', 'in', types)
    .execute();
  if (automations.length === 0) return 0;
  const byTrigger = new Map<string, typeof automations>();
  for (const a of automations) {
    const k = `${a.trigger_type} ${a.trigger_key}`;
    byTrigger.set(k, [...(byTrigger.get(k) ?? []), a]);
  }
  const rows = [];
  for (const activity of activities) {
    for (const a of byTrigger.get(`${activity.type} ${keyOf(activity)}`) ?? []) {
      rows.push({
        account_id: accountId,
        automation_id: a.id,
        contact_id: activity.contactId,
        status: 'ACTIVE',
        step_index: 0,
        single: a.allow_reentry === 1 ? 0 : 1,
        trigger_type: activity.type,
        event_data: activity.type === 'EVENT' ? writeJson(activity.data) : null,
        due_at: now,
        created_at: now,
        updated_at: now,
      });
    }
  }
  let started = 0;
  for (let i = 0; i < rows.length; i += RUN_INSERT_CHUNK) {
    const result = await db.insertInto('automation_runs').values(rows.slice(i, i + RUN_INSERT_CHUNK)).onConflict((oc) => oc.doNothing()).executeTakeFirst();
    started += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return started;
}

/** Starts matching runs and enqueues the contact.* webhook events, in the caller's transaction. */
export async function announceContactActivity(db: Db, accountId: number, activities: readonly Activity[], notices: readonly ContactNotice[] = []): Promise<void> {
  const now = new Date().toISOString();
  await startMatchingRuns(db, accountId, activities, now);
  if (notices.length > 0) {
    await enqueueWebhookEvents(
      db,
      notices.map((n): WebhookEvent => ({ accountId, type: n.type, data: { contact: n.contact } })),
    );
  }
}
