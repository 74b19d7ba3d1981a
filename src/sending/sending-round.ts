import type { CampaignRow } from '../db/schema.ts';
import type { LeaseKeeper } from './lease-keeper.ts';
import type { MergeContact } from './render.ts';
import type { ClaimedRow } from './sending-ports.ts';
import type { OutgoingMessage } from './transports/transport.ts';

/**
 * What the dispatcher's round keeps: each campaign's turn, its claimed batch rendered a chunk at a
 * time, and the jobs the concurrency slots take; and how much one turn renders.
 */

/** One campaign's part in a round. */
export interface CampaignTurn {
  campaign: CampaignRow;
  /** the transport kept failing, or its messages the render limits, or (issue 34) it was paused or cancelled: nothing more of it is started this round */
  stopped: boolean;
  /** its claimed batch, rendered a chunk per turn */
  batch: ClaimedBatch | null;
  /** it has had a turn this round */
  tried: boolean;
}

/** A claimed recipient with its rendered message, as the round's concurrency slots take them. */
export interface Job {
  turn: CampaignTurn;
  row: ClaimedRow;
  message: OutgoingMessage;
  lease: LeaseKeeper;
}

/** A claimed batch, rendered chunk by chunk as its campaign's turns come. */
export interface ClaimedBatch {
  turn: CampaignTurn;
  rows: ClaimedRow[];
  contacts: Map<number, MergeContact>;
  lease: LeaseKeeper;
  /** the first row not yet rendered */
  next: number;
}

/** What a round keeps across its turns. */
export interface Round {
  leases: LeaseKeeper[];
  /** recipients whose outcome was recorded without a send (their message could not be rendered) */
  recorded: number;
  /**
   * D26.2: per campaign, its rows claimed this round that were not handed to the mail server
   * (given back, held for a pace, not rendered, deferred): taken off its warm-up day's count when
   * the round ends, so warm-up counts only what was sent.
   */
  notHanded: Map<CampaignRow, number>;
}

/** D26.2: `count` of the campaign's rows claimed this round went without reaching the mail server. */
export function notHanded(round: Round, campaign: CampaignRow, count: number): void {
  if (count > 0) round.notHanded.set(campaign, (round.notHanded.get(campaign) ?? 0) + count);
}

/**
 * A campaign's turn renders at most this many messages, this many bytes of them (MIME source and
 * parts), and the render budget of one message (SEND_RENDER_BUDGET_MS) in time, whichever comes
 * first, but always one message; then the next account takes its turn (issue 14 H4, H5). Bounded
 * by count alone, one account's 50 heavy messages held the render thread for up to 50 s while
 * another account's single message waited; bounded by bytes too, a chunk of large newsletters
 * stays a few megabytes however large each one is.
 */
export const RENDER_CHUNK = 50;
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * How much the sending thread keeps rendered ahead: the next turn is rendered once what is left
 * weighs no more than RENDER_CHUNK messages of up to 64 KB each (a larger message weighs more).
 */
const FEED_UNIT_BYTES = 64 * 1024;
export const jobWeight = (job: { message: OutgoingMessage }) => Math.max(1, Math.ceil((job.message.mime?.byteLength ?? 0) / FEED_UNIT_BYTES));
