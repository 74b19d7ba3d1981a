import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { ApiKeysTable, Database } from '../../db/schema.ts';
import type { Insertable, Updateable } from 'kysely';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

export type KeyStatusFilter = 'all' | 'Active' | 'Revoked' | 'Expired';

export interface KeyListFilter {
  search?: string;
  status: KeyStatusFilter;
  now: string;
}

/** The row an authenticating request needs: one indexed lookup by hash, joined to the account's plan. */
export function findKeyForAuth(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.account_id',
      'api_keys.permissions',
      'api_keys.status',
      'api_keys.expires_at',
      'accounts.plan',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export function findKey(db: Db, accountId: number, id: number) {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function insertKey(db: Db, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateKey(db: Db, accountId: number, id: number, values: Updateable<ApiKeysTable>) {
  return db
    .updateTable('api_keys')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteKey(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('api_keys').where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function countKeys(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function filtered(db: Db, accountId: number, f: KeyListFilter) {
  let q = db.selectFrom('api_keys').where('account_id', '=', accountId);
  if (f.search) {
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(masked_key)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  if (f.status === 'Revoked') q = q.where('status', '=', 'Revoked');
  if (f.status === 'Active') {
    q = q.where('status', '=', 'Active').where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', f.now)]));
  }
  if (f.status === 'Expired') q = q.where('status', '=', 'Active').where('expires_at', '<=', f.now);
  return q as SelectQueryBuilder<Database, 'api_keys', object>;
}

export async function pageKeys(db: Db, accountId: number, f: KeyListFilter, page: PageRequest) {
  const base = filtered(db, accountId, f);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}

export async function keySummary(db: Db, accountId: number, now: string) {
  const totals = await db
    .selectFrom('api_keys')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('status', '=', 'Active'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]))
            .then(1)
            .else(0)
            .end(),
        )
        .as('active'),
      eb.fn.sum<number>('request_count').as('total_requests'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const top = await db
    .selectFrom('api_key_endpoint_usage')
    .innerJoin('api_keys', 'api_keys.id', 'api_key_endpoint_usage.key_id')
    .select((eb) => ['api_key_endpoint_usage.method', 'api_key_endpoint_usage.route', eb.fn.sum<number>('count').as('count')])
    .where('api_keys.account_id', '=', accountId)
    .groupBy(['api_key_endpoint_usage.method', 'api_key_endpoint_usage.route'])
    .orderBy('count', 'desc')
    .orderBy('api_key_endpoint_usage.route')
    .orderBy('api_key_endpoint_usage.method')
    .limit(10)
    .execute();
  return {
    total: Number(totals.total),
    active: Number(totals.active ?? 0),
    total_requests: Number(totals.total_requests ?? 0),
    top_endpoints: top.map((r) => ({ method: r.method, route: r.route, count: Number(r.count) })),
  };
}

/** Adds one batch of usage counted in memory. Returns the ids of keys that still exist. */
export async function addKeyUsage(db: Db, keyId: number, requests: number, lastUsedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set((eb) => ({
      request_count: eb('request_count', '+', requests),
      // Several processes flush independently: keep the latest use, whichever batch lands last.
      last_used_at: sql<string>`case when last_used_at is null or last_used_at < ${lastUsedAt} then ${lastUsedAt} else last_used_at end`,
    }))
    .where('id', '=', keyId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function addEndpointUsage(db: Db, rows: { key_id: number; method: string; route: string; count: number }[]) {
  if (rows.length === 0) return;
  await db
    .insertInto('api_key_endpoint_usage')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['key_id', 'method', 'route']).doUpdateSet((eb) => ({ count: eb('api_key_endpoint_usage.count', '+', eb.ref('excluded.count')) })),
    )
    .execute();
}
