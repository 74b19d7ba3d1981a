import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import { pageQuery } from '../../db/page-query.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { containsPattern } from '../../db/sql-helpers.ts';
import type { PageRequest } from '../shared/paging.ts';
import { toEpochMs } from '../shared/time.ts';
import type { DeliveryStatus } from './webhook-endpoint.ts';


export interface ClaimOptions {
  limit: number;
  /** ISO timestamp: rows due by then, and not held by a live claim, are taken */
  now: string;
  /** ISO timestamp the claim lasts until; it is also the claim's token when the outcome is recorded */
  leaseUntil: string;
  /** issue 28: at most this many of one account's due deliveries per claim, its earliest due first */
  perAccount: number;
  /** endpoints to leave alone this time (the worker already has enough in flight to them) */
  skipEndpoints?: number[];
  /** accounts to leave alone this time (issue 28: the worker has their share of slots in flight) */
  skipAccounts?: number[];
}

/**
 * Claims due deliveries of active endpoints, atomically: no two workers hold the same row.
 * Issue 28: fair across accounts, not first due first served: each account's due deliveries are
 * ranked (ROW_NUMBER() OVER (PARTITION BY account_id), earliest due first), at most `perAccount`
 * of each are taken, and the claim fills with every account's first, then every account's
 * second..., so one account's backlog of thousands cannot fill a claim while another's one
 * delivery waits behind it. The ranking scans the due rows (the (status, next_attempt_at) index
 * finds them). PostgreSQL cannot lock rows in a query with a window function, so the ranked ids
 * are a subquery and the outer select locks them FOR UPDATE SKIP LOCKED: concurrent workers take
 * disjoint sets without waiting, and only the rows claimed are locked. On SQLite the one UPDATE
 * is atomic by itself. A claim is a lease: a worker that dies loses its rows when `locked_until`
 * passes. Deliveries of a deactivated endpoint wait, and go out if it is activated again.
 */
export async function claimDueDeliveries(db: Db, dialect: Dialect, opts: ClaimOptions) {
  let due = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select((eb) => ['d.id', 'd.next_attempt_at', sql<number>`row_number() over (partition by ${eb.ref('e.account_id')} order by ${eb.ref('d.next_attempt_at')}, ${eb.ref('d.id')})`.as('turn')])
    .where('d.status', '=', 'PENDING')
    .where('d.next_attempt_at', '<=', opts.now)
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', opts.now)]))
    .where('e.is_active', '=', 1);
  if (opts.skipEndpoints?.length) due = due.where('d.endpoint_id', 'not in', opts.skipEndpoints);
  if (opts.skipAccounts?.length) due = due.where('e.account_id', 'not in', opts.skipAccounts);
  const ranked = db
    .selectFrom(due.as('ranked'))
    .select('ranked.id')
    .where('ranked.turn', '<=', opts.perAccount)
    .orderBy('ranked.turn')
    .orderBy('ranked.next_attempt_at')
    .orderBy('ranked.id')
    .limit(opts.limit);
  const candidates =
    dialect === 'postgres'
      ? db.selectFrom('webhook_deliveries').select('id').where('id', 'in', ranked).forUpdate().skipLocked()
      : ranked;
  // The UPDATE checks again that each row is still pending and unleased. On PostgreSQL the ranked
  // ids come from a snapshot taken as the statement began: a row another worker claimed and
  // committed meanwhile is no longer locked when this one reaches it, and FOR UPDATE re-checks
  // only its own query's conditions (none but the id), so without this both workers delivered it.
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: opts.leaseUntil })
    .where('id', 'in', candidates)
    .where('status', '=', 'PENDING')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', opts.now)]))
    .returning(['id', 'endpoint_id', 'event_type', 'payload', 'attempts', 'created_at', 'next_attempt_at'])
    .execute();
  if (claimed.length === 0) return [];
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'secret', 'account_id'])
    .where('id', 'in', [...new Set(claimed.map((c) => c.endpoint_id))])
    .execute();
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  // RETURNING comes in no set order: the earliest due first, for the caller's interleaving.
  claimed.sort((a, b) => (toEpochMs(a.next_attempt_at) ?? 0) - (toEpochMs(b.next_attempt_at) ?? 0) || Number(a.id) - Number(b.id));
  return claimed.flatMap((c) => {
    const endpoint = byId.get(c.endpoint_id);
    return endpoint ? [{ ...c, url: endpoint.url, secret: endpoint.secret, account_id: Number(endpoint.account_id) }] : [];
  });
}
export type ClaimedDelivery = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

export interface AttemptRecord {
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  /** when to try again (PENDING only) */
  nextAttemptAt: string | null;
}

/**
 * Records one attempt in the delivery log and moves the delivery on (DELIVERED, FAILED, or
 * PENDING until its next attempt), in the caller's transaction. The delivery changes only if
 * this worker's claim still holds it (its lease is the token); the attempt is logged either way,
 * since it did happen.
 */
export async function recordAttempt(db: Db, delivery: { id: number; leaseUntil: string }, attempt: AttemptRecord, outcome: AttemptOutcome): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      ...(outcome.nextAttemptAt ? { next_attempt_at: outcome.nextAttemptAt } : {}),
      locked_until: null,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      updated_at: attempt.attemptedAt,
      delivered_at: outcome.status === 'DELIVERED' ? attempt.attemptedAt : null,
    }))
    .where('id', '=', delivery.id)
    .where('locked_until', '=', delivery.leaseUntil)
    .execute();
  await db
    .insertInto('webhook_delivery_attempts')
    .values({
      delivery_id: delivery.id,
      attempted_at: attempt.attemptedAt,
      status_code: attempt.statusCode,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      response_excerpt: attempt.responseExcerpt,
    })
    .execute();
}

/** A stopping worker gives back what it claimed but did not start. */
export async function releaseDeliveries(db: Db, ids: number[], leaseUntil: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_deliveries').set({ locked_until: null }).where('id', 'in', ids).where('locked_until', '=', leaseUntil).execute();
}

/**
 * Deletes up to `limit` finished (DELIVERED or FAILED) deliveries created before `before`, with
 * their attempts; returns how many. Pending ones stay whatever their age.
 */
export async function pruneDeliveries(db: Db, before: string, limit: number): Promise<number> {
  const old = db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).where('status', '!=', 'PENDING').orderBy('created_at').limit(limit);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The delivery log of one endpoint, newest first, optionally of one status; with every attempt of each. */
export async function pageDeliveries(db: Db, endpointId: number, status: DeliveryStatus | undefined, page: PageRequest) {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (status) base = base.where('status', '=', status);
  const { rows, total } = await pageQuery(base.selectAll().orderBy('id', 'desc'), base, page);
  const attempts =
    rows.length === 0
      ? []
      : await db
          .selectFrom('webhook_delivery_attempts')
          .selectAll()
          .where('delivery_id', 'in', rows.map((r) => r.id))
          .orderBy('id')
          .execute();
  return { rows, attempts, total };
}

/** A delivery to one endpoint only, whatever it subscribes to (the endpoint's test). */
export function insertDelivery(db: Db, values: { endpointId: number; eventId: string; eventType: string; payload: string; now: string }) {
  return db
    .insertInto('webhook_deliveries')
    .values({
      endpoint_id: values.endpointId,
      event_id: values.eventId,
      event_type: values.eventType,
      payload: values.payload,
      status: 'PENDING',
      next_attempt_at: values.now,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** D17.9: deliveries waiting for a first or further attempt, by the (status, next_attempt_at) index. */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'PENDING').executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The same for one event, the case of most changes (a contact's create among them): built once
 * (db/prepared.ts, issue 35), `now` given once as a column of the derived table.
 */
const oneEventDeliveries = preparedQuery(5, (db, dialect, accountId: number, eventId: string, type: string, payload: string, now: string) => {
  const query = sql`insert into webhook_deliveries (endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
    select e.id, v.event_id, v.event_type, v.payload, 'PENDING', 0, v.now, v.now, v.now
    from (select cast(${accountId} as bigint) as account_id, cast(${eventId} as text) as event_id, cast(${type} as text) as event_type, cast(${payload} as text) as payload, cast(${now} as ${sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text')}) as now) v
    join webhook_endpoints e on e.account_id = v.account_id and e.is_active = 1
    join webhook_endpoint_events s on s.endpoint_id = e.id and s.event_type = v.event_type`;
  return { compile: () => query.compile(db) };
});

/**
 * One delivery row per (event, active endpoint of its account subscribed to its type), in one
 * INSERT ... SELECT: the events are a derived table joined to the subscriptions, so the database,
 * not a loop, decides who gets what. Plain SQL rather than the query builder: this runs on hot
 * paths (messages sent, opens), where building a query costs about as much as running it. The
 * casts type the derived table's columns on PostgreSQL.
 */
export async function insertDeliveriesForSubscribers(db: Db, events: { accountId: number; eventId: string; type: string; payload: string }[], now: string): Promise<void> {
  if (events.length === 0) return;
  if (events.length === 1) {
    const [e] = events;
    await oneEventDeliveries(db, e.accountId, e.eventId, e.type, e.payload, now);
    return;
  }
  const rows = events.map(
    (e) => sql`select cast(${e.accountId} as bigint) as account_id, cast(${e.eventId} as text) as event_id, cast(${e.type} as text) as event_type, cast(${e.payload} as text) as payload`,
  );
  await sql`insert into webhook_deliveries (endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
    select e.id, v.event_id, v.event_type, v.payload, 'PENDING', 0, ${now}, ${now}, ${now}
    from (${sql.join(rows, sql` union all `)}) v
    join webhook_endpoints e on e.account_id = v.account_id and e.is_active = 1
    join webhook_endpoint_events s on s.endpoint_id = e.id and s.event_type = v.event_type`.execute(db);
}

/** Which (account, event type) pairs have an active subscriber at all: one indexed lookup. */
export async function findSubscribedPairs(db: Db, accountIds: number[], types: string[]) {
  const { rows } = await sql<{ account_id: number; event_type: string }>`select distinct e.account_id, s.event_type
    from webhook_endpoints e join webhook_endpoint_events s on s.endpoint_id = e.id
    where e.account_id in (${sql.join(accountIds)}) and e.is_active = 1 and s.event_type in (${sql.join(types)})`.execute(db);
  return rows;
}

/**
 * D21: the account's deliveries whose body holds `needle` (a JSON string, quotes included, as
 * eventBody writes it), any status. A scan of the account's deliveries: erasure is rare.
 */
export function deliveriesHolding(db: Db, accountId: number, needle: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.payload'])
    .where('e.account_id', '=', accountId)
    .where('d.payload', 'like', containsPattern(needle))
    .execute();
}

export async function replaceDeliveryPayload(db: Db, id: number, payload: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ payload }).where('id', '=', id).execute();
}
