import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import type { Caller } from '../../domain/automations/automations.service.ts';
import { maySendMail } from '../caller.ts';
import { addWarnings, defineRoute, pathId, read, written, type RequestAuth } from '../route.ts';
import { Automation, AutomationRun, CreateAutomationBody, StepPreview, StepPreviewBody, UpdateAutomationBody } from '../schemas/automations.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';

const tags = ['Automations'];
const notFound = { 404: 'AUTOMATION_NOT_FOUND' };
const mailingNeedsSend = { 403: 'The key lacks the permission (PERMISSION_DENIED): automation.write, and campaigns.send for a workflow with a SEND_EMAIL step' };

/** Issue 14 L3: whether the caller may make a workflow mail people. A dashboard session holds every permission. */
const callerOf = (auth: RequestAuth): Caller => ({ maySendMail: maySendMail(auth) });

/**
 * D15: workflows. Reads need automation.read; everything else automation.write, and a workflow
 * with a SEND_EMAIL step campaigns.send too for create, update and activate (issue 14 L3).
 */
export function automationRoutes({ automations, automationStepPreview }: Pick<HttpParts, 'automations' | 'automationStepPreview'>) {
  return {
    create: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Create an automation (inactive until activated)',
        description: 'A workflow with a SEND_EMAIL step needs campaigns.send as well as automation.write.',
        tags,
        body: CreateAutomationBody,
        response: { 200: Written(Automation), ...errorResponses(false, { ...mailingNeedsSend, 404: 'a list named in the trigger or a step does not exist (LIST_NOT_FOUND)' }) },
      },
      handler: async (req) => {
        const { automation, warnings } = await automations.create(actingOf(req), req.auth.accountId, req.body, callerOf(req.auth));
        // D26.7: merge fields nothing fills in its SEND_EMAIL steps, named.
        addWarnings(req, warnings);
        return written(automation, 'Automation created');
      },
    }),

    previewStep: defineRoute({
      permissions: ['automation.read'],
      schema: {
        summary: 'A SEND_EMAIL step rendered with sample data, and its content checks, nothing sent (issue 34)',
        description:
          'The step as the editor has it, saved or not: `html` in `format` compiled in the layout `template_id` names, as saving the step would (a Liquid or MJML error is 400 naming the field and line; a layout that is not the account\'s or built-in is 404 TEMPLATE_NOT_FOUND). Merge fields come from the contact with `email` (404 CONTACT_NOT_FOUND when the address is no contact), else sample data; `{{ event.<key> }}` from `event`. Nothing is sent, stored or tracked. `warnings` are the checks the campaign page shows (D22) and the merge fields nothing fills in a workflow (D26.7).',
        tags,
        body: StepPreviewBody,
        response: { 200: Read(StepPreview), ...errorResponses(false, { 404: 'TEMPLATE_NOT_FOUND or CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => read(await automationStepPreview.preview(req.auth.accountId, req.body)),
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
        description:
          'Omitted fields keep their value. Runs under way continue at their step index under the new steps. A workflow that has a SEND_EMAIL step after the update needs campaigns.send as well as automation.write.',
        tags,
        params: IdParams,
        body: UpdateAutomationBody,
        response: { 200: Written(Automation), ...errorResponses(false, { ...mailingNeedsSend, 404: 'AUTOMATION_NOT_FOUND or LIST_NOT_FOUND' }) },
      },
      handler: async (req) => {
        const { automation, warnings } = await automations.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body ?? {}, callerOf(req.auth));
        addWarnings(req, warnings);
        return written(automation, 'Automation updated');
      },
    }),

    delete: defineRoute({
      permissions: ['automation.write'],
      schema: { summary: 'Delete an automation and its runs', tags, params: IdParams, response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) } },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await automations.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Automation deleted');
      },
    }),

    activate: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Activate an automation (it starts runs from now on)',
        description: 'A workflow with a SEND_EMAIL step needs campaigns.send as well as automation.write.',
        tags,
        params: IdParams,
        response: {
          200: Written(Automation),
          ...errorResponses(false, { ...mailingNeedsSend, ...notFound, 409: 'INVALID_STATE: the account already has the most active workflows it may have (issue 28 H3)' }),
        },
      },
      handler: async (req) => written(await automations.activate(actingOf(req), req.auth.accountId, pathId(req.params.id), callerOf(req.auth)), 'Automation activated'),
    }),

    deactivate: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Deactivate an automation (no new runs; runs under way finish)',
        description: 'Starts no new runs from now on; runs under way go on to their end. To end them too, use POST /api/v1/automations/{id}/stop.',
        tags,
        params: IdParams,
        response: { 200: Written(Automation), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await automations.deactivate(actingOf(req), req.auth.accountId, pathId(req.params.id), { endRuns: false }), 'Automation deactivated'),
    }),

    stop: defineRoute({
      permissions: ['automation.write'],
      schema: {
        summary: 'Stop an automation: deactivate it and end its runs under way',
        description:
          'Deactivates the automation (no new runs), then ends every run under way: EXITED with ended_reason "ended by deactivation", each with an automation.completed event. Idempotent. A step a runner has in hand when its run ends is not recorded (issue 14 C1: a workflow can always be stopped, whatever it has started).',
        tags,
        params: IdParams,
        response: { 200: Written(Automation), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await automations.deactivate(actingOf(req), req.auth.accountId, pathId(req.params.id), { endRuns: true }), 'Automation stopped; its runs under way were ended'),
    }),

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
