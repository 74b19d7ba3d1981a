import type { ActingContext } from '../shared/actor.ts';
import type { Db } from '../../db/connect.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { findAccount, findFirstAccount, insertAccount, listAccounts as listAccountRows, slugsStartingWith, updateAccountPlan, updateAccountSettings } from './accounts.repo.ts';
import { checkedTimeZone } from '../shared/time-zone.ts';
import { slugOf, uniqueSlug } from './account-slug.ts';
import { isPlan, PLANS, type Plan } from './plans.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface Account {
  id: number;
  name: string;
  plan: Plan;
  /** D22: names the public archive, `/archive/{slug}` */
  slug: string;
  /** Issue 34: the IANA zone the dashboard shows dates in and schedules by default (time-zone.ts) */
  time_zone: string;
  created_at: string;
}

function toAccount(row: { id: number; name: string; plan: string; slug: string; time_zone: string; created_at: string | Date }): Account {
  return { id: Number(row.id), name: row.name, plan: row.plan as Plan, slug: row.slug, time_zone: row.time_zone, created_at: toApiTimestamp(row.created_at) };
}

function checkPlan(plan: string): Plan {
  if (!isPlan(plan)) throw new ValidationError(`plan must be one of ${PLANS.join(', ')}`);
  return plan;
}

export async function createAccount(db: Db, input: { name: string; plan?: string }): Promise<Account> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 255) throw new ValidationError('name must be 1-255 characters');
  const plan = checkPlan(input.plan ?? 'free');
  // D22: the slug is made from the name once; renaming never moves the archive.
  const base = slugOf(name);
  const taken = await slugsStartingWith(db, base);
  const slug = uniqueSlug(base, (s) => taken.has(s));
  return toAccount(await insertAccount(db, { name, plan, slug, created_at: nowIso() }));
}

/**
 * D24.8: `sendwell accounts create`, recorded in the new account's log as the system. A sign-up's
 * account is recorded by the sign-up itself (its `member.joined`), and tests' accounts by nothing.
 */
export async function createAccountRecorded(db: Db, acting: ActingContext, input: { name: string; plan?: string }): Promise<Account> {
  return db.transaction().execute(async (trx) => {
    const account = await createAccount(trx, input);
    await recordAudit(trx, acting, account.id, 'account.created', { type: 'account', id: account.id });
    return account;
  });
}

/** D17.7 (`sendwell accounts list`). */
export async function listAccounts(db: Db): Promise<Account[]> {
  return (await listAccountRows(db)).map(toAccount);
}

/** D17.7 (`sendwell accounts update ID --plan P`): the key limit follows at once; a running server's key cache keeps the old rate limits for up to a minute. */
export async function changePlan(db: Db, acting: ActingContext, id: number, plan: string): Promise<Account> {
  const checked = checkPlan(plan);
  return db.transaction().execute(async (trx) => {
    const row = await updateAccountPlan(trx, id, checked);
    if (!row) throw new NotFoundError('NOT_FOUND', `account ${id} does not exist`);
    // D24.8: the CLI's change, recorded as the system.
    await recordAudit(trx, acting, id, 'account.plan_changed', { type: 'account', id });
    return toAccount(row);
  });
}

/** D17.7: the operator's account (the first), or null on an empty instance. */
export async function firstAccountId(db: Db): Promise<number | null> {
  const row = await findFirstAccount(db);
  return row ? Number(row.id) : null;
}

export async function getAccount(db: Db, id: number): Promise<Account> {
  const row = await findAccount(db, id);
  if (!row) throw new NotFoundError('NOT_FOUND', `account ${id} does not exist`);
  return toAccount(row);
}

/** Issue 34: what a caller may change of its own account; absent fields stay. */
export interface AccountSettingsChange {
  time_zone?: string;
}

/**
 * Issue 34 item 3: changes the account's settings; an unknown time zone is 400 naming the field
 * (D26.9: the name is kept as given). Recorded in the audit log (D24.8) when something changed.
 */
export async function updateAccount(db: Db, acting: ActingContext, id: number, change: AccountSettingsChange): Promise<Account> {
  const changes: { time_zone?: string } = {};
  if (change.time_zone !== undefined) {
    const zone = checkedTimeZone(change.time_zone);
    if (zone === null) throw new ValidationError(`time_zone must be an IANA time zone such as Europe/Paris; "${change.time_zone.slice(0, 100)}" is not one`);
    changes.time_zone = zone;
  }
  return db.transaction().execute(async (trx) => {
    const before = await findAccount(trx, id);
    if (!before) throw new NotFoundError('NOT_FOUND', `account ${id} does not exist`);
    if (Object.keys(changes).length === 0 || changes.time_zone === before.time_zone) return toAccount(before);
    const row = await updateAccountSettings(trx, id, changes);
    if (!row) throw new NotFoundError('NOT_FOUND', `account ${id} does not exist`);
    await recordAudit(trx, acting, id, 'account.updated', { type: 'account', id });
    return toAccount(row);
  });
}
