import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { addWarnings, defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, Read, Written } from '../schemas/common.ts';
import { CompileContentBody, CompiledContent, CreateTemplateBody, TemplateObject, TemplatePageQuery, UpdateTemplateBody } from '../schemas/templates.ts';

const tags = ['Templates'];
const notFound = { 404: 'TEMPLATE_NOT_FOUND (also another account\'s template)' };

/** D22: `/api/v1/templates`, the account's layouts and starters and the built-in gallery. */
export function templateRoutes({ templates }: Pick<HttpParts, 'templates'>) {
  return {
    create: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Create a layout or starter',
        description: 'D22: the body is checked (size, Liquid syntax, a layout\'s one `{{ content }}`) and compiled when saved; each refusal is 400 naming the problem, an MJML error its line.',
        tags,
        body: CreateTemplateBody,
        response: { 200: Written(TemplateObject), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { template, warnings } = await templates.create(actingOf(req), req.auth.accountId, req.body);
        // D26.7: merge fields nothing fills, named.
        addWarnings(req, warnings);
        return written(template, 'Template created');
      },
    }),

    compile: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Compile content to HTML, storing nothing',
        description:
          'Issue 34: the body compiled alone, as a starter\'s is (size, Liquid syntax, MJML under strict validation; each refusal 400 naming the problem, an MJML error its line), CSS inlined, Liquid left as written. The dashboard converts MJML content to this HTML when a campaign\'s format changes. Compiles take the account\'s turns on the compile threads, as saves do.',
        tags,
        body: CompileContentBody,
        response: { 200: Read(CompiledContent), ...errorResponses(false) },
      },
      handler: async (req) => read(await templates.compile(req.auth.accountId, req.body.format, req.body.body)),
    }),

    page: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Page through templates: the built-in gallery first, then the account\'s own',
        tags,
        querystring: TemplatePageQuery,
        response: { 200: Read(PageOf('templates', TemplateObject)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { kind, page, size } = req.query;
        return read(await templates.page(req.auth.accountId, { page, size }, kind));
      },
    }),

    get: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Read a template', tags, params: IdParams, response: { 200: Read(TemplateObject), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await templates.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Update a template',
        description: 'Omitted fields keep their value; the result is checked and compiled as a new one is. A built-in template is 409; a layout unsent campaigns use cannot become a starter (409).',
        tags,
        params: IdParams,
        body: UpdateTemplateBody,
        response: { 200: Written(TemplateObject), ...errorResponses(false, { ...notFound, 409: 'a built-in template, or a layout unsent campaigns use made a starter (INVALID_STATE)' }) },
      },
      handler: async (req) => {
        const { template, warnings } = await templates.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body);
        addWarnings(req, warnings);
        return written(template, 'Template updated');
      },
    }),

    delete: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Delete a template',
        description: 'A built-in template is 409. A layout that campaigns not yet SENT use is 409 naming them (give them another layout first); SENT campaigns keep the HTML they were sent with.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, { ...notFound, 409: 'a built-in template, or a layout unsent campaigns use (INVALID_STATE)' }) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await templates.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Template deleted');
      },
    }),
  };
}
