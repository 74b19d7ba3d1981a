import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { maySendMail } from '../caller.ts';
import { clientOf, defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { EmailParams } from '../schemas/contacts.ts';
import { AddContactsBody, AddContactsResult, ContactList, CreateListBody, ListMember, ListMembersQuery, UpdateListBody } from '../schemas/lists.ts';
import { emailKey } from '../../domain/shared/email-address.ts';

const tags = ['Lists'];
const notFound = { 404: 'LIST_NOT_FOUND' };
/** Issue 28 M2. */
const ownConfirmationNeedsSend = { 403: "The key lacks the permission (PERMISSION_DENIED): lists.write, and campaigns.send to set a list's own confirmation subject, text or sender" };

export function listRoutes({ lists, subscriptions }: Pick<HttpParts, 'lists' | 'subscriptions'>) {
  return {
    create: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Create a contact list',
        tags,
        body: CreateListBody,
        response: { 200: Written(ContactList), ...errorResponses(false, { ...ownConfirmationNeedsSend, 409: 'LIST_ALREADY_EXISTS' }) },
      },
      handler: async (req) => written(await lists.create(actingOf(req), req.auth.accountId, req.body, { maySendMail: maySendMail(req.auth) }), 'List created'),
    }),

    page: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: 'Page through contact lists, oldest first (inactive lists included)',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('lists', ContactList)), ...errorResponses(false) },
      },
      handler: async (req) => read(await lists.page(req.auth.accountId, req.query)),
    }),

    get: defineRoute({
      permissions: ['lists.read'],
      schema: { summary: 'Read a contact list', tags, params: IdParams, response: { 200: Read(ContactList), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await lists.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Update a contact list',
        tags,
        params: IdParams,
        body: UpdateListBody,
        response: { 200: Written(ContactList), ...errorResponses(false, { ...ownConfirmationNeedsSend, ...notFound, 409: 'LIST_ALREADY_EXISTS; or LIST_IN_USE when `is_public: false` would take the list from a form, or a SCHEDULED or SENDING campaign, that uses it (D26.1), the message naming them' }) },
      },
      handler: async (req) => written(await lists.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body, { maySendMail: maySendMail(req.auth) }), 'List updated'),
    }),

    delete: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Delete a contact list',
        description: 'Removes the memberships, never the contacts. D26.1: a list that a form uses, or that a SCHEDULED or SENDING campaign targets, is 409 LIST_IN_USE, the message naming them by name; DRAFT and SENT campaigns do not hold a list.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, { ...notFound, 409: 'LIST_IN_USE: forms or SCHEDULED or SENDING campaigns use the list (D26.1)' }) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await lists.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'List deleted');
      },
    }),

    addContacts: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Add existing contacts to a list by e-mail (idempotent)',
        tags,
        params: IdParams,
        body: AddContactsBody,
        response: { 200: Written(AddContactsResult), ...errorResponses(false, notFound) },
      },
      handler: async (req) =>
        written(await subscriptions.addToList(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body.emails, { doubleOptIn: req.body.double_opt_in }), 'Contacts added to the list'),
    }),

    members: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: "Page through a list's members, by contact id",
        description: 'D20: every membership, whatever its status, each contact with `membership_status`; `membership_status` filters.',
        tags,
        params: IdParams,
        querystring: ListMembersQuery,
        response: { 200: Read(PageOf('contacts', ListMember)), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const { membership_status, ...page } = req.query;
        return read(await lists.members(req.auth.accountId, pathId(req.params.id), page, membership_status));
      },
    }),

    removeContact: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Remove a contact from a list',
        tags,
        params: Type.Composite([IdParams, EmailParams]),
        response: { 200: Written(Type.Object({ id: Type.Integer(), email: Type.String() })), ...errorResponses(false, { 404: 'LIST_NOT_FOUND or CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await lists.removeContact(actingOf(req), req.auth.accountId, id, req.params.email);
        return written({ id, email: emailKey(req.params.email) }, 'Contact removed from the list');
      },
    }),
  };
}
