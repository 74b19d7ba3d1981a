import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { addWarnings, clientOf, defineRoute, read, written } from '../route.ts';
import { errorResponses, PageOf, Read, Written } from '../schemas/common.ts';
import { ConsentRecord, Contact, ContactExportQuery, ContactQuery, ContactsCsv, CreateContactBody, EmailParams, ErasedContact, PersonalData, UpdateContactBody } from '../schemas/contacts.ts';
import { Type } from '@sinclair/typebox';
import { emailKey } from '../../domain/shared/email-address.ts';
import { TimelinePage, TimelineQuery } from '../schemas/timeline.ts';
import { contactsCsv } from '../../csv/contacts-export-csv.ts';

const tags = ['Contacts'];

export function contactRoutes({ contacts, personalData, timeline }: Pick<HttpParts, 'contacts' | 'personalData' | 'timeline'>) {
  return {
    create: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Create a contact',
        tags,
        body: CreateContactBody,
        response: { 200: Written(Contact), ...errorResponses(false, { 404: 'list_id or list_name names no list (LIST_NOT_FOUND)', 409: 'CONTACT_ALREADY_EXISTS' }) },
      },
      handler: async (req) => {
        const { contact, warnings } = await contacts.create(actingOf(req), req.auth.accountId, req.body);
        // D26.6: said in the answer's `warnings` (D17), beside any unknown fields named there.
        addWarnings(req, warnings);
        return written(contact, 'Contact created');
      },
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

    exportCsv: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: 'Export contacts as CSV (D17.6)',
        description:
          "The contacts the contacts list's filters keep (search, tag, list_id, status, segment_id; none: every contact), oldest first, as `sendwell export` writes them, streamed. Every read runs in the read pool, within READ_BUDGET_MS a step: one that takes longer is 400 naming the filter to narrow, before any of the file is sent.",
        tags,
        querystring: ContactExportQuery,
        response: { 200: ContactsCsv, ...errorResponses(false, { 404: 'list_id names no list (LIST_NOT_FOUND), segment_id no segment (SEGMENT_NOT_FOUND) of the account' }) },
      },
      handler: async (req, reply) => {
        const source = await contacts.export(req.auth.accountId, req.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', 'attachment; filename="contacts.csv"')
          .header('Cache-Control', 'no-store')
          .send(contactsCsv(source));
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
      handler: async (req) => written(await contacts.update(actingOf(req), req.auth.accountId, req.params.email, req.body ?? {}), 'Contact updated'),
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

    timeline: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: "A contact's activity, newest first (issue 34)",
        description:
          'The messages sent to the contact and what became of them (opens and clicks by people and by machines apart, D23; bounces, complaints, unsubscribes), its sign-ups (consent records), the lists it left, its events and the automation runs it started, newest first; entries of the same second by kind, then id. Paged by cursor: `next_cursor` gives the next, older page, so a page costs the same however long the history.',
        tags,
        params: EmailParams,
        querystring: TimelineQuery,
        response: { 200: Read(TimelinePage), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => read(await timeline.page(req.auth.accountId, req.params.email, req.query)),
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
        await contacts.delete(actingOf(req), req.auth.accountId, req.params.email);
        return written({ email: emailKey(req.params.email) }, 'Contact deleted');
      },
    }),

    exportData: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: "Export a contact's personal data (D21)",
        description:
          'One document with everything the account holds about the person: the contact, its list memberships, consent records, events, automation runs (with their step logs) and the campaigns addressed to it.',
        tags,
        params: EmailParams,
        response: { 200: Read(PersonalData), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => read(await personalData.export(req.auth.accountId, req.params.email)),
    }),

    erase: defineRoute({
      permissions: ['contacts.delete'],
      schema: {
        summary: "Erase a contact's personal data (D21)",
        description:
          "Deletes the contact and every personal field tied to it: memberships, consents, events, automation runs, captured dev-inbox copies, the data of webhook deliveries naming it (kept as `{ \"erased\": true }`), and the address on campaign recipient rows (replaced by `erased-<row id>@erased.invalid`; statuses and times stay, so sent campaigns' statistics do not change; messages not yet sent are not sent). The address's own suppression entries are replaced by one ERASURE entry holding its SHA-256: a contact created again with the address is suppressed, and mailed again only after the person confirms a double opt-in.",
        tags,
        params: EmailParams,
        response: { 200: Written(ErasedContact), ...errorResponses(false, { 404: 'CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => written(await personalData.erase(actingOf(req), req.auth.accountId, req.params.email), 'Personal data erased'),
    }),
  };
}
