import { ValidationError } from '../domain/shared/errors.ts';
import { isObject, type FeedbackEvent } from './events.ts';

/** The generic format is signed like our outbound deliveries (domain/shared/signature.ts), keyed by the feedback secret. */
export const GENERIC_SIGNATURE_HEADER = 'x-sendwell-signature';
export const GENERIC_MAX_EVENTS = 1000;

/**
 * The generic format: `{ "events": [{ "type": "bounce" | "complaint", "message_id": "<...>",
 * "email"?: string, "hard"?: boolean (bounces; default true), "occurred_at"?: ISO 8601 }] }`.
 * Being ours, it is validated strictly: a malformed event is 400 naming it.
 */
export function parseGeneric(body: unknown): FeedbackEvent[] {
  if (!isObject(body) || !Array.isArray(body.events)) throw new ValidationError('body must be an object with an array "events"');
  const events = body.events;
  if (events.length === 0 || events.length > GENERIC_MAX_EVENTS) throw new ValidationError(`events must hold 1 to ${GENERIC_MAX_EVENTS} events`);
  return events.map((e, i): FeedbackEvent => {
    const field = (name: string) => `events[${i}].${name}`;
    if (!isObject(e)) throw new ValidationError(`events[${i}] must be an object`);
    if (e.type !== 'bounce' && e.type !== 'complaint') throw new ValidationError(`${field('type')} must be "bounce" or "complaint"`);
    if (typeof e.message_id !== 'string' || e.message_id.length === 0 || e.message_id.length > 998) {
      throw new ValidationError(`${field('message_id')} must be the message's Message-ID header (1-998 characters)`);
    }
    if (e.email !== undefined && typeof e.email !== 'string') throw new ValidationError(`${field('email')} must be a string`);
    if (e.hard !== undefined && typeof e.hard !== 'boolean') throw new ValidationError(`${field('hard')} must be a boolean`);
    if (e.occurred_at !== undefined && (typeof e.occurred_at !== 'string' || Number.isNaN(Date.parse(e.occurred_at)))) {
      throw new ValidationError(`${field('occurred_at')} must be an ISO 8601 date-time`);
    }
    return {
      kind: e.type,
      messageId: e.message_id,
      email: e.email as string | undefined,
      ...(e.type === 'bounce' ? { hard: (e.hard as boolean | undefined) ?? true } : {}),
      occurredAt: e.occurred_at as string | undefined,
    };
  });
}
