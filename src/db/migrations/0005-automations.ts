import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D14/D15: stored events, automations, their runs and each run's step log.
 * - A run is the outbox row of the automation runner: `due_at` says when its current step may
 *   run (WAIT is a due time, never a timer in memory) and `lease_until` who holds it.
 * - "At most one active run per contact per workflow unless re-entry is allowed" is a unique
 *   partial index: `single` is 1 on runs of workflows without `allow_reentry`.
 * - The step log has one row per (run, step): recorded in the same transaction as the step's
 *   effect, so a step can never be recorded twice.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  const id = dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
  const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema
    .createTable('events')
    .addColumn('id', id, pk)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.references('contacts.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_contact_idx').on('events').columns(['contact_id']).execute();

  await db.schema
    .createTable('automations')
    .addColumn('id', id, pk)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    // what the trigger listens for, in the form activities are matched on: the event name,
    // the lower-cased tag, the list id as text, or '' for CONTACT_CREATED
    .addColumn('trigger_key', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('allow_reentry', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('automations_account_active_idx').on('automations').columns(['account_id', 'is_active', 'trigger_type']).execute();

  await db.schema
    .createTable('automation_runs')
    .addColumn('id', id, pk)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('automation_id', 'bigint', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('step_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('single', 'integer', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('event_data', 'text')
    .addColumn('due_at', ts, (c) => c.notNull())
    .addColumn('lease_until', ts)
    .addColumn('ended_reason', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('finished_at', ts)
    .execute();
  await sql`create unique index automation_runs_single_active_uq on automation_runs (automation_id, contact_id) where status = 'ACTIVE' and single = 1`.execute(db);
  await db.schema.createIndex('automation_runs_due_idx').on('automation_runs').columns(['status', 'due_at']).execute();
  await db.schema.createIndex('automation_runs_automation_idx').on('automation_runs').columns(['automation_id', 'id']).execute();
  await db.schema.createIndex('automation_runs_contact_idx').on('automation_runs').columns(['contact_id']).execute();

  await db.schema
    .createTable('automation_run_steps')
    .addColumn('id', id, pk)
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('automation_runs.id').onDelete('cascade'))
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('detail', 'text')
    // SEND_EMAIL: the message's recipient row (of the step's hidden AUTOMATION campaign), for tracking
    .addColumn('recipient_id', 'bigint')
    .addColumn('started_at', ts, (c) => c.notNull())
    .addColumn('finished_at', ts)
    .addUniqueConstraint('automation_run_steps_run_step_uq', ['run_id', 'step_index'])
    .execute();
}
