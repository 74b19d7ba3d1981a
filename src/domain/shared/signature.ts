import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Sendwell's one body signature, `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
 * (Stripe's shape): outbound webhook deliveries are signed with it, and the generic provider
 * feedback format is checked with it. Both sides use this module so the two cannot drift apart.
 */
export function signBody(secret: string, rawBody: string, t: number): string {
  return `t=${t},v1=${hmac(secret, t, rawBody)}`;
}

export type SignatureCheck = 'valid' | 'invalid' | 'expired' | 'absent';

/** A signed request older (or newer) than this is refused, so a captured one cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Checks a `signBody` header; several `v1` are accepted, so a sender may sign with an old and a new secret while rotating. */
export function checkBodySignature(secret: string, header: string | undefined, rawBody: string, nowMs: number): SignatureCheck {
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
  const expected = hmac(secret, t, rawBody);
  if (!given.some((v) => safeEqual(v, expected))) return 'invalid';
  return Math.abs(nowMs / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS ? 'expired' : 'valid';
}

/** Constant-time string equality (digests first, so lengths leak nothing either). */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

function hmac(secret: string, t: number | string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
}
