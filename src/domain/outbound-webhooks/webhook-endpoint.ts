/**
 * An outbound webhook endpoint's limits and the statuses of its deliveries: pure, so the routes'
 * schemas state them without importing the service or the repo (issue 29, item 1).
 */

export const WEBHOOK_LIMITS = { urlMax: 2048, descriptionMax: 1000 } as const;

/** The event type of `POST /api/v1/webhooks/{id}/test`: sent to that endpoint only, whatever it subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
