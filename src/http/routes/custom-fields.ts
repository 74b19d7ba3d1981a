import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, read, written } from '../route.ts';
import { errorResponses, Read, Written } from '../schemas/common.ts';
import { CustomFieldDefinitionList, PutCustomFieldsBody } from '../schemas/custom-fields.ts';

const tags = ['Contacts'];

/** Issue 34 item 13: custom field definitions; they go with contacts (contacts.read / contacts.write). */
export function customFieldRoutes({ customFields }: Pick<HttpParts, 'customFields'>) {
  return {
    list: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: "The account's custom field definitions, by key",
        description: 'Each says the type of a custom field, its label, and whether the contact may edit it in the preference centre. Keys the contacts hold without a definition are not listed (GET /api/v1/segments/fields lists those).',
        tags,
        response: { 200: Read(CustomFieldDefinitionList), ...errorResponses(false) },
      },
      handler: async (req) => read({ custom_fields: await customFields.list(req.auth.accountId) }),
    }),

    put: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Define custom fields: the type, label, and whether the contact may edit each',
        description:
          "Each definition given is made, or changed where its key has one (omitted label and editable_by_contact are kept); the account's other definitions stay. One transaction: a refused one changes none. Contacts' values stay as they are; the type rules what the preference centre takes. Answers all the account's definitions.",
        tags,
        body: PutCustomFieldsBody,
        response: { 200: Written(CustomFieldDefinitionList), ...errorResponses(false) },
      },
      handler: async (req) => written({ custom_fields: await customFields.put(actingOf(req), req.auth.accountId, req.body.custom_fields) }, 'Custom fields saved'),
    }),
  };
}
