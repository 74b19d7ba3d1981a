import type { CampaignRow } from '../../db/schema.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { WebhookEvent, WebhookEventType } from './enqueue.ts';

/** One message of a campaign, as the email.* events describe it. */
export interface MessageRef {
  accountId: number;
  campaignId: number;
  /** null once the contact has been deleted */
  contactId: number | null;
  email: string;
  messageId: string | null;
}

/** email.*: `{ campaign_id, contact_id, email, message_id, ...details }`. */
export function emailEvent(type: Extract<WebhookEventType, `email.${string}`>, m: MessageRef, details: Record<string, unknown> = {}): WebhookEvent {
  return { accountId: m.accountId, type, data: { campaign_id: m.campaignId, contact_id: m.contactId, email: m.email, message_id: m.messageId, ...details } };
}

/** campaign.*: the campaign's id, name, new status and counts, as the row now stands. */
export function campaignEvent(type: Extract<WebhookEventType, `campaign.${string}`>, c: CampaignRow): WebhookEvent {
  return {
    accountId: c.account_id,
    type,
    data: {
      campaign_id: c.id,
      name: c.name,
      status: c.status,
      total_recipients: Number(c.total_recipients),
      sent_at: toApiTimestamp(c.sent_at),
      error: c.error,
    },
  };
}
