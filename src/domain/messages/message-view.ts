import type { WebhookEvent, WebhookEventType } from '../outbound-webhooks/enqueue.ts';
import { readJson } from '../shared/json.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { MessageStatus } from './message.ts';

/** D25.1: a message as the API answers it. */
export interface Message {
  id: number;
  status: MessageStatus;
  to: string;
  from_email: string;
  subject: string;
  tags: string[];
  metadata: Record<string, string>;
  scheduled_at: string | null;
  created_at: string;
  sent_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  error: string | null;
}

interface ListedRow {
  id: number;
  status: string;
  to_email: string;
  from_email: string;
  subject: string;
  tags: string | object;
  metadata: string | object;
  scheduled_at: string | Date | null;
  created_at: string | Date;
  sent_at: string | Date | null;
  opened_at: string | Date | null;
  clicked_at: string | Date | null;
  error: string | null;
}

export function toMessage(row: ListedRow): Message {
  return {
    id: row.id,
    status: row.status as MessageStatus,
    to: row.to_email,
    from_email: row.from_email,
    subject: row.subject,
    tags: readJson(row.tags, []),
    metadata: readJson(row.metadata, {}),
    scheduled_at: toApiTimestamp(row.scheduled_at),
    created_at: toApiTimestamp(row.created_at),
    sent_at: toApiTimestamp(row.sent_at),
    opened_at: toApiTimestamp(row.opened_at),
    clicked_at: toApiTimestamp(row.clicked_at),
    error: row.error,
  };
}

/**
 * D25.5: message.*, `{ message_id, to, tags, metadata, ...details }`. `message_id` is the
 * message's id in the API (what `POST /messages` answered), so a receiver matches events to sends.
 */
export function messageEvent(
  type: Extract<WebhookEventType, `message.${string}`>,
  m: { id: number; account_id: number; to_email: string; tags: string | object; metadata: string | object },
  details: Record<string, unknown> = {},
): WebhookEvent {
  return { accountId: m.account_id, type, data: { message_id: m.id, to: m.to_email, tags: readJson(m.tags, []), metadata: readJson(m.metadata, {}), ...details } };
}
