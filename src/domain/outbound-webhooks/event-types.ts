/* Pure (no database, no Node): the dashboard's webhooks page imports it too. */

/** The events the service emits to outbound webhooks (issue 5, section 3). */
export const WEBHOOK_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'campaign.sending',
  'campaign.sent',
  'campaign.failed',
  'automation.completed',
  // D25.5: transactional messages
  'message.sent',
  'message.failed',
  'message.bounced',
  'message.suppressed',
  'message.opened',
  'message.clicked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
