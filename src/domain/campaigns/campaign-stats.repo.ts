import { sql } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { RECIPIENT_COUNTERS, type RecipientCounts } from './statistics.ts';

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
    .select((eb) => RECIPIENT_COUNTERS.map((c) => eb.fn.sum<number>(c).as(c)))
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
  const counts = {} as RecipientCounts;
  for (const c of RECIPIENT_COUNTERS) counts[c] = Number(row[c] ?? 0);
  return counts;
}
