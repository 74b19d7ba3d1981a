import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import type { FeedbackProvider } from '../../feedback/events.ts';
import { parseGeneric } from '../../feedback/generic.ts';
import { parseSendgrid } from '../../feedback/sendgrid.ts';
import { parseSes } from '../../feedback/ses.ts';
import type { ApplyResult } from '../../feedback/provider-feedback.service.ts';
import { ApiError } from '../errors.ts';
import { parseJsonBody } from '../json-body.ts';
import { defineRoute, read, type TypedRequest } from '../route.ts';
import { ErrorBody, Read } from '../schemas/common.ts';
import { GenericFeedbackBody, SendgridBody, SesBody } from '../schemas/tracking.ts';

// Not 'Webhooks', which names the outbound endpoints: these are the providers' reports coming in.
const tags = ['Provider feedback'];
/** How long a provider should wait before redelivering events about messages still in flight. */
const RETRY_AFTER_SECONDS = 60;

const TokenQuery = Type.Object({
  token: Type.Optional(Type.String({ description: "this install's webhook token, as printed by `sendwell webhooks url --provider <name>`" })),
});

const Result = Type.Object({
  received: Type.Integer({ description: 'bounce and complaint events found in the payload (other events are skipped)' }),
  matched: Type.Integer({ description: 'events naming a message this install sent; forged or unknown Message-IDs are not matched' }),
  recorded: Type.Integer({ description: 'events that changed something; a replayed event changes nothing' }),
});

const error = (description: string) => Type.Ref(ErrorBody, { description });
const responses = {
  200: Read(Result),
  400: error('The body is not JSON or not in the format (INVALID_REQUEST)'),
  401: error('No valid webhook token or signature (UNAUTHORIZED)'),
  413: error('The body is too large (PAYLOAD_TOO_LARGE)'),
  500: error('Server failure (INTERNAL_ERROR)'),
  503: error('An event names a message whose sending is not recorded yet; redeliver after Retry-After seconds (RETRY_LATER)'),
};

const COMMON = `Authenticated by this install's webhook token in the URL (\`sendwell webhooks url --provider ...\` prints it), compared in constant time; missing or wrong: 401.
Each event is matched to its recipient by the Message-ID our message carried (signed, so a forged one matches nothing) and counted once in the campaign's statistics: a bounce in \`bounced\` (within \`sent\`, D13), a complaint in \`complained\`. A hard (permanent) bounce makes the contact BOUNCED, a complaint COMPLAINED (D11); a soft bounce is counted for the message but leaves the contact as it is. A replayed event changes nothing.
When an event names a message that is being sent but not yet recorded as sent, the answer is 503 with Retry-After so the provider redelivers (the rest of the batch is applied; applying it again changes nothing).`;

/** Issue item 7: bounces and complaints that arrive after sending. Public (providers carry no API key); each request authenticates itself. */
export function providerFeedbackRoutes({ providerFeedback: service }: Pick<HttpParts, 'providerFeedback'>) {

  /** Authenticates before anything is read from the body (D8's order), then parses the raw text the signatures cover. */
  const authenticated = (provider: FeedbackProvider, req: TypedRequest<{ summary: string; tags: string[]; querystring: typeof TokenQuery; response: typeof responses }>) => {
    const rawBody = typeof req.body === 'string' ? req.body : '';
    const auth = service.authenticate(provider, { token: req.query.token, headers: req.headers, rawBody });
    if (!auth.ok) throw new ApiError(401, 'UNAUTHORIZED', auth.reason);
    return parseJsonBody(rawBody);
  };

  const answer = (result: ApplyResult, reply: { header(name: string, value: number): unknown }) => {
    if (result.pending > 0) {
      reply.header('Retry-After', RETRY_AFTER_SECONDS);
      throw new ApiError(503, 'RETRY_LATER', `${result.pending} event(s) name a message not recorded as sent yet; redeliver in ${RETRY_AFTER_SECONDS} s`);
    }
    return read({ received: result.received, matched: result.matched, recorded: result.recorded });
  };

  const base = { permissions: 'public' as const, acceptAnyBody: true };
  return {
    ses: defineRoute({
      ...base,
      schema: {
        summary: 'Amazon SES bounces and complaints (SNS HTTPS subscription)',
        description: `${COMMON}
The body is what SNS posts (any content type): a \`Notification\` whose \`Message\` is the SES event JSON (\`notificationType\` or \`eventType\` Bounce or Complaint), or the SES JSON itself with raw message delivery. The Message-ID is read from the original headers (\`mail.headers\`, then \`mail.commonHeaders.messageId\`), so enable "include original headers". SNS signs with a certificate fetched from a URL, which cannot be checked offline, so the token is required. A \`SubscriptionConfirmation\` is answered 200 and its SubscribeURL logged for the operator to open; it is never fetched.`,
        tags,
        body: SesBody,
        querystring: TokenQuery,
        response: responses,
      },
      handler: async (req, reply) => {
        const payload = parseSes(authenticated('ses', req));
        if (payload.kind === 'confirmation') {
          req.log.warn({ type: payload.type, topic_arn: payload.topicArn, subscribe_url: payload.subscribeUrl }, 'SNS subscription message: open subscribe_url to confirm the subscription');
          return read({ received: 0, matched: 0, recorded: 0 });
        }
        if (payload.withoutMessageId > 0) req.log.warn('SES event without the original Message-ID header: enable "include original headers" for the SNS notifications');
        return answer(await service.apply(payload.events), reply);
      },
    }),

    sendgrid: defineRoute({
      ...base,
      schema: {
        summary: 'SendGrid bounces and complaints (Event Webhook)',
        description: `${COMMON}
The body is SendGrid's array of events: \`bounce\` (type "bounce" is hard, "blocked" soft), \`dropped\` with a bounce reason (hard) and \`spamreport\` (complaint); the rest are skipped. The Message-ID is \`smtp-id\`. With SENDGRID_WEBHOOK_PUBLIC_KEY set (the Signed Event Webhook's verification key, base64), a request whose X-Twilio-Email-Event-Webhook-Signature verifies over X-Twilio-Email-Event-Webhook-Timestamp plus the raw body needs no token.`,
        tags,
        body: SendgridBody,
        querystring: TokenQuery,
        response: responses,
      },
      handler: async (req, reply) => answer(await service.apply(parseSendgrid(authenticated('sendgrid', req))), reply),
    }),

    generic: defineRoute({
      ...base,
      schema: {
        summary: 'Bounces and complaints in the generic signed format',
        description: `${COMMON}
Body: \`{ "events": [{ "type": "bounce" | "complaint", "message_id": "<...>", "email"?: string, "hard"?: boolean (default true), "occurred_at"?: ISO 8601 }] }\` (1-1000 events). Instead of the token, the request may carry \`X-Sendwell-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(token, t + "." + raw body)>\`, accepted within 5 minutes of t.`,
        tags,
        body: GenericFeedbackBody,
        querystring: TokenQuery,
        response: responses,
      },
      handler: async (req, reply) => answer(await service.apply(parseGeneric(authenticated('generic', req))), reply),
    }),
  };
}
