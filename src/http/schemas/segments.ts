import { Type } from '@sinclair/typebox';
import { CUSTOM_FIELD_KEY } from '../../domain/contacts/custom-field-key.ts';
import { CUSTOM_FIELD_PREFIX, ENGAGEMENT_FIELDS, FIELD_NAMES, FILTER_LIMITS, FILTER_OPS } from '../../domain/segments/segment-filter.ts';
import { SEGMENT_LIMITS } from '../../domain/segments/segment.ts';
import { documentedAs, NullableString, StringEnum, Timestamp } from './common.ts';
import { Contact } from './contacts.ts';

const SCALARS = [Type.String({ maxLength: FILTER_LIMITS.stringMax }), Type.Number(), Type.Boolean()];
const GROUP_ITEMS = { minItems: 1, maxItems: FILTER_LIMITS.conditions };

/** A condition's keys as the segment filter reads them (segment-filter.ts); which apply depends on the field. */
const Condition = Type.Object(
  {
    field: Type.Union([StringEnum(FIELD_NAMES.filter((name) => !name.startsWith(CUSTOM_FIELD_PREFIX))), Type.String({ pattern: `^${CUSTOM_FIELD_PREFIX.replace('.', '\\.')}${CUSTOM_FIELD_KEY.source.slice(1)}` })], {
      description: `one of ${FIELD_NAMES.join(', ')}`,
    }),
    op: StringEnum(FILTER_OPS),
    value: Type.Optional(
      Type.Union([...SCALARS, Type.Null(), Type.Array(Type.Union(SCALARS), { minItems: 1, maxItems: FILTER_LIMITS.valuesPerCondition })], {
        description: 'a string, number or boolean, or an array of them for in / not_in; left out for exists / not_exists',
      }),
    ),
    campaign_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('any')], { description: `${ENGAGEMENT_FIELDS.join(', ')}: a campaign id, or "any"` })),
    within_days: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: FILTER_LIMITS.daysMax }), Type.Null()], { description: 'engagement and event: only within the last N days' })),
    event: Type.Optional(Type.String({ maxLength: FILTER_LIMITS.stringMax, description: 'field "event": the event name (exact)' })),
  },
  { additionalProperties: false },
);

/**
 * D18's filter tree, a recursive schema named SegmentFilter in the document, so a client types a
 * group inside a group, `not` at the top included (issue 30 item 12). It describes the shape; the
 * validator takes any JSON value and the segment filter checks it (segment-filter.ts), so a
 * refusal names the path inside the filter (`filter.all[2].op`), and the limits a schema cannot
 * hold (how deep groups nest, how many conditions in all, which keys suit which field) stay there.
 */
export const SegmentFilterSchema = Type.Recursive(
  (Filter) =>
    Type.Union([
      Type.Object({ all: Type.Array(Filter, GROUP_ITEMS) }, { additionalProperties: false }),
      Type.Object({ any: Type.Array(Filter, GROUP_ITEMS) }, { additionalProperties: false }),
      Type.Object({ not: Filter }, { additionalProperties: false }),
      Condition,
    ]),
  {
    $id: 'SegmentFilter',
    description:
      `A group { "all": [F, ...] }, { "any": [F, ...] }, { "not": F }, or a condition { "field", "op", "value" }. ` +
      `At most ${FILTER_LIMITS.conditions} conditions, groups nested at most ${FILTER_LIMITS.depth} deep. String comparisons ignore case. ` +
      'Example: { "all": [ { "field": "tags", "op": "contains", "value": "vip" }, { "field": "campaign.opened", "op": "eq", "value": false, "campaign_id": 12 } ] }',
  },
);
const SegmentFilter = documentedAs(Type.Unknown(), SegmentFilterSchema);

export const SegmentObject = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    filter: SegmentFilter,
    contact_count: Type.Integer({ description: 'members now, computed when read' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Segment' },
);

const name = Type.String({ maxLength: 1000, description: `1-${SEGMENT_LIMITS.nameMax} characters after trimming; unique per account, ignoring case` });
const description = NullableString({ maxLength: SEGMENT_LIMITS.descriptionMax });

export const CreateSegmentBody = Type.Object({ name, description: Type.Optional(description), filter: SegmentFilter });
export const UpdateSegmentBody = Type.Object({ name: Type.Optional(name), description: Type.Optional(description), filter: Type.Optional(SegmentFilter) });
export const PreviewSegmentBody = Type.Object({ filter: SegmentFilter });
export const SegmentPreview = Type.Object({
  count: Type.Integer(),
  contacts: Type.Array(Contact, { description: `the first ${SEGMENT_LIMITS.previewSize} members, newest first` }),
});

export const SegmentFields = Type.Object({
  custom_fields: Type.Array(Type.Object({ key: Type.String(), types: Type.Array(StringEnum(['boolean', 'number', 'string'] as const)) })),
  tags: Type.Array(Type.String()),
});
