import { Secret, TOTP } from 'otpauth';
import { sameSecret } from './session-token.ts';

/**
 * D24.6: time-based one-time passwords (RFC 6238) with the parameters every authenticator app
 * defaults to: SHA-1, 6 digits, 30-second steps; a code of the step before or after the current
 * one is accepted too (clock drift). Pure: no clock of its own, the caller passes the time.
 */
export const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Steps of drift accepted either way. */
export const TOTP_DRIFT_STEPS = 1;
export const TOTP_ISSUER = 'Sendwell';

const totpOf = (secret: string, label = '') => new TOTP({ issuer: TOTP_ISSUER, label, secret: Secret.fromBase32(secret), ...TOTP_PARAMS });

/** A new shared secret: 20 random bytes (RFC 4226's recommended 160 bits), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URL an authenticator app reads (as a QR code): issuer Sendwell, labelled with the e-mail. */
export function otpauthUrl(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/** The 30-second step `atMs` falls in (RFC 6238's T). */
export function stepAt(atMs: number): number {
  return Math.floor(atMs / 1000 / TOTP_PARAMS.period);
}

/** The code of one step (for tests and nothing else in the service). */
export function codeForStep(secret: string, step: number): string {
  return totpOf(secret).generate({ timestamp: step * TOTP_PARAMS.period * 1000 });
}

/**
 * The steps within the drift window around `atMs` whose code is `code`, oldest first (usually one;
 * two steps may share a code by chance). The caller takes the first one not yet used, so a code is
 * accepted once and never one of a step at or before the last accepted one.
 */
export function matchingSteps(secret: string, code: string, atMs: number): number[] {
  const given = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(given)) return [];
  const now = stepAt(atMs);
  const steps: number[] = [];
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    if (sameSecret(given, codeForStep(secret, step))) steps.push(step);
  }
  return steps;
}
