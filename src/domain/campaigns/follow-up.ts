import type { SegmentCondition } from '../segments/segment-filter.ts';

/**
 * D18: a follow-up campaign's audience, as a part of a SENT campaign's recipients. Written as a
 * segment condition, so it is compiled (and counted, and snapshotted) exactly as segments are.
 * "Not opened" means the message reached them (sent, not bounced) and was never opened: a
 * recipient whose mail bounced or failed did not ignore it.
 */
export const FOLLOW_UP_AUDIENCES = ['NOT_OPENED', 'NOT_CLICKED', 'OPENED', 'CLICKED'] as const;
export type FollowUpAudience = (typeof FOLLOW_UP_AUDIENCES)[number];

export interface FollowUp {
  campaign_id: number;
  audience: FollowUpAudience;
}

export function followUpCondition({ campaign_id, audience }: FollowUp): SegmentCondition {
  const on = (what: 'sent' | 'opened' | 'clicked' | 'bounced'): SegmentCondition => ({ kind: 'engagement', what, campaignId: campaign_id, withinDays: null });
  const not = (c: SegmentCondition): SegmentCondition => ({ kind: 'not', child: c });
  const delivered: SegmentCondition[] = [on('sent'), not(on('bounced'))];
  switch (audience) {
    case 'OPENED':
      return { kind: 'all', children: [...delivered, on('opened')] };
    case 'CLICKED':
      return { kind: 'all', children: [...delivered, on('clicked')] };
    case 'NOT_OPENED':
      return { kind: 'all', children: [...delivered, not(on('opened'))] };
    case 'NOT_CLICKED':
      return { kind: 'all', children: [...delivered, not(on('clicked'))] };
  }
}

/** `<name> (follow-up)`, within the name limit. */
export function followUpName(name: string, max: number): string {
  const suffix = ' (follow-up)';
  return [...name].slice(0, max - suffix.length).join('') + suffix;
}
