import type { ActingContext } from '../../domain/shared/actor.ts';
import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, Read, Written } from '../schemas/common.ts';
import { ApiKey, ApiKeyWithValue, CreateKeyBody, KeyQuery, KeySummary, UpdateKeyBody } from '../schemas/api-keys.ts';

const tags = ['API keys'];
const notFound = { 404: 'API_KEY_NOT_FOUND' };
// D9: managing keys needs the `*` permission.
const permissions = ['*'] as const;

export function apiKeyRoutes({ apiKeys }: Pick<HttpParts, 'apiKeys'>) {
  const action = (summary: string, run: (acting: ActingContext, accountId: number, id: number) => ReturnType<typeof apiKeys.get>, message: string, errors: Record<number, string>) =>
    defineRoute({
      permissions,
      schema: {
        summary,
        tags,
        params: IdParams,
        response: { 200: Written(ApiKey), ...errorResponses(false, { ...notFound, ...errors }) },
      },
      handler: async (req) => written(await run(actingOf(req), req.auth.accountId, pathId(req.params.id)), message),
    });

  return {
    page: defineRoute({
      permissions,
      schema: { summary: 'Page through API keys', tags, querystring: KeyQuery, response: { 200: Read(PageOf('api_keys', ApiKey)), ...errorResponses(false) } },
      handler: async (req) => {
        const { page, size, search, status } = req.query;
        return read(await apiKeys.list(req.auth.accountId, { search, status }, { page, size }));
      },
    }),

    create: defineRoute({
      permissions,
      schema: {
        summary: 'Create an API key; the full value is in this response only',
        tags,
        body: CreateKeyBody,
        response: { 200: Written(ApiKeyWithValue), ...errorResponses(false, { 403: 'PERMISSION_DENIED, or KEY_LIMIT_REACHED for the plan' }) },
      },
      handler: async (req) => written(await apiKeys.create(actingOf(req), req.auth.accountId, req.body), 'API key created; copy it now, it is not shown again'),
    }),

    summary: defineRoute({
      permissions,
      schema: { summary: 'Key counts, total requests and top endpoints', tags, response: { 200: Read(KeySummary), ...errorResponses(false) } },
      handler: async (req) => read(await apiKeys.summary(req.auth.accountId)),
    }),

    get: defineRoute({
      permissions,
      schema: { summary: 'Read an API key (masked)', tags, params: IdParams, response: { 200: Read(ApiKey), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await apiKeys.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions,
      schema: {
        summary: "Change a key's name, description, permissions or expiry",
        tags,
        params: IdParams,
        body: UpdateKeyBody,
        response: { 200: Written(ApiKey), ...errorResponses(false, { ...notFound, 409: 'INVALID_STATE (permanently revoked)' }) },
      },
      handler: async (req) => written(await apiKeys.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body), 'API key updated'),
    }),

    delete: defineRoute({
      permissions,
      schema: {
        summary: 'Delete an API key and its statistics',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await apiKeys.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'API key deleted');
      },
    }),

    deactivate: action('Deactivate a key (status Revoked; can be activated again)', (acting, a, id) => apiKeys.deactivate(acting, a, id), 'API key deactivated', { 409: 'INVALID_STATE (permanently revoked)' }),
    activate: action('Activate a deactivated key', (acting, a, id) => apiKeys.activate(acting, a, id), 'API key activated', { 409: 'INVALID_STATE (permanently revoked or expired)' }),
    revoke: action('Revoke a key permanently (it can then only be deleted)', (acting, a, id) => apiKeys.revoke(acting, a, id), 'API key revoked permanently', {}),

    regenerate: defineRoute({
      permissions,
      schema: {
        summary: 'Issue a new value for a key; the old one stops working at once',
        tags,
        params: IdParams,
        response: { 200: Written(ApiKeyWithValue), ...errorResponses(false, { ...notFound, 409: 'INVALID_STATE (permanently revoked)' }) },
      },
      handler: async (req) => written(await apiKeys.regenerate(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'API key regenerated; copy it now, it is not shown again'),
    }),
  };
}
