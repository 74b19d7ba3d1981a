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
import { CONTENT_FORMATS } from '../../domain/content/content.ts';
import { CONTENT_WARNING_CODES } from '../../domain/content/content-checks.ts';
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

/** Issue 34 item 11: a SEND_EMAIL step's format and layout, as a campaign's (D22); absent, html without a layout, as before. */
const STEP_CONTENT_FIELDS = {
  format: Type.Optional(StringEnum(CONTENT_FORMATS, { description: 'what `html` is written in: html (the default), mjml or markdown; compiled (in its layout) when the step is saved, MJML errors 400 naming the line' })),
  template_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
      description: "a layout (the account's own or a built-in one) placed around the content at its {{ content }}, read when the step is saved: 404 TEMPLATE_NOT_FOUND when it is none, 400 for a starter",
    }),
  ),
};

const STEP_SHAPES: Record<StepType, Record<string, TSchema>> = {
  SEND_EMAIL: {
    subject: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.subjectMax }),
    html: templateText('the HTML'),
    text: Type.Optional(Type.Union([templateText('the text part (made from the HTML when absent)'), Type.Null()])),
    from_email: Type.String({ maxLength: 254 }),
    from_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    ...STEP_CONTENT_FIELDS,
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

/** Issue 34 item 11: a SEND_EMAIL step as the editor has it, previewed with a contact's or sample data and sample event data. */
export const StepPreviewBody = Type.Object({
  subject: Type.Optional(Type.Union([Type.String({ maxLength: AUTOMATION_LIMITS.subjectMax }), Type.Null()])),
  html: Type.Optional(Type.Union([templateText('the content, in `format`'), Type.Null()])),
  text: Type.Optional(Type.Union([templateText('the text part (made from the HTML when absent)'), Type.Null()])),
  from_email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
  from_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  ...STEP_CONTENT_FIELDS,
  email: Type.Optional(Type.String({ maxLength: 254, description: "a contact's address whose fields fill the merge fields (404 CONTACT_NOT_FOUND when it is no contact of the account); without it, sample data" })),
  event: Type.Optional(
    Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: "sample data of the triggering event, read as {{ event.<key> }} (D26.7); at most 64 KiB as JSON. A run of a LIST_JOINED trigger has { list_id, list_name }, of a TAG_ADDED or TAG_REMOVED one { tag }, of an EVENT one the event's data",
    }),
  ),
});

export const StepPreview = Type.Object(
  {
    subject: Type.String(),
    html: Type.Union([Type.String(), Type.Null()]),
    text: Type.Union([Type.String(), Type.Null()], { description: "the text part as sent: the step's own, or made from the HTML (D17.2)" }),
    merge_data: Type.Union([Type.Literal('contact'), Type.Literal('sample')], { description: 'whose data filled the contact merge fields' }),
    warnings: Type.Array(
      Type.Object({
        code: StringEnum(CONTENT_WARNING_CODES),
        message: Type.String({ description: 'what was found and what to do about it' }),
      }),
      { description: "the campaign page's content checks (D22), and merge fields nothing fills in a workflow (D26.7)" },
    ),
  },
  { $id: 'StepPreview' },
);
