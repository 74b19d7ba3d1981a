import { Type } from '@sinclair/typebox';
import { ENGAGEMENT_FIELDS, FIELD_NAMES, FILTER_LIMITS, FILTER_OPS } from '../../domain/segments/segment-filter.ts';
import { SEGMENT_LIMITS } from '../../domain/segments/segment.ts';
import { documentedAs, NullableString, StringEnum, Timestamp } from './common.ts';
import { Contact } from './contacts.ts';

/**
 * D18's filter tree. The validator takes any JSON value and the service checks it, so a refusal
 * names the path inside the filter (`filter.all[2].op`) and a deep tree is refused at the depth
 * limit instead of being walked (D17.8: the document shows the real shape).
 */
const Condition = {
  type: 'object',
  required: ['field', 'op'],
  properties: {
    field: { type: 'string', description: `one of ${FIELD_NAMES.join(', ')}` },
    op: { type: 'string', enum: [...FILTER_OPS] },
    value: { description: 'a string, number, boolean, or an array of them for in / not_in; left out for exists / not_exists' },
    campaign_id: { description: `${ENGAGEMENT_FIELDS.join(', ')}: a campaign id, or "any"`, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['any'] }] },
    within_days: { type: 'integer', minimum: 0, maximum: FILTER_LIMITS.daysMax, description: 'engagement and event: only within the last N days' },
    event: { type: 'string', description: 'field "event": the event name (exact)' },
  },
};
export const SegmentFilter = documentedAs(Type.Unknown(), {
  description:
    `A group { "all": [F, ...] }, { "any": [F, ...] }, { "not": F }, or a condition { "field", "op", "value" }. ` +
    `At most ${FILTER_LIMITS.conditions} conditions, groups nested at most ${FILTER_LIMITS.depth} deep. String comparisons ignore case. ` +
    'Example: { "all": [ { "field": "tags", "op": "contains", "value": "vip" }, { "field": "campaign.opened", "op": "eq", "value": false, "campaign_id": 12 } ] }',
  anyOf: [
    { type: 'object', required: ['all'], properties: { all: { type: 'array', minItems: 1, items: {} } } },
    { type: 'object', required: ['any'], properties: { any: { type: 'array', minItems: 1, items: {} } } },
    { type: 'object', required: ['not'], properties: { not: { type: 'object' } } },
    Condition,
  ],
});

export const SegmentObject = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    filter: Type.Unknown({ description: 'the filter tree, as saved' }),
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
