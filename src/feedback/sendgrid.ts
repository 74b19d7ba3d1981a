import { verify, type KeyObject } from 'node:crypto';
import { ValidationError } from '../domain/shared/errors.ts';
import { isObject, stringOr, type FeedbackEvent } from './events.ts';

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';


/** Signed Event Webhook: ECDSA (P-256, SHA-256, DER signature in base64) over timestamp + raw body. */
export function checkSendgridSignature(key: KeyObject, signature: string | undefined, timestamp: string | undefined, rawBody: string): boolean {
  if (!signature || !timestamp) return false;
  try {
    return verify('sha256', Buffer.from(timestamp + rawBody), key, Buffer.from(signature, 'base64'));
  } catch {
    return false; // a signature that is not DER at all
  }
}

/**
 * The Event Webhook posts an array of events. Bounces: `bounce` (`type` "bounce" is permanent,
 * "blocked" is not) and `dropped` because the address bounced before; complaints: `spamreport`.
 * `smtp-id` carries our Message-ID (`sg_message_id` is SendGrid's own). Other events are skipped.
 */
export function parseSendgrid(body: unknown): FeedbackEvent[] {
  if (!Array.isArray(body)) throw new ValidationError('body must be an array of SendGrid events');
  const events: FeedbackEvent[] = [];
  for (const e of body) {
    if (!isObject(e)) continue;
    const base = {
      messageId: stringOr(e['smtp-id'], '')!,
      email: stringOr(e.email),
      occurredAt: typeof e.timestamp === 'number' && Number.isFinite(e.timestamp) ? new Date(e.timestamp * 1000).toISOString() : undefined,
    };
    if (e.event === 'bounce') events.push({ kind: 'bounce', hard: e.type !== 'blocked', ...base });
    else if (e.event === 'dropped' && /bounce/i.test(stringOr(e.reason, '')!)) events.push({ kind: 'bounce', hard: true, ...base });
    else if (e.event === 'spamreport') events.push({ kind: 'complaint', ...base });
  }
  return events;
}
