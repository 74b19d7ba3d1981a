import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { CreateWebhookBody, DeliveryQuery, UpdateWebhookBody, WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../schemas/webhook-endpoints.ts';

const tags = ['Webhooks'];
const notFound = { 404: 'WEBHOOK_NOT_FOUND' };
/**
 * Outbound webhooks need the `*` permission. D9's list has no webhook permission, and an
 * endpoint receives contact, e-mail, campaign and automation data alike: registering one is as
 * strong as reading all of them, so only an account-wide key (like key management's) may.
 */
const permissions = ['*'] as const;

export function webhookEndpointRoutes({ webhookEndpoints }: Pick<HttpParts, 'webhookEndpoints'>) {
  return {
    create: defineRoute({
      permissions,
      schema: {
        summary: 'Register a webhook endpoint; the signing secret is in this response only',
        description: 'D26.8: a `url` whose host is or resolves to a loopback, private or otherwise non-public address is 400 INVALID_REQUEST, naming WEBHOOKS_ALLOW_PRIVATE (the operator setting that allows such destinations); the same applies when `url` is changed.',
        tags,
        body: CreateWebhookBody,
        response: { 200: Written(WebhookEndpointWithSecret), ...errorResponses(false) },
      },
      handler: async (req) => written(await webhookEndpoints.create(actingOf(req), req.auth.accountId, req.body), 'Webhook endpoint created; copy the secret now, it is not shown again'),
    }),

    page: defineRoute({
      permissions,
      schema: {
        summary: 'Page through webhook endpoints, oldest first',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('webhooks', WebhookEndpoint)), ...errorResponses(false) },
      },
      handler: async (req) => read(await webhookEndpoints.page(req.auth.accountId, req.query)),
    }),

    get: defineRoute({
      permissions,
      schema: { summary: 'Read a webhook endpoint', tags, params: IdParams, response: { 200: Read(WebhookEndpoint), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await webhookEndpoints.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions,
      schema: {
        summary: 'Update a webhook endpoint (url, event_types, description, is_active)',
        tags,
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Written(WebhookEndpoint), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await webhookEndpoints.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body), 'Webhook endpoint updated'),
    }),

    delete: defineRoute({
      permissions,
      schema: {
        summary: 'Delete a webhook endpoint with its delivery log',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await webhookEndpoints.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Webhook endpoint deleted');
      },
    }),

    rotateSecret: defineRoute({
      permissions,
      schema: {
        summary: 'Replace the signing secret; the new one is in this response only',
        description: 'The old secret stops at once; deliveries still pending are signed with the new one.',
        tags,
        params: IdParams,
        response: { 200: Written(WebhookEndpointWithSecret), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await webhookEndpoints.rotateSecret(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Signing secret replaced; copy it now, it is not shown again'),
    }),

    test: defineRoute({
      permissions,
      schema: {
        summary: 'Send a webhook.test event to this endpoint',
        description: 'Queued like any delivery (signed, retried, logged), whatever event types the endpoint subscribes to.',
        tags,
        params: IdParams,
        response: { 200: Written(WebhookDelivery), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await webhookEndpoints.sendTest(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Test event queued'),
    }),

    deliveries: defineRoute({
      permissions,
      schema: {
        summary: "Page through an endpoint's delivery log, newest first",
        tags,
        params: IdParams,
        querystring: DeliveryQuery,
        response: { 200: Read(PageOf('deliveries', WebhookDelivery)), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const { page, size, status } = req.query;
        return read(await webhookEndpoints.deliveries(req.auth.accountId, pathId(req.params.id), status, { page, size }));
      },
    }),
  };
}
