import { sql } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { AbPhase, VariantTally } from './ab-test.ts';

/**
 * D23: an A/B campaign's recipients, as sending starts: each variant takes a random share of
 * `sizes[i]` recipients (set-based: one guarded update per variant, drawn by the database), and
 * the rest are HELD, a status no claim takes, until the winner is picked (releaseHeldRecipients).
 */
export async function assignTestShares(db: Db, campaignId: number, sizes: number[]): Promise<void> {
  for (const [variant, size] of sizes.entries()) {
    if (size === 0) continue;
    const share = db
      .selectFrom('campaign_recipients')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .where('variant', 'is', null)
      .orderBy(sql`random()`)
      .limit(size);
    await db.updateTable('campaign_recipients').set({ variant }).where('id', 'in', share).execute();
  }
  await db.updateTable('campaign_recipients').set({ status: 'HELD' }).where('campaign_id', '=', campaignId).where('variant', 'is', null).where('status', '=', 'PENDING').execute();
}

/**
 * TESTING -> WAITING once no recipient of the test share is left to send (every one final: sent,
 * bounced or failed), the wait ending at `waitUntil`. Guarded by the phase and that condition in
 * one statement, so of several senders one moves it, once. Returns whether this call did.
 */
export async function startAbWait(db: Db, campaignId: number, waitUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ ab_phase: 'WAITING' satisfies AbPhase, ab_wait_until: waitUntil })
    .where('id', '=', campaignId)
    .where('status', '=', 'SENDING')
    .where('ab_phase', '=', 'TESTING' satisfies AbPhase)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaignId).where('status', 'in', ['PENDING', 'CLAIMED']))),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * WAITING -> DECIDED with `winner`, only once the wait has ended by `now` and only if still
 * WAITING: of several senders that read the tallies, one records its pick; the others change
 * nothing. Returns whether this call did (the caller then releases the held recipients in the
 * same transaction).
 */
export async function decideAbTest(db: Db, campaignId: number, winner: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ ab_phase: 'DECIDED' satisfies AbPhase, ab_winner: winner })
    .where('id', '=', campaignId)
    .where('ab_phase', '=', 'WAITING' satisfies AbPhase)
    .where('ab_wait_until', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The HELD rest of the audience gets the winner, and is sent like any PENDING recipient. */
export async function releaseHeldRecipients(db: Db, campaignId: number, winner: number): Promise<number> {
  const result = await db.updateTable('campaign_recipients').set({ status: 'PENDING', variant: winner }).where('campaign_id', '=', campaignId).where('status', '=', 'HELD').executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface VariantCounts extends VariantTally {
  variant: number;
  recipients: number;
  sent: number;
}

/**
 * Per variant: its recipients, those sent (a bounce counts within sent, D13), delivered (sent,
 * not bounced), and those with a human open and click (D23; a human click counts as an open).
 */
export async function variantCounts(db: Db, campaignId: number): Promise<VariantCounts[]> {
  const rows = await db
    .selectFrom('campaign_recipients')
    .select((eb) => [
      'variant',
      eb.fn.countAll<number>().as('recipients'),
      eb.fn.count<number>('sent_at').as('sent'),
      eb.fn.count<number>('bounced_at').as('bounced'),
      eb.fn.count<number>('human_opened_at').as('human_opened'),
      eb.fn.count<number>('human_clicked_at').as('human_clicked'),
    ])
    .where('campaign_id', '=', campaignId)
    .where('variant', 'is not', null)
    .groupBy('variant')
    .execute();
  return rows.map((r) => ({
    variant: Number(r.variant),
    recipients: Number(r.recipients),
    sent: Number(r.sent),
    delivered: Number(r.sent) - Number(r.bounced),
    human_opened: Number(r.human_opened),
    human_clicked: Number(r.human_clicked),
  }));
}
