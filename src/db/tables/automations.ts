import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag } from './columns.ts';

/** Automations: the events that trigger them, workflows, their runs, steps and usage. */

/** D14: an event received by POST /v1/events, kept with the contact it was about. */
export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  contact_id: number | null;
  name: string;
  data: string;
  created_at: Timestamp;
}

/** D15: a workflow; `trigger_key` is what activities are matched on (see automation-definition.ts). */
export interface AutomationsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  trigger_type: string;
  trigger_key: string;
  /** JSON array of the steps */
  steps: string;
  allow_reentry: Flag;
  is_active: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One contact's way through a workflow: the runner's outbox row (claimed by lease, due by `due_at`). */
export interface AutomationRunsTable {
  id: Generated<number>;
  account_id: number;
  automation_id: number;
  contact_id: number;
  status: string;
  step_index: ColumnType<number, number | undefined, number>;
  /** 1 when the workflow does not allow re-entry: a unique partial index keeps one ACTIVE run per contact */
  single: number;
  trigger_type: string;
  event_data: string | null;
  due_at: Timestamp;
  lease_until: NullableTimestamp;
  ended_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
  /** JSON array of the workflow ids whose steps led to this run, `[]` when a change from outside started it (issue 14 C1) */
  chain: ColumnType<string, string | undefined, string>;
  /** the root run (started by a change from outside) this run descends from; null on a root (issue 28 H3) */
  origin_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Runs started and steps run per account per clock hour, the hourly automation budgets (issue 28 H3). */
export interface AutomationUsageTable {
  account_id: number;
  /** hours since the epoch (UTC) */
  hour: number;
  runs_started: ColumnType<number, number | undefined, number>;
  steps_run: ColumnType<number, number | undefined, number>;
}

/** A run's step log: one row per step, written in the same transaction as the step's effect. */
export interface AutomationRunStepsTable {
  id: Generated<number>;
  run_id: number;
  step_index: number;
  type: string;
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  detail: string | null;
  /** SEND_EMAIL: the message's campaign recipient row (tracking, unsubscribe, statistics) */
  recipient_id: number | null;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
}
