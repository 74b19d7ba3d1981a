import type { CampaignRow } from '../db/schema.ts';
import type { MergeContact } from './render.ts';

/**
 * What the dispatcher sees of the rest of the system, as listmonk's campaign manager sees a
 * `Store`: the rows it claims, holds and records (SendingStore), and the campaign states its
 * sending moves on (CampaignLifecycle). It imports no repo and no service, so its loop reads as
 * sending alone, and each side can be read (and replaced in a test) on its own.
 */

/** A recipient row the sender holds (CLAIMED, under a lease) while it renders and sends its message. */
export interface ClaimedRow {
  id: number;
  campaign_id: number;
  contact_id: number | null;
  email: string;
  attempts: number;
  message_id: string | null;
  variant: number | null;
  next_attempt_at: string | Date | null;
}

/** A message the mail server answered, with what its email.* webhook event tells. */
export interface MessageOutcome {
  row: ClaimedRow;
  messageId: string;
  accountId: number;
}

/** D23's automatic stop reads these of a campaign's latest messages. */
export interface LatestOutcomes {
  sent: number;
  bounced: number;
  complained: number;
}

/**
 * The recipient rows' side of sending (D13's outbox). Claims are leased: a row is CLAIMED until its
 * lease ends, and every record is guarded by CLAIMED, so a late duplicate record changes nothing.
 */
export interface SendingStore {
  /** The SENDING campaigns: a round's turns. */
  sendingCampaigns(): Promise<CampaignRow[]>;
  /** Issue 34: whether the campaign is SENDING still (not paused or cancelled since the round listed it). */
  stillSending(campaignId: number): Promise<boolean>;
  /** Issue 34: CANCELLED campaigns' rows left unsent (given back, or held by a sender whose lease ended by `now`) become CANCELLED. */
  settleCancelled(now: string): Promise<void>;
  /**
   * Claims up to `limit` of the campaign's due rows (and rows whose lease ended by `now`), leased
   * until `leaseUntil`; no two senders ever hold the same row, and none of a campaign no longer SENDING. D23: a warming From domain's
   * campaign claims no more than its day's cap leaves.
   */
  claim(campaign: CampaignRow, limit: number, now: string, leaseUntil: string): Promise<ClaimedRow[]>;
  /** D26.2: `count` of the campaign's claims were not handed to the mail server: off its warm-up day's count. */
  uncountClaims(campaign: CampaignRow, count: number): Promise<void>;
  /** D19: rows whose address was suppressed since the snapshot are FAILED with the reason; the others are returned. */
  dropSuppressed(campaign: CampaignRow, rows: ClaimedRow[]): Promise<ClaimedRow[]>;
  /** The merge fields of the rows' contacts, by contact id. */
  mergeContacts(rows: ClaimedRow[]): Promise<Map<number, MergeContact>>;
  /** Extends the lease on rows still held (claimed and not yet recorded). */
  renewLease(ids: number[], leaseUntil: string): Promise<void>;
  /** Gives claimed rows back to PENDING, as they were (CANCELLED when their campaign was cancelled meanwhile). */
  release(ids: number[]): Promise<void>;
  /** D23: claimed rows held back for their domain's cap go back to PENDING, due at `until`, no attempt counted. */
  postpone(ids: number[], until: string): Promise<void>;
  /** Accepted by the mail server: SENT, counted, and email.sent for the rows that changed, in one transaction. */
  recordSent(outcomes: MessageOutcome[], now: string): Promise<void>;
  /** A 5xx: BOUNCED, the contact and its address with it (D17.5, D19), and email.bounced, in one transaction. */
  recordBounced(outcome: MessageOutcome, error: string, now: string): Promise<void>;
  /** A 4xx or no answer: PENDING again at `retryAt`, or FAILED for good when it is null. */
  recordDeferred(id: number, error: string, retryAt: string | null): Promise<void>;
  /** Rows not yet final: what the campaign's send still has to do. */
  countUnfinished(campaignId: number): Promise<number>;
  /** D23: of the campaign's latest `limit` messages since its outcomes were last counted from, how many went, bounced and drew a complaint. */
  latestOutcomes(campaign: CampaignRow, limit: number): Promise<LatestOutcomes>;
}

/** The campaign state transitions the sender and its scheduler make (D13, D23); each is guarded to happen once across senders. */
export interface CampaignLifecycle {
  /** SCHEDULED campaigns whose time has come start sending; returns their ids. */
  startDueCampaigns(now: string): Promise<number[]>;
  /** SENDING -> SENT; whether this call made it. */
  complete(campaignId: number): Promise<boolean>;
  /** D23: moves an A/B test on; `settled` when the campaign may complete, `winner` when this call picked it. */
  advanceAbTest(campaignId: number): Promise<{ settled: boolean; winner?: number }>;
  /** SENDING -> FAILED with the reason; whether this call made it. */
  fail(campaignId: number, error: string): Promise<boolean>;
}
