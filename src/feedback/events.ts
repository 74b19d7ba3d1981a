/** The providers `POST /webhooks/{provider}` understands. */
export const FEEDBACK_PROVIDERS = ['ses', 'sendgrid', 'generic'] as const;
export type FeedbackProvider = (typeof FEEDBACK_PROVIDERS)[number];

/** A bounce or complaint, as each provider's payload is normalised before it is applied. */
export interface FeedbackEvent {
  kind: 'bounce' | 'complaint';
  /** the Message-ID header of our message as the provider reports it ('' when it gave none) */
  messageId: string;
  email?: string;
  /** bounces: permanent (the address is dead) or not (mailbox full, blocked, ...) */
  hard?: boolean;
  /** when the provider says it happened (ISO 8601) */
  occurredAt?: string;
}

/** A JSON object (not null, not an array), for reading payloads defensively. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const stringOr = (value: unknown, fallback: string | undefined = undefined): string | undefined => (typeof value === 'string' ? value : fallback);
