import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 28 H3: budgets per account for automations, not per item.
 * - `automation_runs.origin_id`: the run an outside change started (the root) that this run
 *   descends from through steps' changes; null on a root. A root's descendants are counted by
 *   the index below (the descendants-per-outside-event budget). No foreign key: a root may be
 *   deleted with its workflow while its descendants go on.
 * - `automation_usage`: runs started and steps run per account per clock hour (UTC, `hour` in
 *   hours since the epoch), the hourly budgets' counters: one row per account per busy hour,
 *   pruned by the runner once they are two hours old.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('automation_runs').addColumn('origin_id', 'bigint').execute();
  await sql`create index automation_runs_origin_idx on automation_runs (origin_id) where origin_id is not null`.execute(db);
  await db.schema
    .createTable('automation_usage')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('runs_started', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('steps_run', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('automation_usage_pk', ['account_id', 'hour'])
    .execute();
}
