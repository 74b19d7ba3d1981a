import { Type } from '@sinclair/typebox';
import { CONDITION_OPS, STEP_TYPES, TRIGGER_TYPES } from '../../domain/automations/automation-definition.ts';
import { NullableString, NullableTimestamp, Timestamp } from './common.ts';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const Trigger = Type.Object(
  {
    type: literals(TRIGGER_TYPES),
    event: Type.Optional(Type.String({ description: 'EVENT: the event name' })),
    tag: Type.Optional(Type.String({ description: 'TAG_ADDED / TAG_REMOVED: the tag (case-insensitive)' })),
    list_id: Type.Optional(Type.Integer({ description: 'LIST_JOINED: the list' })),
  },
  { additionalProperties: true },
);

/** The step's parameters are checked by the service, which names the failing field (D7). */
export const Step = Type.Object(
  { type: literals(STEP_TYPES) },
  {
    additionalProperties: true,
    description: `{ type, ...params }: SEND_EMAIL { subject, html, text?, from_email, from_name? }, WAIT { seconds }, ADD_TAG / REMOVE_TAG { tag }, ADD_TO_LIST / REMOVE_FROM_LIST { list_id }, UPDATE_LEAD_SCORE { delta }, CONDITION { field: tags | lead_score | status | custom_fields.<key> | event.<path>, op: ${CONDITION_OPS.join(' | ')}, value? }`,
  },
);

export const Automation = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  trigger: Trigger,
  steps: Type.Array(Step),
  allow_reentry: Type.Boolean({ description: 'whether a contact may be in several active runs of this workflow at once' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateAutomationBody = Type.Object({
  name: Type.String(),
  trigger: Trigger,
  steps: Type.Array(Step, { minItems: 1, maxItems: 50 }),
  allow_reentry: Type.Optional(Type.Boolean({ default: false })),
});

export const UpdateAutomationBody = Type.Object({
  name: Type.Optional(Type.String()),
  trigger: Type.Optional(Trigger),
  steps: Type.Optional(Type.Array(Step, { minItems: 1, maxItems: 50 })),
  allow_reentry: Type.Optional(Type.Boolean()),
});

const RunStep = Type.Object({
  step_index: Type.Integer(),
  type: Type.String(),
  status: Type.String({ description: 'DONE, SENDING (in flight), SENT, BOUNCED, FAILED, SKIPPED, FALSE (a CONDITION that ended the run)' }),
  attempts: Type.Integer(),
  detail: NullableString(),
  started_at: Timestamp,
  finished_at: NullableTimestamp,
});

export const AutomationRun = Type.Object({
  id: Type.Integer(),
  automation_id: Type.Integer(),
  contact_id: Type.Integer(),
  email: Type.String(),
  status: Type.String({
    description:
      'ACTIVE, COMPLETED (all steps done) or EXITED: a CONDITION was false, the workflow was stopped (POST /{id}/stop), or the run was refused by the limit of 100 runs of one workflow for one contact within 24 hours; ended_reason says which',
  }),
  trigger_type: Type.String(),
  current_step: Type.Union([Type.Integer(), Type.Null()], { description: 'index of the next step to run (ACTIVE runs)' }),
  current_step_type: NullableString(),
  due_at: Type.Union([Timestamp, Type.Null()], { description: 'when the current step may run (after a WAIT)' }),
  ended_reason: NullableString({ description: 'why an EXITED run ended' }),
  history: Type.Array(RunStep),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: NullableTimestamp,
});
