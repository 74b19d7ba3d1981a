import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag } from './columns.ts';

/** Outbound webhooks: endpoints, the events each takes, deliveries and their attempts. */

/** An account's outbound webhook endpoint; `secret` signs every delivery (shown once, at creation). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  secret: string;
  description: string | null;
  is_active: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The event types an endpoint is subscribed to, one row each. */
export interface WebhookEndpointEventsTable {
  endpoint_id: number;
  event_type: string;
}

/** One event for one endpoint: the delivery worker's outbox. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  payload: string;
  /** PENDING, DELIVERED or FAILED */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  locked_until: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  delivered_at: NullableTimestamp;
}

/** The delivery log: every attempt of a delivery. */
export interface WebhookDeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
}
