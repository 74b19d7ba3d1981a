import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { Contact } from '../schemas/contacts.ts';
import { CreateSegmentBody, PreviewSegmentBody, SegmentFields, SegmentObject, SegmentPreview, UpdateSegmentBody } from '../schemas/segments.ts';

const tags = ['Segments'];
const notFound = { 404: 'SEGMENT_NOT_FOUND' };
const badFilter = 'Invalid request, or a filter the language refuses; the message names the path inside it, e.g. filter.all[2].op (INVALID_REQUEST)';

/** D18: saved filters over the account's contacts. */
export function segmentRoutes({ segments }: Pick<HttpParts, 'segments'>) {
  return {
    create: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Create a segment',
        tags,
        body: CreateSegmentBody,
        response: { 200: Written(SegmentObject), ...errorResponses(false, { 400: badFilter, 409: 'SEGMENT_ALREADY_EXISTS' }) },
      },
      handler: async (req) => written(await segments.create(actingOf(req), req.auth.accountId, req.body), 'Segment created'),
    }),

    page: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: 'Page through segments, oldest first',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('segments', SegmentObject)), ...errorResponses(false) },
      },
      handler: async (req) => read(await segments.page(req.auth.accountId, req.query)),
    }),

    preview: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: "Count an unsaved filter's contacts and show the first ten",
        tags,
        body: PreviewSegmentBody,
        response: { 200: Read(SegmentPreview), ...errorResponses(false, { 400: badFilter }) },
      },
      handler: async (req) => read(await segments.preview(req.auth.accountId, req.body.filter)),
    }),

    fields: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: "What a filter can name: the custom fields and tags the account's contacts hold (dashboard addition)",
        description: 'Read from the newest 10,000 contacts. `types` are the JSON types the key\'s values have.',
        tags,
        response: { 200: Read(SegmentFields), ...errorResponses(false) },
      },
      handler: async (req) => read(await segments.fields(req.auth.accountId)),
    }),

    get: defineRoute({
      permissions: ['lists.read'],
      schema: { summary: 'Read a segment, with its member count now', tags, params: IdParams, response: { 200: Read(SegmentObject), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await segments.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Update a segment',
        tags,
        params: IdParams,
        body: UpdateSegmentBody,
        response: { 200: Written(SegmentObject), ...errorResponses(false, { ...notFound, 400: badFilter, 409: 'SEGMENT_ALREADY_EXISTS' }) },
      },
      handler: async (req) => written(await segments.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body), 'Segment updated'),
    }),

    delete: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Delete a segment',
        description: 'Contacts are never touched. A draft campaign that targeted it takes no one from it any more.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await segments.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Segment deleted');
      },
    }),

    contacts: defineRoute({
      permissions: ['lists.read'],
      schema: {
        summary: "Page through a segment's members now, newest first",
        tags,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('contacts', Contact)), ...errorResponses(false, notFound) },
      },
      handler: async (req) => read(await segments.contacts(req.auth.accountId, pathId(req.params.id), req.query)),
    }),
  };
}
