import secureJson from 'secure-json-parse';
import { ValidationError } from '../domain/shared/errors.ts';
import { isObject, stringOr, type FeedbackEvent } from './events.ts';

export type SesPayload =
  /** SNS asks the endpoint to confirm a subscription (or reports an unsubscription): the operator confirms by opening SubscribeURL. */
  | { kind: 'confirmation'; type: string; topicArn: string | null; subscribeUrl: string | null }
  | { kind: 'events'; events: FeedbackEvent[]; withoutMessageId: number };

/** The original Message-ID: SES replaces the header when sending, so `mail.messageId` is SES's own id. */
function originalMessageId(mail: unknown): string {
  if (!isObject(mail)) return '';
  if (Array.isArray(mail.headers)) {
    const header = mail.headers.find((h) => isObject(h) && typeof h.name === 'string' && h.name.toLowerCase() === 'message-id');
    if (isObject(header) && typeof header.value === 'string') return header.value;
  }
  return isObject(mail.commonHeaders) ? stringOr(mail.commonHeaders.messageId, '')! : '';
}

function firstAddress(recipients: unknown): string | undefined {
  return Array.isArray(recipients) && isObject(recipients[0]) ? stringOr(recipients[0].emailAddress) : undefined;
}

/**
 * One SES notification (`notificationType`) or event-publishing record (`eventType`): a Bounce
 * (permanent = hard; transient and undetermined are soft) or a Complaint (except feedback type
 * "not-spam"). Deliveries, opens and the like are skipped.
 */
function sesEvents(message: Record<string, unknown>): FeedbackEvent[] {
  const type = message.notificationType ?? message.eventType;
  const messageId = originalMessageId(message.mail);
  if (type === 'Bounce' && isObject(message.bounce)) {
    const b = message.bounce;
    return [{ kind: 'bounce', messageId, hard: b.bounceType === 'Permanent', email: firstAddress(b.bouncedRecipients), occurredAt: stringOr(b.timestamp) }];
  }
  if (type === 'Complaint' && isObject(message.complaint)) {
    const c = message.complaint;
    if (c.complaintFeedbackType === 'not-spam') return [];
    return [{ kind: 'complaint', messageId, email: firstAddress(c.complainedRecipients), occurredAt: stringOr(c.timestamp) }];
  }
  return [];
}

/**
 * An SNS HTTP(S) delivery: the envelope (`Type`: SubscriptionConfirmation, UnsubscribeConfirmation
 * or Notification, whose `Message` is the SES JSON as a string), or the SES JSON itself when the
 * subscription uses raw message delivery.
 */
export function parseSes(body: unknown): SesPayload {
  if (!isObject(body)) throw new ValidationError('body must be an SNS message or an SES event object');
  if (body.Type === 'SubscriptionConfirmation' || body.Type === 'UnsubscribeConfirmation') {
    return { kind: 'confirmation', type: body.Type, topicArn: stringOr(body.TopicArn) ?? null, subscribeUrl: stringOr(body.SubscribeURL) ?? null };
  }
  let message: unknown = body;
  if (body.Type === 'Notification') {
    if (typeof body.Message !== 'string') throw new ValidationError('Message must be a string (the SES event as JSON)');
    try {
      message = secureJson.parse(body.Message, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      // Anything else published to the topic (a test message): nothing to apply.
      return { kind: 'events', events: [], withoutMessageId: 0 };
    }
  } else if (body.notificationType === undefined && body.eventType === undefined) {
    throw new ValidationError('body must be an SNS message (Type) or an SES event (notificationType or eventType)');
  }
  const events = isObject(message) ? sesEvents(message) : [];
  return { kind: 'events', events, withoutMessageId: events.filter((e) => e.messageId === '').length };
}
