import { InvalidStateError } from '../shared/errors.ts';

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'FAILED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * D13's transitions, and nothing else. `send` is the user's action (also resuming a FAILED
 * campaign), and so is `retry` (D19); `due` is the scheduler's; `complete` and `fail` are the sender's.
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

/** A campaign being sent cannot be deleted from under the sender. */
export function canDelete(status: CampaignStatus): boolean {
  return status !== 'SENDING';
}
