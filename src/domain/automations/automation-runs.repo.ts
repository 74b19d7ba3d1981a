import type { Insertable, Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { AutomationRunStepsTable } from '../../db/schema.ts';

/**
 * The automation runner's SQL (issue 15: it was written inside the runner): claiming due runs,
 * holding and moving them, and their step log. Each write is guarded where a concurrent runner
 * could race it, and takes `db | trx` so it joins the step's transaction.
 */

/** The steps of the workflows a batch of runs belongs to, read once per batch. */
export function findWorkflowSteps(db: Db, automationIds: number[]) {
  return db.selectFrom('automations').select(['id', 'steps']).where('id', 'in', automationIds).execute();
}

/**
 * Claims up to `limit` due, unleased ACTIVE runs until `leaseUntil`, at most `perAccount` of any
 * one account (issue 28 H3: the oldest-first claim let one account's backlog fill every batch).
 * Each account's due runs are ranked oldest first (ROW_NUMBER over the account), the first
 * `perAccount` of each are candidates, and the oldest `limit` of those are taken. PostgreSQL
 * allows no FOR UPDATE beside a window function, so the chosen ids are locked one level out
 * (SKIP LOCKED: runners never wait on each other), and the UPDATE checks again that each is still
 * due and unleased. The rows come back in no particular order: the runner orders them
 * (interleaveByAccount).
 */
export function claimDueRuns(db: Db, dialect: Dialect, now: string, leaseUntil: string, limit: number, perAccount: number) {
  const ranked = db
    .selectFrom('automation_runs')
    .select((eb) => ['id', 'due_at', eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('account_id').orderBy('due_at').orderBy('id')).as('rank')])
    .where('status', '=', 'ACTIVE')
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]));
  const fair = db.selectFrom(ranked.as('r')).select('r.id').where('r.rank', '<=', perAccount).orderBy('r.due_at').orderBy('r.id').limit(limit);
  const candidates = dialect === 'postgres' ? db.selectFrom('automation_runs').select('id').where('id', 'in', fair).forUpdate().skipLocked() : fair;
  return db
    .updateTable('automation_runs')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', candidates)
    .where('status', '=', 'ACTIVE')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .returning(['id', 'account_id', 'automation_id', 'contact_id', 'step_index', 'event_data', 'chain', 'origin_id', 'due_at'])
    .execute();
}

/** Issue 28 H3: runs that descend from the root run `originId` (the descendants-per-outside-event budget). */
export async function countDescendants(db: Db, originId: number): Promise<number> {
  const row = await db.selectFrom('automation_runs').select((eb) => eb.fn.countAll<number>().as('n')).where('origin_id', '=', originId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Issue 28 H3: runs started and steps run this clock hour by each of these accounts (absent: none). */
export async function usageOf(db: Db, accountIds: number[], hour: number): Promise<Map<number, { runs: number; steps: number }>> {
  const usage = new Map<number, { runs: number; steps: number }>();
  if (accountIds.length === 0) return usage;
  const rows = await db.selectFrom('automation_usage').selectAll().where('account_id', 'in', accountIds).where('hour', '=', hour).execute();
  for (const r of rows) usage.set(Number(r.account_id), { runs: Number(r.runs_started), steps: Number(r.steps_run) });
  return usage;
}

/** Adds to an account's counts for the hour (one upsert). */
export async function addUsage(db: Db, accountId: number, hour: number, add: { runs?: number; steps?: number }): Promise<void> {
  const runs = add.runs ?? 0;
  const steps = add.steps ?? 0;
  if (runs === 0 && steps === 0) return;
  await db
    .insertInto('automation_usage')
    .values({ account_id: accountId, hour, runs_started: runs, steps_run: steps })
    .onConflict((oc) =>
      oc.columns(['account_id', 'hour']).doUpdateSet((eb) => ({
        runs_started: eb('automation_usage.runs_started', '+', runs),
        steps_run: eb('automation_usage.steps_run', '+', steps),
      })),
    )
    .execute();
}

/** Forgets the counts of hours before `hour`: only the current hour's are read. */
export async function pruneUsage(db: Db, hour: number): Promise<void> {
  await db.deleteFrom('automation_usage').where('hour', '<', hour).execute();
}

/** PostgreSQL: locks the contact row first, the order every writer of contacts and runs takes. */
export async function lockContactRow(db: Db, dialect: Dialect, contactId: number): Promise<void> {
  if (dialect === 'postgres') await db.selectFrom('contacts').select('id').where('id', '=', contactId).forUpdate().execute();
}

/** Renews the lease of a run this runner still holds at this step; false when another has it now. */
export async function renewRunLease(db: Db, run: { id: number; step_index: number; lease_until: string }, renewed: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('automation_runs')
    .set({ updated_at: now, lease_until: renewed })
    .where('id', '=', run.id)
    .where('status', '=', 'ACTIVE')
    .where('step_index', '=', run.step_index)
    .where('lease_until', '=', run.lease_until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The run goes on to `stepIndex`, due at `dueAt`; a WAIT gives its lease back. */
export async function moveRun(db: Db, runId: number, stepIndex: number, dueAt: string, now: string, releaseLease: boolean): Promise<void> {
  await db
    .updateTable('automation_runs')
    .set({ step_index: stepIndex, due_at: dueAt, updated_at: now, ...(releaseLease ? { lease_until: null } : {}) })
    .where('id', '=', runId)
    .execute();
}

export async function endRun(db: Db, runId: number, status: 'COMPLETED' | 'EXITED', reason: string | null, now: string): Promise<void> {
  await db.updateTable('automation_runs').set({ status, ended_reason: reason, lease_until: null, finished_at: now, updated_at: now }).where('id', '=', runId).execute();
}

/** A deferred SEND_EMAIL: the run waits, unleased, until `dueAt`. */
export async function deferRun(db: Db, runId: number, dueAt: string, now: string): Promise<void> {
  await db.updateTable('automation_runs').set({ due_at: dueAt, lease_until: null, updated_at: now }).where('id', '=', runId).execute();
}

/** Gives a claimed run back, unless its lease changed hands meanwhile. */
export async function releaseRun(db: Db, runId: number, leaseUntil: string): Promise<void> {
  await db.updateTable('automation_runs').set({ lease_until: null }).where('id', '=', runId).where('lease_until', '=', leaseUntil).execute();
}

export async function insertRunStep(db: Db, values: Insertable<AutomationRunStepsTable>): Promise<void> {
  await db.insertInto('automation_run_steps').values(values).execute();
}

/** The log of a run's step at `stepIndex`, if it was started. */
export function findRunStep(db: Db, runId: number, stepIndex: number) {
  return db.selectFrom('automation_run_steps').selectAll().where('run_id', '=', runId).where('step_index', '=', stepIndex).executeTakeFirst();
}

export async function updateRunStep(db: Db, id: number, values: Updateable<AutomationRunStepsTable>): Promise<void> {
  await db.updateTable('automation_run_steps').set(values).where('id', '=', id).execute();
}

/** Records the outcome of the step at `stepIndex` of a run. */
export async function recordRunStep(db: Db, runId: number, stepIndex: number, values: Updateable<AutomationRunStepsTable>): Promise<void> {
  await db.updateTable('automation_run_steps').set(values).where('run_id', '=', runId).where('step_index', '=', stepIndex).execute();
}
