import type { CampaignStatus } from './campaign-status.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { inSendWindow, nextWindowOpening, type SendWindow } from './send-window.ts';

/**
 * D26.2: why a SENDING campaign is waiting, said in `GET /api/v1/campaigns/{id}` as `held`, so a
 * campaign that stopped short is never a silent mystery. Pure: the reader gathers the facts.
 */
export const HOLD_REASONS = ['warmup', 'send_window', 'pacing'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

export interface Held {
  reason: HoldReason;
  /** when it can go on (D1's form), or null when unknown */
  until: string | null;
}

/** What the campaign's queue looks like now. */
export interface QueueState {
  /** a recipient is being sent (claimed, its lease alive) */
  inFlight: boolean;
  /** a PENDING recipient may be claimed now */
  dueNow: boolean;
  /** the earliest time a PENDING recipient waits for (its pace or its retry), or null */
  nextDue: string | null;
}

export interface HoldFacts {
  status: CampaignStatus;
  window: SendWindow | null;
  /** its From domain's warm-up today, when that domain is warming; `counted` is D26.2's count */
  warmup: { cap: number; counted: number } | null;
  queue: QueueState;
}

/**
 * The first reason that stops it, in the order the sender asks them: the send window (nothing is
 * claimed outside it), the warm-up cap (nothing more today), then the pace (every recipient left
 * waits for a time: its recipient domain's cap or a retry). Null while it sends, and for any
 * other status.
 */
export function heldOf(facts: HoldFacts, now: Date): Held | null {
  if (facts.status !== 'SENDING') return null;
  if (facts.window !== null && !inSendWindow(facts.window, now)) {
    const opens = nextWindowOpening(facts.window, now);
    return { reason: 'send_window', until: opens === null ? null : toApiTimestamp(opens) };
  }
  const { queue, warmup } = facts;
  if (queue.inFlight) return null;
  const waiting = queue.dueNow || queue.nextDue !== null;
  if (warmup !== null && waiting && warmup.counted >= warmup.cap) return { reason: 'warmup', until: nextUtcDay(now) };
  if (!queue.dueNow && queue.nextDue !== null) return { reason: 'pacing', until: toApiTimestamp(new Date(queue.nextDue)) };
  return null;
}

/** The warm-up's cap grows at the next UTC midnight. */
function nextUtcDay(now: Date): string {
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return toApiTimestamp(midnight);
}
