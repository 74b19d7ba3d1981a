import type { Db } from '../../db/connect.ts';
import type { RecipientCounts } from './statistics.ts';

export type Counter = keyof RecipientCounts;
const SHARDS = 8;

/**
 * Adds to a campaign's statistics counters. Called in the same transaction as the recipient
 * row change it counts, and only when that change really happened (a first open, a first
 * bounce...), so the counters always equal what the rows say.
 */
export async function addToCounters(db: Db, campaignId: number, recipientId: number, add: Partial<RecipientCounts>): Promise<void> {
  const values = { sent: 0, bounced: 0, opened: 0, clicked: 0, complained: 0, unsubscribed: 0, ...add };
  const counters = Object.keys(add) as Counter[];
  if (counters.length === 0) return;
  await db
    .insertInto('campaign_stats')
    .values({ campaign_id: campaignId, shard: recipientId % SHARDS, ...values })
    .onConflict((oc) =>
      oc.columns(['campaign_id', 'shard']).doUpdateSet((eb) => Object.fromEntries(counters.map((c) => [c, eb(`campaign_stats.${c}`, '+', eb.ref(`excluded.${c}`))]))),
    )
    .execute();
}

export async function readCounters(db: Db, campaignId: number): Promise<RecipientCounts> {
  const row = await db
    .selectFrom('campaign_stats')
    .select((eb) => [
      eb.fn.sum<number>('sent').as('sent'),
      eb.fn.sum<number>('bounced').as('bounced'),
      eb.fn.sum<number>('opened').as('opened'),
      eb.fn.sum<number>('clicked').as('clicked'),
      eb.fn.sum<number>('complained').as('complained'),
      eb.fn.sum<number>('unsubscribed').as('unsubscribed'),
    ])
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
  return {
    sent: Number(row.sent ?? 0),
    bounced: Number(row.bounced ?? 0),
    opened: Number(row.opened ?? 0),
    clicked: Number(row.clicked ?? 0),
    complained: Number(row.complained ?? 0),
    unsubscribed: Number(row.unsubscribed ?? 0),
  };
}
