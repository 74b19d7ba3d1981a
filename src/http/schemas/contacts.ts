import { Type } from '@sinclair/typebox';
import { CONTACT_LIMITS, CONTACT_STATUSES } from '../../domain/contacts/contact-fields.ts';
import { MEMBERSHIP_STATUSES } from '../../domain/lists/membership-status.ts';
import { documentedAs, NullableString, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.ts';
import { CONSENT_SOURCES } from '../../domain/consent/consent.ts';
import { RunStep } from './automations.ts';
import { RUN_STATUSES, TRIGGER_TYPES } from '../../domain/automations/automation-definition.ts';

/** D20: SUBSCRIBED, UNCONFIRMED (waiting for the person's confirmation) or UNSUBSCRIBED. */
export const MembershipStatus = Type.Union(MEMBERSHIP_STATUSES.map((s) => Type.Literal(s)));

const CustomFieldValue = Type.Union([Type.String({ maxLength: CONTACT_LIMITS.customStringMax }), Type.Number(), Type.Boolean(), Type.Null()]);

export const CustomFields = Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), CustomFieldValue, {
  maxProperties: CONTACT_LIMITS.customFieldsMax,
  description: 'flat object; a null value removes the key (D11)',
});

const Tags = Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000, description: `1-${CONTACT_LIMITS.tagMax} characters each after trimming, at most ${CONTACT_LIMITS.tagsMax} after de-duplication` });

export const Contact = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    first_name: NullableString(),
    last_name: NullableString(),
    phone: NullableString(),
    tags: Type.Array(Type.String()),
    custom_fields: Type.Object({}, { additionalProperties: true }),
    lead_score: Type.Integer(),
    status: Type.Union(CONTACT_STATUSES.map((s) => Type.Literal(s))),
    list_ids: Type.Array(Type.Integer(), { description: 'D20: the lists whose membership is SUBSCRIBED' }),
    memberships: Type.Array(Type.Object({ list_id: Type.Integer(), status: MembershipStatus }), { description: 'D20: every membership, with its status, by list id' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Contact' },
);

const editable = {
  first_name: Type.Optional(NullableString({ maxLength: CONTACT_LIMITS.nameMax })),
  last_name: Type.Optional(NullableString({ maxLength: CONTACT_LIMITS.nameMax })),
  phone: Type.Optional(NullableString({ maxLength: CONTACT_LIMITS.phoneMax, description: 'digits, spaces and + - ( ) .' })),
  tags: Type.Optional(Tags),
  custom_fields: Type.Optional(CustomFields),
  // The maximum keeps ids beyond 2^53 (which no row has) from reaching a bigint parameter as a 500 on PostgreSQL.
  list_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], { description: 'list to add the contact to' })),
  list_name: Type.Optional(NullableString({ description: 'alternative to list_id: the list with this name' })),
  double_opt_in: Type.Optional(
    Type.Boolean({
      description: "D20: on a list whose opt_in is `double`, the membership waits UNCONFIRMED and the contact is mailed a confirmation link; without it (or on a `single` list) the membership is SUBSCRIBED: the caller vouches",
    }),
  ),
};

export const CreateContactBody = Type.Object({
  email: Type.String({ description: 'trimmed and lower-cased; at most 254 characters' }),
  ...editable,
});

export const UpdateContactBody = Type.Object({
  ...editable,
  status: Type.Optional(Type.Union([Type.Literal('SUBSCRIBED'), Type.Literal('UNSUBSCRIBED')])),
});

export const EmailParams = Type.Object({ email: Type.String({ description: "the contact's e-mail address (case-insensitive)" }) });

/** The contacts list's filters: its page, and its CSV export (issue 34). */
const ContactFilters = {
  search: Type.Optional(Type.String({ description: 'matches e-mail, first or last name' })),
  tag: Type.Optional(Type.String()),
  list_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  status: Type.Optional(Type.Union(CONTACT_STATUSES.map((s) => Type.Literal(s)))),
  segment_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "only the segment's members (D18); 404 SEGMENT_NOT_FOUND when it is not the account's" })),
};

export const ContactQuery = Type.Object({ ...PageQuery, ...ContactFilters });

export const ContactExportQuery = Type.Object(ContactFilters);

/** Issue 34: GET /contacts/export's answer, a CSV file as `sendwell export` writes it (D17.6). */
export const ContactsCsv = documentedAs(Type.Any(), {
  description:
    'The contacts as CSV (UTF-8, a header line first), in the columns the import reads: email, first_name, last_name, phone, status, tags and lists (several separated by ;), then one column per custom-field key the exported contacts hold. Cells a spreadsheet would read as a formula start with a single quote. Content-Disposition names the file contacts.csv',
  content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } },
});

/** D20: one consent record. */
export const ConsentRecord = Type.Object(
  {
    source: StringEnum(CONSENT_SOURCES, { description: 'FORM (a sign-up form, or the preference centre with form_id null), API, IMPORT, CONFIRMATION (the person confirmed a double opt-in), or EVENT (an event for an unknown address created the contact: no lists, no consent; it is not mailed until it subscribes)' }),
    form_id: Type.Union([Type.Integer(), Type.Null()]),
    list_ids: Type.Array(Type.Integer(), { description: 'the lists this consent was for' }),
    ip: NullableString({ description: "the client's address" }),
    user_agent: NullableString(),
    statement: NullableString({ description: 'the words consent was given on: for an import, what the importer confirmed (consentStatement); for a form with a consent checkbox, its words exactly as the person saw them when they ticked it (issue 34); null when none were kept' }),
    at: Timestamp,
  },
  { $id: 'ConsentRecord' },
);

/** D21: one person's data, as `GET /contacts/{email}/export` answers it (PersonalDataDocument). */
export const PersonalData = Type.Object({
  contact: Contact,
  memberships: Type.Array(
    Type.Object({
      list_id: Type.Integer(),
      list_name: Type.String(),
      status: MembershipStatus,
      created_at: Timestamp,
      status_changed_at: NullableTimestamp,
    }),
  ),
  consents: Type.Array(ConsentRecord, { description: 'D20 consent records, oldest first' }),
  events: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), data: Type.Unknown({ description: 'as POST /v1/events received it' }), created_at: Timestamp })),
  automation_runs: Type.Array(
    Type.Object({
      id: Type.Integer(),
      automation_id: Type.Integer(),
      automation_name: Type.String(),
      status: StringEnum(RUN_STATUSES),
      trigger_type: StringEnum(TRIGGER_TYPES),
      event_data: Type.Unknown({ description: "the triggering event's data, or null" }),
      ended_reason: NullableString(),
      history: Type.Array(RunStep),
      created_at: Timestamp,
      finished_at: NullableTimestamp,
    }),
  ),
  campaigns: Type.Array(
    Type.Object({ campaign_id: Type.Integer(), name: Type.String(), sent_at: NullableTimestamp, opened_at: NullableTimestamp, clicked_at: NullableTimestamp }),
    { description: 'campaigns addressed to the contact (not automation messages: those are in automation_runs)' },
  ),
});

export const ErasedContact = Type.Object({
  email: Type.String(),
  suppression: Type.String({ description: 'the ERASURE suppression kept for the address: `sha256:` and the hex SHA-256 of the lower-cased address' }),
});
