import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';

/** Recipients given up (FAILED), or (issue 34) CANCELLED with their campaign: found through the (campaign_id, status) index. */
export async function countWithStatus(db: Db, campaignId: number, status: 'FAILED' | 'CANCELLED'): Promise<number> {
  const row = await db
    .selectFrom('campaign_recipients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', campaignId)
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `YYYY-MM-DDTHH` of a stored timestamp, in UTC, on either dialect. */
function hourOf(dialect: Dialect, column: 'opened_at' | 'clicked_at') {
  return dialect === 'postgres' ? sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24')` : sql<string>`substr(${sql.ref(column)}, 1, 13)`;
}

/** First opens (or clicks) per hour: each recipient counts once, at its first one (D16's unique counts). */
export async function firstEngagementsPerHour(db: Db, dialect: Dialect, campaignId: number, column: 'opened_at' | 'clicked_at') {
  const hour = hourOf(dialect, column);
  const rows = await db
    .selectFrom('campaign_recipients')
    .select([hour.as('hour'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('campaign_id', '=', campaignId)
    .where(column, 'is not', null)
    .groupBy(hour)
    .execute();
  return rows.map((r) => ({ hour: r.hour, count: Number(r.n) }));
}
