import type { Db, Dialect } from '../../db/connect.ts';

export interface ClaimOptions {
  /** most rows to take in one claim */
  limit: number;
  /** ISO timestamp: rows due at or before it are claimable, and so are rows whose lease ended by it */
  now: string;
  /** ISO timestamp the claim's lease lasts until; a sender that dies loses its rows when it passes */
  leaseUntil: string;
  campaignId?: number;
}

/**
 * Claims a batch of recipients for sending, atomically: no two senders ever hold the same row.
 * PostgreSQL: the candidate rows are locked with FOR UPDATE SKIP LOCKED, so concurrent senders
 * take disjoint batches without waiting for each other. SQLite: one writer at a time, so the
 * single UPDATE is atomic by itself.
 * A claim is not a send: a row is marked sent only after the mail server accepted it, so a crash
 * between claim and send loses nothing (the lease expires and the row is claimed again).
 */
export async function claimRecipients(db: Db, dialect: Dialect, opts: ClaimOptions) {
  let candidates = db
    .selectFrom('campaign_recipients')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'PENDING'), eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', opts.now)])]),
        eb.and([eb('status', '=', 'CLAIMED'), eb('claimed_until', '<=', opts.now)]),
      ]),
    )
    .orderBy('id')
    .limit(opts.limit);
  if (opts.campaignId !== undefined) candidates = candidates.where('campaign_id', '=', opts.campaignId);
  if (dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
  return db
    .updateTable('campaign_recipients')
    .set({ status: 'CLAIMED', claimed_until: opts.leaseUntil })
    .where('id', 'in', candidates)
    .returning(['id', 'campaign_id', 'contact_id', 'email', 'attempts', 'message_id'])
    .execute();
}
