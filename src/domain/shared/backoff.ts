/**
 * The one retry backoff (issue 15: it was written three times, with three caps): the delay
 * doubles from `baseMs` per failed attempt, never beyond `maxMs`. The campaign sender, automation
 * mail and webhook deliveries all wait by it, an hour at most by default; webhook deliveries add
 * jitter on top (retry-schedule.ts) so a receiver coming back is not hit by all of them at once.
 */
export const MAX_RETRY_DELAY_MS = 3_600_000;

/** The wait after the `attempts`-th failed attempt (1 = the first failure). */
export function backoffDelay(baseMs: number, attempts: number, maxMs: number = MAX_RETRY_DELAY_MS): number {
  // The exponent is capped so 2 ** n stays finite whatever the attempt count; the cap decides anyway.
  return Math.min(baseMs * 2 ** Math.min(Math.max(attempts, 1) - 1, 40), maxMs);
}
