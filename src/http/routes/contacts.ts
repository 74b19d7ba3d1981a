import type { Deps } from '../../deps.ts';
import { clientOf, defineRoute, read, written } from '../route.ts';
import { errorResponses, PageOf, Read, Written } from '../schemas/common.ts';
import { ConsentRecord, Contact, ContactQuery, CreateContactBody, EmailParams, UpdateContactBody } from '../schemas/contacts.ts';
import { Type } from '@sinclair/typebox';

const tags = ['Contacts'];

export function contactRoutes({ contacts }: Deps) {
  return {
    create: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Create a contact',
        tags,
        body: CreateContactBody,
        response: { 200: Written(Contact), ...errorResponses(false, { 404: 'list_id or list_name names no list (LIST_NOT_FOUND)', 409: 'CONTACT_ALREADY_EXISTS' }) },
      },
      handler: async (req) => written(await contacts.create(req.auth.accountId, req.body, clientOf(req)), 'Contact created'),
    }),

    page: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: 'Page through contacts, newest first',
        tags,
        querystring: ContactQuery,
        response: { 200: Read(PageOf('contacts', Contact)), ...errorResponses(false, { 404: 'segment_id names no segment of the account (SEGMENT_NOT_FOUND)' }) },
      },
      handler: async (req) => {
        const { page, size, ...filter } = req.query;
        return read(await contacts.page(req.auth.accountId, filter, { page, size }));
      },
    }),

    get: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: 'Read a contact by e-mail',
        tags,
        params: EmailParams,
        response: { 200: Read(Contact), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => read(await contacts.get(req.auth.accountId, req.params.email)),
    }),

    update: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Update a contact',
        description: 'Omitted fields keep their value; tags replaces the tags; custom_fields is merged (a null value removes a key).',
        tags,
        params: EmailParams,
        body: UpdateContactBody,
        response: { 200: Written(Contact), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND or LIST_NOT_FOUND' }) },
      },
      handler: async (req) => written(await contacts.update(req.auth.accountId, req.params.email, req.body ?? {}, clientOf(req)), 'Contact updated'),
    }),

    consents: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: "A contact's consent records, oldest first (D20)",
        description: 'Each subscription by a form, the API or an import, and each confirmation of a double opt-in: where it came from, the form, the lists, the client address and user agent, and when.',
        tags,
        params: EmailParams,
        response: { 200: Read(Type.Object({ consents: Type.Array(ConsentRecord) })), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => read({ consents: await contacts.consents(req.auth.accountId, req.params.email) }),
    }),

    delete: defineRoute({
      permissions: ['contacts.delete'],
      schema: {
        summary: 'Delete a contact',
        description: "Sent campaigns' statistics are not changed.",
        tags,
        params: EmailParams,
        response: { 200: Written(Type.Object({ email: Type.String() })), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => {
        await contacts.delete(req.auth.accountId, req.params.email);
        return written({ email: req.params.email.trim().toLowerCase() }, 'Contact deleted');
      },
    }),
  };
}
