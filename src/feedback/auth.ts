import { createHmac } from 'node:crypto';
import type { FeedbackProvider } from './events.ts';

/**
 * The per-install provider feedback secret: derived from SECRET, so it needs no storage and
 * changes with it. It is the `token` in the feedback URLs and the HMAC key of the generic
 * format's signature. The label stays 'webhooks' (the URLs' public path): changing it would
 * change every token providers were already given.
 */
export function feedbackSecret(secret: string): string {
  return createHmac('sha256', secret).update('webhooks').digest('hex');
}

/** The URL an operator gives the provider (`sendwell webhooks url --provider ...`); the path is the contract's `/webhooks/{provider}`. */
export function feedbackUrl(publicUrl: string, secret: string, provider: FeedbackProvider): string {
  return `${publicUrl}/webhooks/${provider}?token=${feedbackSecret(secret)}`;
}
