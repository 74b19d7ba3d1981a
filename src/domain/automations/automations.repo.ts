import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { AutomationsTable } from '../../db/schema.ts';
import { offsetOf, type PageRequest } from '../shared/paging.ts';

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
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').limit(page.size).offset(offsetOf(page)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** A workflow's runs, newest first, with the contact's e-mail. */
export async function pageRuns(db: Db, automationId: number, page: PageRequest) {
  const base = db.selectFrom('automation_runs').where('automation_runs.automation_id', '=', automationId);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('contacts', 'contacts.id', 'automation_runs.contact_id')
      .selectAll('automation_runs')
      .select('contacts.email')
      .orderBy('automation_runs.id', 'desc')
      .limit(page.size)
      .offset(offsetOf(page))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export function stepsOfRuns(db: Db, runIds: number[]) {
  if (runIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('automation_run_steps').selectAll().where('run_id', 'in', runIds).orderBy('run_id').orderBy('step_index').execute();
}
