import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../shared/errors.ts';
import { CAMPAIGN_STATUSES, canDelete, canEdit, canTransition, transition, type CampaignAction, type CampaignStatus } from './campaign-status.ts';

// D13, written out as the full table so that any change to the machine shows up here.
const ALLOWED: Record<CampaignAction, Partial<Record<CampaignStatus, CampaignStatus>>> = {
  schedule: { DRAFT: 'SCHEDULED' },
  unschedule: { SCHEDULED: 'DRAFT' },
  send: { DRAFT: 'SENDING', SCHEDULED: 'SENDING', FAILED: 'SENDING' },
  due: { SCHEDULED: 'SENDING' },
  complete: { SENDING: 'SENT' },
  fail: { SENDING: 'FAILED' },
  retry: { SENT: 'SENDING', FAILED: 'SENDING' },
  // Issue 34
  pause: { SENDING: 'PAUSED' },
  resume: { PAUSED: 'SENDING' },
  cancel: { SENDING: 'CANCELLED', PAUSED: 'CANCELLED' },
};

describe('campaign state machine (D13)', () => {
  for (const [action, targets] of Object.entries(ALLOWED) as [CampaignAction, Partial<Record<CampaignStatus, CampaignStatus>>][]) {
    for (const from of CAMPAIGN_STATUSES) {
      const to = targets[from];
      if (to) {
        it(`${action}: ${from} -> ${to}`, () => {
          expect(canTransition(from, action)).toBe(true);
          expect(transition(from, action)).toBe(to);
        });
      } else {
        it(`${action}: refused from ${from}`, () => {
          expect(canTransition(from, action)).toBe(false);
          expect(() => transition(from, action)).toThrow(InvalidStateError);
        });
      }
    }
  }

  it('allows editing only in DRAFT, SCHEDULED and FAILED', () => {
    // D17.4: a FAILED campaign may be edited too, so a template error can be fixed before /send resumes it.
    expect(CAMPAIGN_STATUSES.filter(canEdit)).toEqual(['DRAFT', 'SCHEDULED', 'FAILED']);
  });

  it('allows deleting in every status but SENDING and PAUSED', () => {
    expect(CAMPAIGN_STATUSES.filter(canDelete)).toEqual(['DRAFT', 'SCHEDULED', 'SENT', 'FAILED', 'CANCELLED']);
  });

  it('has no way out of CANCELLED', () => {
    expect((Object.keys(ALLOWED) as CampaignAction[]).filter((action) => canTransition('CANCELLED', action))).toEqual([]);
  });

  it('reports INVALID_STATE with both the action and the status', () => {
    expect(() => transition('SENT', 'send')).toThrow(/cannot send a campaign that is SENT/);
    try {
      transition('SENT', 'send');
    } catch (err) {
      expect((err as InvalidStateError).code).toBe('INVALID_STATE');
    }
  });
});
