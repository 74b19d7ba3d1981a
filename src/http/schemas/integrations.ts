import { Type } from '@sinclair/typebox';
import { BULK_LIMITS } from '../../domain/contacts/bulk-import.ts';
import { AUTOMATION_LIMITS, EVENT_DATA_MAX_DEPTH } from '../../domain/automations/automation-definition.ts';
import { CONTACT_LIMITS } from '../../domain/contacts/contact-fields.ts';
import { CONSENT_LIMITS } from '../../domain/consent/consent.ts';
import { documentedAs } from './common.ts';
import { CustomFields } from './contacts.ts';

const OptionalText = (maxLength: number | undefined, description: string) => Type.Optional(Type.Union([Type.String(maxLength ? { maxLength } : {}), Type.Null()], { description }));

/** One bulk item as the service reads it (bulk-import.service.ts normaliseBulkItem): camelCase, as D14's integration guide. */
export const BulkContact = Type.Object(
  {
    // Optional in the document because the server takes the batch without it (issue 30 item 12): only that item fails.
    email: Type.Optional(Type.String({ maxLength: CONTACT_LIMITS.emailMax, description: 'trimmed and lower-cased; an item without it is not imported and is reported in errors by its index, the others are' })),
    name: OptionalText(undefined, 'split at the first space into first and last name'),
    firstName: OptionalText(CONTACT_LIMITS.nameMax, 'wins over the first half of name'),
    lastName: OptionalText(CONTACT_LIMITS.nameMax, 'wins over the second half of name'),
    phone: OptionalText(CONTACT_LIMITS.phoneMax, 'digits, spaces and + - ( ) .'),
    tags: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: CONTACT_LIMITS.tagMax }), { maxItems: CONTACT_LIMITS.tagsMax }), Type.Null()])),
    customFields: Type.Optional(Type.Union([CustomFields, Type.Null()])),
    status: Type.Optional(
      Type.Union([Type.Literal('SUBSCRIBED'), Type.Literal('UNSUBSCRIBED'), Type.Literal('BOUNCED'), Type.Literal('COMPLAINED')], {
        description:
          "D17.6: a new contact's status (SUBSCRIBED when left out). For an existing contact UNSUBSCRIBED, BOUNCED or COMPLAINED is applied as D17.5 allows, whether or not duplicates are skipped; an import never makes anyone SUBSCRIBED again",
      }),
    ),
    lists: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 20, description: 'D17.6: names of lists to add the contact to; a list that does not exist is created' })),
    consentAt: OptionalText(
      undefined,
      "D26.3: when the person consented (D1's form, read as UTC, or with an offset; not in the future), such as Mailchimp's OPTIN_TIME: the `at` of the IMPORT consent record written when the import adds the contact to lists. Left out: the time of the import",
    ),
    consentIp: OptionalText(CONSENT_LIMITS.ipMax, "D26.3: the IPv4 or IPv6 address the person consented from, such as Mailchimp's OPTIN_IP: that consent record's `ip`"),
  },
  { description: 'A contact. Items are checked one by one: an invalid one is reported in errors by its index and never fails the batch.' },
);

/**
 * D14 bulk import. Items are checked one by one by the service (an invalid item is reported by
 * index and never fails the batch), so the schema only bounds the array.
 */
export const BulkImportBody = Type.Object({
  listId: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()], { description: 'id of a list every valid contact is added to (skipped ones included)' })),
  contacts: Type.Array(documentedAs(Type.Unknown(), BulkContact), { minItems: 1, maxItems: BULK_LIMITS.contactsMax }),
  skipDuplicates: Type.Optional(Type.Boolean({ default: true, description: 'false: existing contacts are updated with the given fields' })),
  consentStatement: OptionalText(
    CONSENT_LIMITS.statementMax,
    'Issue 34: what the importer confirms of these people\'s consent (the dashboard sends "These people agreed to hear from us"). Kept as `statement` in each IMPORT consent record this request writes; with it, every contact the request creates gets one, whether or not it joins a list',
  ),
});

export const BulkImportResult = Type.Object({
  success: Type.Literal(true),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  errors: Type.Array(Type.Object({ index: Type.Integer({ description: "the item's 0-based position" }), email: Type.Union([Type.String(), Type.Null()]), message: Type.String() })),
});

export const EventBody = Type.Object({
  email: Type.String({ description: 'the contact (created when unknown)' }),
  event: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.eventMax }),
  data: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: `at most 64 KiB as JSON, nesting objects and arrays at most ${EVENT_DATA_MAX_DEPTH} levels deep` })),
});

export const EventAccepted = Type.Object({ success: Type.Literal(true), id: Type.Integer() });

export const FlatStatistics = Type.Object({
  success: Type.Literal(true),
  sent: Type.Integer(),
  delivered: Type.Integer(),
  opened: Type.Integer(),
  clicked: Type.Integer(),
  bounced: Type.Integer(),
  complained: Type.Integer(),
  unsubscribed: Type.Integer(),
  openRate: Type.Number(),
  clickRate: Type.Number(),
  bounceRate: Type.Number(),
  clickToOpenRate: Type.Number(),
  unsubscribeRate: Type.Number(),
});
