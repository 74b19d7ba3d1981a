import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { keysetAfter, rankOf, type KeysetSlice } from '../../db/keyset.ts';
import type { AutomationRunsTable, AutomationsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { PageRequest } from '../shared/paging.ts';

export function findAutomation(db: Db, accountId: number, id: number) {
  return db.selectFrom('automations').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function insertAutomation(db: Db, values: Insertable<AutomationsTable>) {
  return db.insertInto('automations').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateAutomation(db: Db, accountId: number, id: number, values: Updateable<AutomationsTable>) {
  return db.updateTable('automations').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteAutomation(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('automations').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Oldest first, ties by id (as lists, D6). */
export async function pageAutomations(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('automations').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}

/** A workflow's runs, newest first, with the contact's e-mail. */
export async function pageRuns(db: Db, automationId: number, page: PageRequest) {
  const base = db.selectFrom('automation_runs').where('automation_runs.automation_id', '=', automationId);
  const rows = base.innerJoin('contacts', 'contacts.id', 'automation_runs.contact_id').selectAll('automation_runs').select('contacts.email').orderBy('automation_runs.id', 'desc');
  return pageQuery(rows, base, page);
}

/** D21: a contact's runs with their workflow's name, oldest first (the personal data export). */
export function runsOfContact(db: Db, contactId: number) {
  return db
    .selectFrom('automation_runs')
    .innerJoin('automations', 'automations.id', 'automation_runs.automation_id')
    .selectAll('automation_runs')
    .select('automations.name as automation_name')
    .where('automation_runs.contact_id', '=', contactId)
    .orderBy('automation_runs.id')
    .execute();
}

export function stepsOfRuns(db: Db, runIds: number[]) {
  if (runIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('automation_run_steps').selectAll().where('run_id', 'in', runIds).orderBy('run_id').orderBy('step_index').execute();
}

/** Issue 28 H3: how many active workflows the account has (automations_account_active_idx). */
export async function countActiveAutomations(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('automations').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('is_active', '=', 1).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The account's active workflows listening for any of these trigger types. */
const listening = (db: Db, accountId: number, triggerTypes: string[]) =>
  db
    .selectFrom('automations')
    .select(['id', 'trigger_type', 'trigger_key', 'allow_reentry'])
    .where('account_id', '=', accountId)
    .where('is_active', '=', 1)
    .where('trigger_type', 'in', triggerTypes);

/**
 * Built once per number of trigger types (db/prepared.ts): every contact's create, change and
 * event asks it, mostly for one or two types (issue 35). There are five types in all.
 */
const listeningFor = new Map<number, ReturnType<typeof preparedListening>>();
const preparedListening = (count: number) => preparedQuery(count + 1, (db, _dialect, accountId: number, ...types: string[]) => listening(db, accountId, types));

export async function findListeningAutomations(db: Db, accountId: number, triggerTypes: string[]) {
  if (triggerTypes.length === 0) return [];
  let query = listeningFor.get(triggerTypes.length);
  if (!query) listeningFor.set(triggerTypes.length, (query = preparedListening(triggerTypes.length)));
  return query(db, accountId, ...triggerTypes);
}

/** `${automation_id}:${contact_id}`, the key of the counts below. */
export const runKey = (automationId: number, contactId: number) => `${automationId}:${contactId}`;

/**
 * How many runs each (workflow, contact) pair among these has started since `since`, whatever
 * their status: what issue 14 C1's per-contact cap counts. One range of automation_runs_cap_idx
 * per pair; pairs with none are absent.
 */
export async function countRunsSince(db: Db, automationIds: number[], contactIds: number[], since: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (automationIds.length === 0 || contactIds.length === 0) return counts;
  const rows = await db
    .selectFrom('automation_runs')
    .select(['automation_id', 'contact_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('automation_id', 'in', automationIds)
    .where('contact_id', 'in', contactIds)
    .where('created_at', '>=', since)
    .groupBy(['automation_id', 'contact_id'])
    .execute();
  for (const r of rows) counts.set(runKey(Number(r.automation_id), Number(r.contact_id)), Number(r.n));
  return counts;
}

/** Inserts runs; a workflow without re-entry that already has an ACTIVE run for the contact keeps it (the unique partial index). Returns how many were inserted. */
export async function insertRuns(db: Db, rows: Insertable<AutomationRunsTable>[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db.insertInto('automation_runs').values(rows).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Ends up to `limit` of a workflow's ACTIVE runs with ids above `afterId` (oldest first), EXITED
 * with `reason`, and returns them with their contact's e-mail. Walking by id over
 * automation_runs_automation_idx, each call starts where the last one ended.
 */
export async function endActiveRuns(db: Db, automationId: number, reason: string, now: string, afterId: number, limit: number) {
  const ids = db
    .selectFrom('automation_runs')
    .select('id')
    .where('automation_id', '=', automationId)
    .where('status', '=', 'ACTIVE')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit);
  const ended = await db
    .updateTable('automation_runs')
    .set({ status: 'EXITED', ended_reason: reason, lease_until: null, finished_at: now, updated_at: now })
    .where('id', 'in', ids)
    .returning(['id', 'contact_id'])
    .execute();
  if (ended.length === 0) return [];
  const emails = new Map(
    (await db.selectFrom('contacts').select(['id', 'email']).where('id', 'in', [...new Set(ended.map((r) => r.contact_id))]).execute()).map((c) => [c.id, c.email]),
  );
  return ended
    .map((r) => {
      const email = emails.get(r.contact_id);
      return { id: Number(r.id), contact: email === undefined ? null : { id: r.contact_id, email } };
    })
    .sort((a, b) => a.id - b.id);
}

/** D17.9: runs under way (ACTIVE), by the (status, due_at) index; finished runs are history, not counted here. */
export async function countActiveRuns(db: Db): Promise<number> {
  const row = await db.selectFrom('automation_runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'ACTIVE').executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Issue 34: the contact's automation runs for its timeline, by start, newest first, at most `slice.limit` (index (contact_id, created_at, id), migration 0033). */
export function runTimeline(db: Db, contactId: number, slice: KeysetSlice) {
  return db
    .selectFrom('automation_runs')
    .innerJoin('automations', 'automations.id', 'automation_runs.automation_id')
    .select([
      rankOf(slice.rank).as('rank'),
      'automation_runs.created_at as at',
      'automation_runs.id as id',
      'automations.id as ref_id',
      'automations.name as ref_name',
      'automation_runs.status as detail',
    ])
    .where('automation_runs.contact_id', '=', contactId)
    .where(keysetAfter(slice, 'automation_runs.created_at', 'automation_runs.id'))
    .orderBy('automation_runs.created_at', 'desc')
    .orderBy('automation_runs.id', 'desc')
    .limit(slice.limit);
}
