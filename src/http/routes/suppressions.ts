import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, Read, Written } from '../schemas/common.ts';
import { AddSuppressionBody, SuppressionObject, SuppressionQuery } from '../schemas/suppressions.ts';

const tags = ['Suppressions'];

/** D19: addresses and domains the account never mails, whatever a contact's status. */
export function suppressionRoutes({ suppressions }: Pick<HttpParts, 'suppressions'>) {
  return {
    page: defineRoute({
      permissions: ['contacts.read'],
      schema: {
        summary: 'Page through the suppression list, newest first',
        tags,
        querystring: SuppressionQuery,
        response: { 200: Read(PageOf('suppressions', SuppressionObject)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { page, size, search } = req.query;
        return read(await suppressions.page(req.auth.accountId, search, { page, size }));
      },
    }),

    add: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Suppress an address or a whole @domain',
        description: 'Idempotent: a value already listed is answered as it stands (message "Already suppressed").',
        tags,
        body: AddSuppressionBody,
        response: { 200: Written(SuppressionObject), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { suppression, created } = await suppressions.add(actingOf(req), req.auth.accountId, req.body);
        return written(suppression, created ? 'Suppression added' : 'Already suppressed');
      },
    }),

    delete: defineRoute({
      permissions: ['contacts.write'],
      schema: {
        summary: 'Remove an entry from the suppression list',
        description: "The address can be mailed again, if its contact's status allows.",
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, { 404: 'SUPPRESSION_NOT_FOUND' }) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await suppressions.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Suppression removed');
      },
    }),
  };
}
