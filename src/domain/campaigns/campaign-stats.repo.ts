import { sql } from 'kysely';
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
  const counters = Object.keys(add) as Counter[];
  if (counters.length === 0) return;
  // Plain SQL rather than the query builder: the sender runs this for every group of messages it
  // records, and building the upsert cost more than running it.
  await sql`insert into campaign_stats (campaign_id, shard, ${sql.join(counters.map((c) => sql.ref(c)))})
    values (${campaignId}, ${recipientId % SHARDS}, ${sql.join(counters.map((c) => add[c]))})
    on conflict (campaign_id, shard) do update set ${sql.join(counters.map((c) => sql`${sql.ref(c)} = campaign_stats.${sql.ref(c)} + excluded.${sql.ref(c)}`))}`.execute(db);
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
