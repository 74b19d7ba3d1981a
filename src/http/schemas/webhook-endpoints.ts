import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES } from '../../domain/outbound-webhooks/event-types.ts';
import { DELIVERY_STATUSES, TEST_EVENT_TYPE, WEBHOOK_LIMITS } from '../../domain/outbound-webhooks/webhook-endpoint.ts';
import { documentedAs, NullableString, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.ts';

const EventType = StringEnum(WEBHOOK_EVENT_TYPES);

export const WebhookEndpoint = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    event_types: Type.Array(EventType),
    description: NullableString(),
    is_active: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint' },
);

export const WebhookEndpointWithSecret = Type.Composite([
  WebhookEndpoint,
  Type.Object({ secret: Type.String({ description: 'signs every delivery (Sendwell-Signature); shown only in this response' }) }),
]);

// Event types are checked by the service, so an unknown one is named in the 400's message; the document lists them (D17.8).
const fields = {
  url: Type.String({ minLength: 1, maxLength: WEBHOOK_LIMITS.urlMax, description: 'http:// or https:// URL the events are POSTed to' }),
  event_types: documentedAs(Type.Array(Type.String(), { minItems: 1, maxItems: 50 }), Type.Array(EventType, { minItems: 1, maxItems: 50 })),
  description: Type.Optional(NullableString({ maxLength: WEBHOOK_LIMITS.descriptionMax })),
  is_active: Type.Optional(Type.Boolean({ description: 'an inactive endpoint gets nothing new; its pending deliveries wait' })),
};

export const CreateWebhookBody = Type.Object(fields);
export const UpdateWebhookBody = Type.Object({ ...fields, url: Type.Optional(fields.url), event_types: Type.Optional(fields.event_types) });

export const DeliveryQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(documentedAs(Type.String(), StringEnum(DELIVERY_STATUSES))),
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.Integer({ description: 'also sent as the Sendwell-Delivery header' }),
    event_id: Type.String({ description: "the body's id: the same in every endpoint's delivery of the event" }),
    event_type: StringEnum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE], { description: `an event type, or ${TEST_EVENT_TYPE}` }),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer(),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'when a PENDING delivery is tried next' }),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: NullableString(),
    created_at: Timestamp,
    updated_at: Timestamp,
    delivered_at: NullableTimestamp,
    payload: Type.Unknown({ description: 'the JSON body sent: { id, type, created_at, account_id, data }' }),
    attempt_log: Type.Array(
      Type.Object({
        attempted_at: Timestamp,
        status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no answer came (timeout, network error, refused destination)' }),
        error: NullableString(),
        duration_ms: Type.Integer(),
        response_excerpt: NullableString({ description: 'the start of the answer body' }),
      }),
    ),
  },
  { $id: 'WebhookDelivery' },
);
