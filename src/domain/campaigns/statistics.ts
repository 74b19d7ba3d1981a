/**
 * The counters a campaign keeps (campaign_stats), counted from its recipient rows. D23 adds
 * recipients with at least one open (click) by a person, and by a machine; one may count in both.
 */
export const RECIPIENT_COUNTERS = ['sent', 'bounced', 'opened', 'clicked', 'complained', 'unsubscribed', 'human_opened', 'machine_opened', 'human_clicked', 'machine_clicked'] as const;

/** Raw counts read from a campaign's recipient rows. */
export type RecipientCounts = Record<(typeof RECIPIENT_COUNTERS)[number], number>;

export interface CampaignStatistics extends RecipientCounts {
  delivered: number;
  open_rate: number;
  click_rate: number;
  bounce_rate: number;
  click_to_open_rate: number;
  unsubscribe_rate: number;
  human_open_rate: number;
  human_click_rate: number;
}

/** Percent, rounded to 2 decimals; 0 when the denominator is 0 (D13). */
export function rate(numerator: number, denominator: number): number {
  if (denominator === 0) return 0;
  // Integer arithmetic: (n / d) * 10000 in floating point can land just below a half (23/160 gave 14.37, not 14.38).
  return Math.floor((numerator * 20000 + denominator) / (2 * denominator)) / 100;
}

/** The spec's definitions: delivered = sent - bounced (bounced counts within sent, D13). */
export function computeStatistics(c: RecipientCounts): CampaignStatistics {
  const delivered = c.sent - c.bounced;
  return {
    sent: c.sent,
    delivered,
    opened: c.opened,
    clicked: c.clicked,
    bounced: c.bounced,
    complained: c.complained,
    unsubscribed: c.unsubscribed,
    human_opened: c.human_opened,
    machine_opened: c.machine_opened,
    human_clicked: c.human_clicked,
    machine_clicked: c.machine_clicked,
    open_rate: rate(c.opened, delivered),
    click_rate: rate(c.clicked, delivered),
    bounce_rate: rate(c.bounced, c.sent),
    click_to_open_rate: rate(c.clicked, c.opened),
    unsubscribe_rate: rate(c.unsubscribed, delivered),
    human_open_rate: rate(c.human_opened, delivered),
    human_click_rate: rate(c.human_clicked, delivered),
  };
}
