/**
 * D23's automatic stop: a SENDING campaign whose bounce rate over its latest 500 messages passes
 * 8%, or whose complaint rate passes 0.3%, stops (FAILED, with the reason in `error`), counted once
 * 100 messages have gone since the counting started (sending started, or `/send` resumed it). A
 * mail server that turns away one in five, or recipients who report it as spam, are told early,
 * before the sending domain's reputation pays for the rest.
 */
export const RATE_STOP = {
  /** the latest this many messages are counted */
  window: 500,
  /** nothing stops before this many have gone */
  minimum: 100,
  bounceRate: 0.08,
  complaintRate: 0.003,
  /** issue 28: complaints from fewer distinct reporters than this never stop a campaign */
  minComplaintReporters: 2,
} as const;

/** Outcomes of the latest messages (at most RATE_STOP.window) since the counting started. */
export interface LatestOutcomes {
  sent: number;
  bounced: number;
  /** issue 28: complaints counted per distinct reporter (feedback/reporter.ts), not per report */
  complained: number;
}

const percent = (rate: number, digits: number) => `${(rate * 100).toFixed(digits)}%`;

/**
 * The reason to stop, or null. The bounce rate is checked first. The complaint rate has two
 * decimals, since its limit is a fraction of a percent. Issue 28: complaints count once per
 * distinct reporter, and one reporter never stops a campaign alone: anyone can mail an ARF
 * report, and one in a campaign of 100 passes 0.3%.
 */
export function rateStopReason({ sent, bounced, complained }: LatestOutcomes): string | null {
  if (sent < RATE_STOP.minimum) return null;
  const over = `over the latest ${sent} messages`;
  if (bounced / sent > RATE_STOP.bounceRate) return `bounce rate ${percent(bounced / sent, 1)} ${over} (the limit is ${percent(RATE_STOP.bounceRate, 0)})`;
  if (complained >= RATE_STOP.minComplaintReporters && complained / sent > RATE_STOP.complaintRate) return `complaint rate ${percent(complained / sent, 2)} ${over} (the limit is ${percent(RATE_STOP.complaintRate, 1)})`;
  return null;
}
