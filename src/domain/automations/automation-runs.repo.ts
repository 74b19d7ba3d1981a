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

/** Claims up to `limit` due, unleased ACTIVE runs until `leaseUntil` (SKIP LOCKED on PostgreSQL, so runners never wait on each other). */
export function claimDueRuns(db: Db, dialect: Dialect, now: string, leaseUntil: string, limit: number) {
  let candidates = db
    .selectFrom('automation_runs')
    .select('id')
    .where('status', '=', 'ACTIVE')
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('due_at')
    .limit(limit);
  if (dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
  return db
    .updateTable('automation_runs')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', candidates)
    .returning(['id', 'account_id', 'automation_id', 'contact_id', 'step_index', 'event_data', 'chain'])
    .execute();
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
