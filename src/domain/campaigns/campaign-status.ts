import { InvalidStateError } from '../shared/errors.ts';

/**
 * D13's five, and issue 34's two: PAUSED (a send stopped by the user, resumed where it stopped)
 * and CANCELLED (a send ended by the user; its recipients not yet sent are CANCELLED and never
 * mailed). Both are API values the spec's list of five did not have: added, not changed.
 */
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'FAILED', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** D19's ledger as the API shows a recipient, and issue 34's CANCELLED: not sent, its campaign cancelled. */
export const RECIPIENT_STATUSES = ['PENDING', 'SENT', 'FAILED', 'BOUNCED', 'CANCELLED'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/**
 * D13's transitions, and nothing else. `send` is the user's action (also resuming a FAILED
 * campaign), and so are `retry` (D19), `pause`, `resume` and `cancel` (issue 34); `due` is the
 * scheduler's; `complete` and `fail` are the sender's (only from SENDING: a PAUSED campaign is
 * neither completed nor failed by a message that was in flight when it paused).
 */
const TRANSITIONS = {
  schedule: { from: ['DRAFT'], to: 'SCHEDULED' },
  unschedule: { from: ['SCHEDULED'], to: 'DRAFT' },
  send: { from: ['DRAFT', 'SCHEDULED', 'FAILED'], to: 'SENDING' },
  due: { from: ['SCHEDULED'], to: 'SENDING' },
  complete: { from: ['SENDING'], to: 'SENT' },
  fail: { from: ['SENDING'], to: 'FAILED' },
  // D19: retry-failed puts FAILED recipients back in line; the campaign sends them, then is SENT again.
  retry: { from: ['SENT', 'FAILED'], to: 'SENDING' },
  // Issue 34: the sender claims no recipient of a PAUSED campaign; resume goes on with those left.
  pause: { from: ['SENDING'], to: 'PAUSED' },
  resume: { from: ['PAUSED'], to: 'SENDING' },
  // Issue 34: a send under way (or paused) ends; a SCHEDULED campaign is unscheduled instead, and a
  // FAILED one is final already unless /send resumes it. CANCELLED is final: no action leaves it.
  cancel: { from: ['SENDING', 'PAUSED'], to: 'CANCELLED' },
} as const satisfies Record<string, { from: readonly CampaignStatus[]; to: CampaignStatus }>;

export type CampaignAction = keyof typeof TRANSITIONS;

export function canTransition(from: CampaignStatus, action: CampaignAction): boolean {
  return (TRANSITIONS[action].from as readonly CampaignStatus[]).includes(from);
}

/** The status after `action`, or a 409 INVALID_STATE naming both. */
export function transition(from: CampaignStatus, action: CampaignAction): CampaignStatus {
  if (!canTransition(from, action)) throw new InvalidStateError(`cannot ${action} a campaign that is ${from}`);
  return TRANSITIONS[action].to;
}

/**
 * Content and audience can change before sending starts, and in a FAILED campaign (D17.4), so a
 * template error that failed it can be fixed; it stays FAILED until `send` resumes it.
 */
export function canEdit(status: CampaignStatus): boolean {
  return status === 'DRAFT' || status === 'SCHEDULED' || status === 'FAILED';
}

/**
 * A campaign being sent cannot be deleted from under the sender, nor a PAUSED one, whose last
 * batch may still be in flight: cancel it first.
 */
export function canDelete(status: CampaignStatus): boolean {
  return status !== 'SENDING' && status !== 'PAUSED';
}
