import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 14 C1: what keeps an automation from re-firing its own trigger without end.
 * - `automation_runs.chain`: the workflows whose steps led to the run, as a JSON array of ids
 *   (`[]` for a run started by a change from outside: the API, an import, an event). A step's
 *   changes start no run of a workflow in its run's chain or of its own workflow.
 * - The per-contact run cap counts a workflow's runs for a contact over the last 24 hours: the
 *   index below answers that as one range per (workflow, contact).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('automation_runs').addColumn('chain', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await sql`create index automation_runs_cap_idx on automation_runs (automation_id, contact_id, created_at)`.execute(db);
}
