import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { Automation, AutomationRun, CreateAutomationBody, UpdateAutomationBody } from '../schemas/automations.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';

const tags = ['Automations'];
const notFound = { 404: 'AUTOMATION_NOT_FOUND' };

/** D15: workflows. Reads need automation.read; everything else automation.write. */
export function automationRoutes({ automations }: Deps) {
  const action = (active: boolean) =>
    defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: active ? 'Activate an automation (it starts runs from now on)' : 'Deactivate an automation (no new runs; runs under way finish)',
        tags,
        params: IdParams,
        response: { 200: Written(Automation), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await automations.setActive(req.auth.accountId, pathId(req.params.id), active), active ? 'Automation activated' : 'Automation deactivated'),
    });

  return {
    create: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Create an automation (inactive until activated)',
        tags,
        body: CreateAutomationBody,
        response: { 200: Written(Automation), ...errorResponses(false, { 404: 'a list named in the trigger or a step does not exist (LIST_NOT_FOUND)' }) },
      },
      handler: async (req) => written(await automations.create(req.auth.accountId, req.body), 'Automation created'),
    }),

    page: defineRoute({
      permissions: ['automation.read'],
      schema: { summary: 'Page through automations, oldest first', tags, querystring: Type.Object(PageQuery), response: { 200: Read(PageOf('automations', Automation)), ...errorResponses(false) } },
      handler: async (req) => read(await automations.page(req.auth.accountId, req.query)),
    }),

    get: defineRoute({
      permissions: ['automation.read'],
      schema: { summary: 'Read an automation', tags, params: IdParams, response: { 200: Read(Automation), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await automations.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Update an automation',
        description: 'Omitted fields keep their value. Runs under way continue at their step index under the new steps.',
        tags,
        params: IdParams,
        body: UpdateAutomationBody,
        response: { 200: Written(Automation), ...errorResponses(false, { 404: 'AUTOMATION_NOT_FOUND or LIST_NOT_FOUND' }) },
      },
      handler: async (req) => written(await automations.update(req.auth.accountId, pathId(req.params.id), req.body ?? {}), 'Automation updated'),
    }),

    delete: defineRoute({
      permissions: ['automation.write'],
      schema: { summary: 'Delete an automation and its runs', tags, params: IdParams, response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) } },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await automations.delete(req.auth.accountId, id);
        return written({ id }, 'Automation deleted');
      },
    }),

    activate: action(true),
    deactivate: action(false),

    runs: defineRoute({
      permissions: ['automation.read'],
      schema: {
        summary: "Page through an automation's runs, newest first, with each run's current step and history",
        tags,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('runs', AutomationRun)), ...errorResponses(false, notFound) },
      },
      handler: async (req) => read(await automations.runs(req.auth.accountId, pathId(req.params.id), req.query)),
    }),
  };
}
