import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookProvider } from './events.ts';

/**
 * The per-install webhook secret: derived from SECRET, so it needs no storage and changes with it.
 * It is the `token` in the webhook URLs and the HMAC key of the generic format's signature.
 */
export function webhookSecret(secret: string): string {
  return createHmac('sha256', secret).update('webhooks').digest('hex');
}

/** The URL an operator gives the provider (`sendwell webhooks url --provider ...`). */
export function webhookUrl(publicUrl: string, secret: string, provider: WebhookProvider): string {
  return `${publicUrl}/webhooks/${provider}?token=${webhookSecret(secret)}`;
}

/** Constant-time string equality (digests first, so lengths leak nothing either). */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}
