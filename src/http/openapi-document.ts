import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Permission } from '../domain/api-keys/permissions.ts';
import { isIntegrationRoute } from './errors.ts';
import type { RouteDef, RouteSchema } from './route.ts';
import { SESSION_COOKIE } from './session-auth.ts';
import { bodyErrorResponses, DOCUMENTED, idempotencyErrorResponses, Warnings } from './schemas/common.ts';

/**
 * How the served OpenAPI document (GET /api/v1/openapi.json) is made from the route schemas
 * (D17.8). The route table (routes.ts) adds what every operation shares (permissions, 413/415,
 * `warnings`); this file turns route schemas into the document's form.
 */

/** D8 and the dashboard: a key in either header, or the session cookie (writes echo its CSRF token). */
export const securitySchemes = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  BearerAuth: { type: 'http', scheme: 'bearer' },
  DashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The dashboard session, set by POST /api/v1/auth/login; used only when the request carries no API key. It holds every permission of its account.',
  },
  CsrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: "With the session cookie, every request that changes something echoes the session's csrf_token (from login or GET /api/v1/auth/me); otherwise 403 CSRF_TOKEN_INVALID.",
  },
} as const;

/**
 * D10's headers, as reusable header objects: the account's minute window on every answer to an
 * authenticated request (none on the Enterprise plan, so none is required), and on every 429,
 * whoever refused, the seconds to wait (the error handler sets it from the refusal's `retryAfter`).
 */
export const responseHeaders = {
  'RateLimit-Limit': { description: "Requests the account may make in the current minute window (D10); absent on the Enterprise plan", schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute window (D10); absent on the Enterprise plan', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the current minute window starts afresh (D10); absent on the Enterprise plan', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Whole seconds to wait before trying again (D10)', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': {
    description: 'D25.6: `true` when this answer is the kept answer of an earlier request with the same Idempotency-Key, method, path and body (nothing ran again); absent otherwise',
    schema: { type: 'string', const: 'true' },
  },
} as const;
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

/** Any one alternative suffices; a session's writes need the cookie and the token together. */
export const securityForWrites: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { DashboardSession: [], CsrfToken: [] }];
export const securityForReads: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { DashboardSession: [] }];

/** Copies a schema tree, putting each node's documented form (schemas/common.ts documentedAs) in its place. */
export function documentedSchema<T>(node: T, depth = 0): T {
  if (depth > 64 || node === null || typeof node !== 'object') return node;
  const documented = (node as Record<symbol, unknown>)[DOCUMENTED];
  if (documented) return documentedSchema(documented as T, depth + 1);
  if (Array.isArray(node)) return node.map((item) => documentedSchema(item, depth + 1)) as T;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(node)) copy[key] = documentedSchema((node as Record<string | symbol, unknown>)[key], depth + 1);
  return copy as T;
}

/** D17.8: a query parameter with a default (`page`, `size`) is optional for the client, whatever the validator needs. */
function optionalWhenDefaulted(querystring: Record<string, unknown>): Record<string, unknown> {
  const properties = (querystring.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = ((querystring.required ?? []) as string[]).filter((name) => properties[name]?.default === undefined);
  const { required: _dropped, ...rest } = querystring;
  return required.length ? { ...rest, required } : rest;
}

/**
 * Every operation gets an operationId derived from its method and path, unless its schema sets one:
 * GET /api/v1/lists/:id/contacts -> getListsByIdContacts, POST /v1/contacts/bulk -> postV1ContactsBulk,
 * DELETE /api/v1/auth/sessions/:session_id -> deleteAuthSessionsBySessionId.
 */
function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/api\/v1(?=\/)/, '')
    .replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())
    .split(/[/.-]/)
    .filter(Boolean);
  const camel = words.map((w) => (w.startsWith(':') ? `By${w[1].toUpperCase()}${w.slice(2)}` : w[0].toUpperCase() + w.slice(1)));
  return method.toLowerCase() + camel.join('');
}

/** The document's tag list: what each group of operations is for. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  System: 'Health probes and this document; no key needed',
  Contacts: 'Contacts of the account, their fields, tags and status (D11)',
  Lists: 'Contact lists and their members',
  Forms: 'Sign-up forms (D20): managed here, public at /f/{uid} (the hosted page, and where embedded copies post)',
  Campaigns: 'Campaigns: content, audience, sending, scheduling and statistics',
  Media: "The account's image library (D22): uploads judged by their bytes, each image public at /media/{file}",

  Templates: 'Layouts and starters (D22), the built-in gallery among them',
  Automations: 'Workflows that react to events, tags and list joins (D15)',
  'API keys': 'Key management (the `*` permission or a dashboard session)',
  Integrations: "The integration guide's flat endpoints under /v1: bulk import, events, campaign stats (D14)",
  Webhooks: 'Outbound webhook endpoints and their deliveries',
  'Provider feedback': "Bounces and complaints reported by mail providers (SES, SendGrid, the generic format) at the public /webhooks/{provider} paths",
  'Dev inbox': 'Mail caught by the development transport',
  'Audit log': 'Who changed what in the account, read-only (D24.8)',
  'Dashboard sign-in': 'Sign-up, sign-in and the session of the dashboard',
  Tracking: 'The links inside sent mail: open pixel, click redirects, unsubscribe',
};

export const transform: NonNullable<FastifyDynamicSwaggerOptions['transform']> = (arg) => {
  const { schema, url, route } = arg;
  if (!schema || typeof route.method !== 'string') return { schema, url };
  const doc = documentedSchema(schema) as Record<string, unknown>;
  // Each tag an operation uses is declared once at the top, in order of first use.
  const openapiObject = (arg as { openapiObject?: { tags?: { name: string; description: string }[] } }).openapiObject;
  const declared = openapiObject ? (openapiObject.tags ??= []) : [];
  for (const tag of (doc.tags ?? []) as string[]) {
    if (!declared.some((t) => t.name === tag)) declared.push({ name: tag, description: TAG_DESCRIPTIONS[tag] ?? `${tag} operations` });
  }
  if (doc.querystring && typeof doc.querystring === 'object') doc.querystring = optionalWhenDefaulted(doc.querystring as Record<string, unknown>);
  if (takesIdempotencyKey(route.method, url, doc.security as unknown[] | undefined)) doc.headers = IDEMPOTENCY_KEY_PARAMETER;
  if (!doc.operationId) doc.operationId = operationId(route.method, url);
  return { schema: doc as typeof schema, url };
};

/** D25.6: every authenticated POST under /api/v1 and /v1 takes an Idempotency-Key (http/idempotency.ts). */
function takesIdempotencyKey(method: string, url: string, security: unknown[] | undefined): boolean {
  return method === 'POST' && (security === undefined || security.length > 0) && (url.startsWith('/api/v1/') || url.startsWith('/v1/'));
}

/** Documented only: the hook checks the header itself, so a bad key is 400 IDEMPOTENCY_KEY_INVALID, not a schema error. */
const IDEMPOTENCY_KEY_PARAMETER = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'D25.6: 1-255 printable ASCII characters, else 400 IDEMPOTENCY_KEY_INVALID. For 24 hours after a request with this key succeeded (2xx), per account: the same key with the same method, path and body (equal as JSON) runs nothing and answers the first response again with `Idempotent-Replayed: true`; with another method, path or body it is 422 IDEMPOTENCY_KEY_REUSED; while the first still runs, 409 IDEMPOTENCY_KEY_IN_PROGRESS. Answers other than 2xx are not kept.',
    }),
  ),
});

type DocumentResponse = { headers?: Record<string, unknown> };
type DocumentOperation = { security?: unknown[]; parameters?: { in?: string; name?: string }[]; responses?: Record<string, DocumentResponse> };

/**
 * Puts D10's headers on the answers that carry them, by reference. The auth hook (auth.ts) meters
 * every request to an operation that needs a key (all but those with `security: []`) once it is
 * authenticated, so each of their answers but 401 carries the RateLimit-* headers.
 */
export const transformObject: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (documentObject) => {
  const document = (documentObject as { openapiObject: { paths?: Record<string, Record<string, DocumentOperation>> } }).openapiObject;
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      if (!operation?.responses) continue;
      const metered = operation.security === undefined || operation.security.length > 0;
      const keyed = operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') ?? false;
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = [
          ...(metered && status !== '401' ? RATE_LIMIT_HEADERS : []),
          ...(status === '429' || (keyed && status === '409') ? ['Retry-After'] : []),
          ...(keyed && status.startsWith('2') ? ['Idempotent-Replayed'] : []),
        ];
        if (names.length === 0) continue;
        response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])) };
      }
    }
  }
  return document;
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const READ_METHODS = new Set(['GET', 'HEAD']);

/** Adds the optional `warnings` list to a success envelope (an object with `success`). */
function withWarnings(response: TSchema): TSchema {
  const properties = response.properties as Record<string, TSchema> | undefined;
  if (response.type !== 'object' || !properties?.success || properties.warnings) return response;
  return { ...response, properties: { ...properties, warnings: Type.Optional(Warnings) } };
}

/**
 * The route's schema as registered, with what every operation shares, from its RouteDef, so no
 * route declares it by hand and routes added later get it too (D17.8): the permissions it needs
 * (in the description and `x-permissions`), 413 and 415 where a body is taken, the session
 * scheme without the CSRF token on reads, and `warnings` in every success envelope.
 */
export function operationSchema(method: string, url: string, def: RouteDef): RouteSchema & Record<string, unknown> {
  const { schema } = def;
  const isPublic = def.permissions === 'public';
  const permissions = isPublic ? [] : [...(def.permissions as readonly Permission[])];
  const needs = isPublic
    ? 'Permissions: none (no API key needed).'
    : `Permissions: ${permissions.map((p) => `\`${p}\``).join(' and ')}${def.anySession ? ' for a key; a dashboard session of any role (D24.2)' : permissions.includes('*') ? " (a key holding every permission, or an owner's or admin's dashboard session, D24.1)" : ''}.`;
  const response: Record<number, TSchema> = {};
  for (const [status, body] of Object.entries(schema.response)) response[Number(status)] = Number(status) < 300 ? withWarnings(body) : body;
  if (BODY_METHODS.has(method)) Object.assign(response, { ...bodyErrorResponses(isIntegrationRoute(url), !def.acceptAnyBody), ...response });
  if (!isPublic && takesIdempotencyKey(method, url, undefined)) Object.assign(response, idempotencyErrorResponses(isIntegrationRoute(url), response));
  return {
    ...schema,
    description: schema.description ? `${schema.description}\n\n${needs}` : needs,
    'x-permissions': permissions,
    response,
    ...(isPublic ? { security: [] } : READ_METHODS.has(method) ? { security: securityForReads } : {}),
  };
}
