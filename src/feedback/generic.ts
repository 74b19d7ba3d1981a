import { createHmac } from 'node:crypto';
import { ValidationError } from '../domain/shared/errors.ts';
import { safeEqual } from './auth.ts';
import { isObject, type FeedbackEvent } from './events.ts';

export const GENERIC_SIGNATURE_HEADER = 'x-sendwell-signature';
/** A signed request older (or newer) than this is refused, so a captured one cannot be replayed later. */
export const GENERIC_TOLERANCE_SECONDS = 300;
export const GENERIC_MAX_EVENTS = 1000;

export type SignatureCheck = 'valid' | 'invalid' | 'expired' | 'absent';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>` (several v1 allowed, for rotation). */
export function signGeneric(secret: string, rawBody: string, t: number): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex')}`;
}

export function checkGenericSignature(secret: string, header: string | undefined, rawBody: string, nowMs: number): SignatureCheck {
  if (header === undefined) return 'absent';
  let t: string | undefined;
  const given: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') t = value;
    else if (name === 'v1') given.push(value.toLowerCase());
  }
  if (t === undefined || !/^\d{1,12}$/.test(t) || given.length === 0) return 'invalid';
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  if (!given.some((v) => safeEqual(v, expected))) return 'invalid';
  return Math.abs(nowMs / 1000 - Number(t)) > GENERIC_TOLERANCE_SECONDS ? 'expired' : 'valid';
}

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
