import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/connect.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { findSubscribedPairs, insertDeliveriesForSubscribers } from './deliveries.repo.ts';

export { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.ts';
import type { WebhookEventType } from './event-types.ts';

export interface WebhookEvent {
  accountId: number;
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** An event's id, the same in each endpoint's delivery of it: receivers use it to drop duplicates. */
export function newEventId(): string {
  return `evt_${randomUUID().replace(/-/g, '')}`;
}

/** What a receiver gets as the body of every delivery of one event (the same bytes on each retry). */
export function eventBody(eventId: string, type: string, accountId: number, createdAt: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, type, created_at: toApiTimestamp(createdAt), account_id: accountId, data });
}

// Events per fan-out statement: 4 parameters each stays far under both databases' parameter limits.
const FAN_OUT_CHUNK = 200;

/**
 * One delivery row per (event, active endpoint of its account subscribed to its type), in one
 * INSERT ... SELECT per chunk of events: the events are a derived table joined to the
 * subscriptions, so the database, not a loop, decides who gets what. Plain SQL rather than the
 * query builder: this runs on hot paths (messages sent, opens), where building a query costs
 * about as much as running it. The casts type the derived table's columns on PostgreSQL.
 */
async function fanOut(db: Db, events: readonly WebhookEvent[], now: string): Promise<void> {
  for (let i = 0; i < events.length; i += FAN_OUT_CHUNK) {
    const rows = events.slice(i, i + FAN_OUT_CHUNK).map((event) => {
      const eventId = newEventId();
      return { accountId: event.accountId, eventId, type: event.type, payload: eventBody(eventId, event.type, event.accountId, now, event.data) };
    });
    await insertDeliveriesForSubscribers(db, rows, now);
  }
}

/**
 * Records an event for delivery to the account's subscribed endpoints, in the caller's
 * transaction: a change that rolls back sends nothing, and a committed one is never lost.
 */
export async function enqueueWebhookEvent(db: Db, event: WebhookEvent): Promise<void> {
  await fanOut(db, [event], new Date().toISOString());
}

/**
 * enqueueWebhookEvent for many events in the caller's one transaction. One query first finds
 * which (account, type) pairs have a subscriber at all, so a batch nobody listens to (the usual
 * case: every message the sender records) costs that one indexed lookup and nothing more.
 */
export async function enqueueWebhookEvents(db: Db, events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (events.length === 1) return enqueueWebhookEvent(db, events[0]);
  const accounts = [...new Set(events.map((e) => e.accountId))];
  const types = [...new Set(events.map((e) => e.type))];
  // Plain SQL: this runs for every group of messages the sender records (see fanOut).
  const rows = await findSubscribedPairs(db, accounts, types);
  if (rows.length === 0) return;
  const subscribed = new Set(rows.map((r) => `${r.account_id} ${r.event_type}`));
  await fanOut(
    db,
    events.filter((e) => subscribed.has(`${e.accountId} ${e.type}`)),
    new Date().toISOString(),
  );
}
