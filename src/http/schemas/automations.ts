import { Type, type TSchema } from '@sinclair/typebox';
import {
  AUTOMATION_LIMITS,
  CONDITION_OPS,
  RUN_STATUSES,
  RUN_STEP_STATUSES,
  STEP_TYPES,
  TRIGGER_TYPES,
  type StepType,
  type TriggerType,
} from '../../domain/automations/automation-definition.ts';
import { TEMPLATE_LIMITS } from '../../domain/content/template-limits.ts';
import { CONTACT_LIMITS } from '../../domain/contacts/contact-fields.ts';
import { documentedAs, NullableString, NullableTimestamp, StringEnum, Timestamp } from './common.ts';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const TagValue = Type.String({ minLength: 1, maxLength: CONTACT_LIMITS.tagMax, description: 'a tag (case-insensitive), trimmed' });
const ListId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const templateText = (description: string) => Type.String({ maxLength: TEMPLATE_LIMITS.bytesMax, description: `${description}; a Liquid template of at most ${TEMPLATE_LIMITS.bytesMax} bytes` });

/**
 * D15's trigger and step shapes, one schema per type, keyed by `type` (the domain's TRIGGER_TYPES
 * and STEP_TYPES: a type without its shape here does not compile). The service validates them
 * (automation-definition.ts), naming the failing field as `steps[2].seconds` (D7), so the validator
 * runs only the `type` check and the document shows the union (D17.8).
 */
const TRIGGER_SHAPES: Record<TriggerType, Record<string, TSchema>> = {
  EVENT: { event: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.eventMax, description: 'the event name, exactly as POST /v1/events sends it' }) },
  TAG_ADDED: { tag: TagValue },
  TAG_REMOVED: { tag: TagValue },
  LIST_JOINED: { list_id: ListId },
  CONTACT_CREATED: {},
};

const STEP_SHAPES: Record<StepType, Record<string, TSchema>> = {
  SEND_EMAIL: {
    subject: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.subjectMax }),
    html: templateText('the HTML'),
    text: Type.Optional(Type.Union([templateText('the text part (made from the HTML when absent)'), Type.Null()])),
    from_email: Type.String({ maxLength: 254 }),
    from_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  },
  WAIT: { seconds: Type.Integer({ minimum: 1, maximum: AUTOMATION_LIMITS.waitMaxSeconds }) },
  ADD_TAG: { tag: TagValue },
  REMOVE_TAG: { tag: TagValue },
  ADD_TO_LIST: { list_id: ListId },
  REMOVE_FROM_LIST: { list_id: ListId },
  UPDATE_LEAD_SCORE: { delta: Type.Integer({ minimum: -AUTOMATION_LIMITS.leadScoreDeltaMax, maximum: AUTOMATION_LIMITS.leadScoreDeltaMax }) },
  CONDITION: {
    field: Type.String({ maxLength: 300, description: 'tags, lead_score, status, custom_fields.<key> or event.<path> (a path in the triggering event\'s data)' }),
    op: StringEnum(CONDITION_OPS),
    value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { description: 'required unless op is exists; a number for gte and lte' })),
  },
};

/** A oneOf of named schemas (`StepWait`, `TriggerEvent`, ...) that the `type` field selects (OpenAPI's discriminator needs names). */
function discriminated<K extends string>(name: string, shapes: Record<K, Record<string, TSchema>>) {
  const named = Object.entries<Record<string, TSchema>>(shapes).map(([type, props]) => {
    const id = name + type.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());
    return { type, id, schema: Type.Object({ type: Type.Literal(type), ...props }, { $id: id }) };
  });
  return {
    oneOf: named.map((n) => n.schema),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(named.map((n) => [n.type, `#/components/schemas/${n.id}`])) },
  };
}

export const Trigger = documentedAs(
  Type.Object({ type: literals(TRIGGER_TYPES) }, { additionalProperties: true }),
  discriminated('Trigger', TRIGGER_SHAPES),
);

export const Step = documentedAs(Type.Object({ type: literals(STEP_TYPES) }, { additionalProperties: true }), discriminated('Step', STEP_SHAPES));

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

export const RunStep = Type.Object({
  step_index: Type.Integer(),
  type: StringEnum(STEP_TYPES),
  status: StringEnum(RUN_STEP_STATUSES, { description: 'DONE, SENDING (in flight), SENT, BOUNCED, FAILED, SKIPPED, FALSE (a CONDITION that ended the run)' }),
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
  status: StringEnum(RUN_STATUSES, {
    description:
      'ACTIVE, COMPLETED (all steps done) or EXITED: a CONDITION was false, the workflow was stopped (POST /{id}/stop), or the run was refused by the limit of 100 runs of one workflow for one contact within 24 hours; ended_reason says which',
  }),
  trigger_type: StringEnum(TRIGGER_TYPES),
  current_step: Type.Union([Type.Integer(), Type.Null()], { description: 'index of the next step to run (ACTIVE runs)' }),
  current_step_type: Type.Union([StringEnum(STEP_TYPES), Type.Null()]),
  due_at: Type.Union([Timestamp, Type.Null()], { description: 'when the current step may run (after a WAIT)' }),
  ended_reason: NullableString({ description: 'why an EXITED run ended' }),
  history: Type.Array(RunStep),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: NullableTimestamp,
});
