import { describe, expect, it } from 'vitest';
import { followUpCondition, followUpName } from './follow-up.ts';

describe('follow-up audiences (D18)', () => {
  it('take only delivered messages: sent and not bounced, then opened or not', () => {
    const sent = { kind: 'engagement', what: 'sent', campaignId: 7, withinDays: null };
    const bounced = { kind: 'not', child: { kind: 'engagement', what: 'bounced', campaignId: 7, withinDays: null } };
    expect(followUpCondition({ campaign_id: 7, audience: 'NOT_OPENED' })).toEqual({
      kind: 'all',
      children: [sent, bounced, { kind: 'not', child: { kind: 'engagement', what: 'opened', campaignId: 7, withinDays: null } }],
    });
    expect(followUpCondition({ campaign_id: 7, audience: 'CLICKED' })).toEqual({ kind: 'all', children: [sent, bounced, { kind: 'engagement', what: 'clicked', campaignId: 7, withinDays: null }] });
  });

  it('names the copy within the limit', () => {
    expect(followUpName('Launch', 255)).toBe('Launch (follow-up)');
    const long = followUpName('é'.repeat(300), 255);
    expect([...long]).toHaveLength(255);
    expect(long.endsWith(' (follow-up)')).toBe(true);
  });
});
