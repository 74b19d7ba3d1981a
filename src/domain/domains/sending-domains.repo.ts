import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { SendingDomainsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

/** D23: the account's sending domains, their DKIM keys and their warm-up days. */

/** Inserts unless the account has the domain already: undefined then. */
export async function insertSendingDomain(db: Db, values: Insertable<SendingDomainsTable>) {
  return db
    .insertInto('sending_domains')
    .values(values)
    .onConflict((oc) => oc.columns(['account_id', 'domain']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Issue 28 M1: the domains the account has, for its cap. */
export async function countSendingDomains(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('sending_domains').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findSendingDomain(db: Db, accountId: number, id: number) {
  return db.selectFrom('sending_domains').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function pageSendingDomains(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('sending_domains').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('domain').orderBy('id'), base, page);
}

export async function updateSendingDomain(db: Db, accountId: number, id: number, values: Updateable<SendingDomainsTable>) {
  return db.updateTable('sending_domains').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteSendingDomain(db: Db, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('sending_domains').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Messages claimed on `day` per domain id (those without a row claimed none). */
export async function claimedOn(db: Db, domainIds: number[], day: string): Promise<Map<number, number>> {
  if (domainIds.length === 0) return new Map();
  const rows = await db.selectFrom('warmup_days').select(['domain_id', 'claimed']).where('domain_id', 'in', domainIds).where('day', '=', day).execute();
  return new Map(rows.map((r) => [Number(r.domain_id), Number(r.claimed)]));
}

/** The key that signs the account's mail from `domain`, when its DKIM record is verified (D23). */
export function findSigningKey(db: Db, accountId: number, domain: string) {
  return db
    .selectFrom('sending_domains')
    .select(['domain', 'selector', 'dkim_private_key'])
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('dkim_verified', '=', 1)
    .executeTakeFirst();
}

/** The account's domain `domain` while its warm-up is on. */
export function findWarmingDomain(db: Db, accountId: number, domain: string) {
  return db
    .selectFrom('sending_domains')
    .select(['id', 'warmup_start', 'warmup_factor', 'warmup_started_at'])
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('warmup_enabled', '=', 1)
    .executeTakeFirst();
}

/**
 * The day's count for the domain, its row created when missing and, on PostgreSQL, locked until
 * the caller's transaction ends: a second sender process waits here, then reads what the first
 * claimed. (SQLite has one writer, and one sender.)
 */
export async function lockWarmupDay(trx: Db, dialect: Dialect, domainId: number, day: string): Promise<number> {
  await trx.insertInto('warmup_days').values({ domain_id: domainId, day, claimed: 0 }).onConflict((oc) => oc.columns(['domain_id', 'day']).doNothing()).execute();
  let read = trx.selectFrom('warmup_days').select('claimed').where('domain_id', '=', domainId).where('day', '=', day);
  if (dialect === 'postgres') read = read.forUpdate();
  return Number((await read.executeTakeFirstOrThrow()).claimed);
}

/** Takes back claims of rows given back unsent (never below zero). */
export async function removeWarmupClaims(db: Db, domainId: number, day: string, count: number): Promise<void> {
  if (count === 0) return;
  await db
    .updateTable('warmup_days')
    .set({ claimed: sql`case when claimed > ${count} then claimed - ${count} else 0 end` })
    .where('domain_id', '=', domainId)
    .where('day', '=', day)
    .execute();
}

export async function addWarmupClaims(trx: Db, domainId: number, day: string, count: number): Promise<void> {
  if (count === 0) return;
  await trx
    .updateTable('warmup_days')
    .set({ claimed: sql`claimed + ${count}` })
    .where('domain_id', '=', domainId)
    .where('day', '=', day)
    .execute();
}
