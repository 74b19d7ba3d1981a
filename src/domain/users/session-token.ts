import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a dashboard sign-in lasts. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** 32 random bytes: the cookie holds this; the database holds only its hash (`sessionIdOf`). */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored session id: SHA-256 of the token, so reading the sessions table opens no session. */
export function sessionIdOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The per-session CSRF token the dashboard echoes in X-CSRF-Token on every state-changing request. */
export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares two secrets in time independent of where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
