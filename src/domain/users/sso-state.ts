import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * D24.7: what one SSO sign-in must remember between `/oidc/start` and `/oidc/callback`: the
 * `state` and `nonce` it sent and its PKCE `code_verifier`. Kept in the browser, in a short-lived
 * httpOnly cookie sealed with AES-256-GCM under a key derived from SECRET: opaque (the verifier is
 * not readable) and tamper-proof, and it needs no table and works on any instance behind a load
 * balancer. It holds its own expiry, so a copied cookie is useless after it.
 */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** How long a started SSO sign-in may take at the provider (the cookie's Max-Age too). */
export const SSO_STATE_TTL_MS = 10 * 60 * 1000;

const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'sendwell', 'oidc sign-in state cookie', 32));
}

export function sealPending(secret: string, pending: PendingSignIn, now = Date.now()): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const plain = JSON.stringify({ s: pending.state, n: pending.nonce, v: pending.codeVerifier, e: now + SSO_STATE_TTL_MS });
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The pending sign-in if the cookie is intact and not expired, else null. */
export function openPending(secret: string, value: string | undefined, now = Date.now()): PendingSignIn | null {
  if (!value || value.length > 2000) return null;
  const raw = Buffer.from(value, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    const { s, n, v, e } = JSON.parse(plain) as Record<string, unknown>;
    if (typeof s !== 'string' || typeof n !== 'string' || typeof v !== 'string' || typeof e !== 'number' || e <= now) return null;
    return { state: s, nonce: n, codeVerifier: v };
  } catch {
    return null;
  }
}
