import { Type } from '@sinclair/typebox';
import { documentedAs, ErrorBody } from './common.ts';

/**
 * D17.8: the links inside mails answer a GIF, a redirect, an HTML page or nothing, not JSON. The
 * validator and serializer see `Any` (each handler sends its own bytes); the document shows the real
 * media type.
 */
export const GifResponse = documentedAs(Type.Any(), {
  description: 'The 1x1 transparent GIF (Cache-Control: no-store)',
  content: { 'image/gif': { schema: { type: 'string', contentMediaType: 'image/gif' } } },
});

export const RedirectResponse = documentedAs(Type.Any(), {
  description: "A 302 redirect to the link the message held",
  type: 'null',
  headers: { Location: { type: 'string', format: 'uri', description: 'the link as written in the campaign' } },
});

/** Issue 34: a confirmed double opt-in sent on to the form's page for it. */
export const ConfirmRedirect = documentedAs(Type.Any(), {
  description: "Confirmed: a 303 to the confirm_redirect_url of the form the person signed up through",
  type: 'null',
  headers: { Location: { type: 'string', format: 'uri', description: "the form's confirm_redirect_url" } },
});

export const HtmlResponse = (description: string) =>
  documentedAs(Type.Any(), { description, content: { 'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } } } });


/** What every link answers besides its own page: a link no longer (or never) valid, and the per-address budget. */
export const trackingErrors = {
  // Serialized by the error handler, which answers a browser (Accept: text/html) with a page (D26.5).
  404: documentedAs(Type.Ref(ErrorBody), {
    description: "The link is not valid (NOT_FOUND); a browser (Accept naming text/html) gets D26.5's page instead",
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } },
      'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } },
    },
  }),
  429: Type.Ref(ErrorBody, { description: 'Too many requests from this client address (RATE_LIMIT_EXCEEDED), with Retry-After' }),
};

/**
 * D26.10: a body the handler reads itself (as text: signatures cover the exact bytes, RFC 8058's
 * one-click is a form), documented with the media types it comes in. The validator sees `Any`.
 */
export const DocumentedBody = (description: string, content: Record<string, object>) =>
  documentedAs(Type.Any(), { description, content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) });

const form = (properties: Record<string, object>) => ({ type: 'object', properties });

/** POST /u/{token}: RFC 8058's one-click, or the page's own form. */
export const UnsubscribeFormBody = DocumentedBody("RFC 8058's `List-Unsubscribe=One-Click` (mail clients), or the page's form with `action`", {
  'application/x-www-form-urlencoded': form({
    'List-Unsubscribe': { type: 'string', enum: ['One-Click'], description: 'RFC 8058 one-click: unsubscribes and answers an empty 200' },
    action: { type: 'string', enum: ['unsubscribe', 'resubscribe'], description: "the page's buttons; none is `unsubscribe`" },
  }),
});

/** POST /c/{token}: the confirmation page's button. */
export const ConfirmFormBody = DocumentedBody("The confirmation page's form (any body confirms)", {
  'application/x-www-form-urlencoded': form({ action: { type: 'string', enum: ['confirm'] } }),
});

/** POST /p/{token}: the preference centre's forms. */
export const PreferenceFormBody = DocumentedBody("The preference centre's forms", {
  'application/x-www-form-urlencoded': form({
    action: { type: 'string', enum: ['update', 'unsubscribe_all', 'export', 'erase'] },
    list_ids: { type: 'array', items: { type: 'integer' }, description: 'for `update`: the public lists chosen (the field repeated)' },
    confirm: { type: 'string', enum: ['yes'], description: 'for `erase`: the confirmation' },
  }),
});

const sesNotification = {
  type: 'object',
  description: 'An SNS message: a Notification whose Message is the SES event JSON, a SubscriptionConfirmation, or (raw message delivery) the SES event itself',
  properties: {
    Type: { type: 'string', enum: ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] },
    MessageId: { type: 'string' },
    TopicArn: { type: 'string' },
    Message: { type: 'string', description: 'the SES event as JSON text: notificationType or eventType Bounce or Complaint, with mail.headers' },
    SubscribeURL: { type: 'string', format: 'uri' },
    Timestamp: { type: 'string', format: 'date-time' },
  },
};

/** POST /webhooks/ses: what SNS posts (with Content-Type text/plain). */
export const SesBody = DocumentedBody('What Amazon SNS posts for an SES event (SNS sends it as text/plain)', {
  'text/plain': sesNotification,
  'application/json': sesNotification,
});

/** POST /webhooks/sendgrid: SendGrid's Event Webhook. */
export const SendgridBody = DocumentedBody("SendGrid's Event Webhook: an array of events", {
  'application/json': {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        event: { type: 'string', description: 'bounce, dropped and spamreport are read; the rest are skipped' },
        email: { type: 'string' },
        'smtp-id': { type: 'string', description: 'the Message-ID of our message' },
        type: { type: 'string', description: 'for bounce: "bounce" (hard) or "blocked" (soft)' },
        reason: { type: 'string' },
        timestamp: { type: 'integer', description: 'Unix seconds' },
      },
    },
  },
});

/** POST /webhooks/generic: our own signed format. */
export const GenericFeedbackBody = DocumentedBody('The generic format: 1-1000 events', {
  'application/json': {
    type: 'object',
    required: ['events'],
    properties: {
      events: {
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        items: {
          type: 'object',
          required: ['type', 'message_id'],
          properties: {
            type: { type: 'string', enum: ['bounce', 'complaint'] },
            message_id: { type: 'string', minLength: 1, maxLength: 998, description: "the message's Message-ID header" },
            email: { type: 'string' },
            hard: { type: 'boolean', default: true, description: 'bounces: permanent (default) or not' },
            occurred_at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  },
});

/** The unsubscribe POST's answer: the page for the page's form, nothing for RFC 8058's one-click. */
export const UnsubscribeAnswer = documentedAs(Type.Any(), {
  description: "The confirmation page for the page's form; an empty text/plain body for RFC 8058 one-click",
  content: {
    'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } },
    'text/plain': { schema: { type: 'string', maxLength: 0 } },
  },
});
