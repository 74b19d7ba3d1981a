import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { join } from 'node:path';
import type { Core } from './core.ts';
import { createRequestLimiters, type HttpParts, type RequestLimiters } from './http/http-parts.ts';
import { fieldWithNul } from './domain/shared/nul.ts';
import { AccountShare } from './http/account-share.ts';
import { registerAuth } from './http/auth.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { ApiError, handleError } from './http/errors.ts';
import { parseJsonBody } from './http/json-body.ts';
import { registerNotFound, registerRoutes } from './http/routes.ts';
import { SessionAuthenticator } from './http/session-auth.ts';
import { registerWebApp } from './http/web-app.ts';
import { responseHeaders, securityForWrites, securitySchemes, transform, transformObject } from './http/openapi-document.ts';
import { projectRoot } from './paths.ts';
import { ErrorBody, FlatErrorBody } from './http/schemas/common.ts';
import { serializerFactory, validatorCompiler } from './http/schema-compilers.ts';

export const BODY_LIMIT = 1024 * 1024;

/** Trusts the `hops` proxies nearest the server, as Fastify's trustProxy does for a number. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * Builds the HTTP app from the core and the request limits. It does not listen; the caller does.
 * The limits are passed in when another endpoint of the process spends the same budgets (D25.7).
 */
export async function buildApp(core: Core, limiters: RequestLimiters = createRequestLimiters(core)): Promise<FastifyInstance> {
  const parts: HttpParts = { ...core, ...limiters };
  let authenticate: ((req: FastifyRequest, reply: FastifyReply) => Promise<void>) | null = null;
  const timeouts = parts.config.http;
  const app = Fastify({
    loggerInstance: parts.logger as FastifyBaseLogger,
    // Issue 14 M2: Fastify switches Node's request timeout off by default, and a client trickling
    // its body (to the public sign-in route too) held its connection for good. Node answers 408
    // and closes when the request is not in within requestTimeout; the headers get at most 10 s of
    // it. Node looks for such requests every connectionsCheckingInterval (30 s by default, which
    // would let a 30 s limit run to 60 s). See Config['http'] for the rest.
    requestTimeout: timeouts.requestTimeoutMs,
    connectionTimeout: timeouts.connectionTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    maxRequestsPerSocket: timeouts.maxRequestsPerSocket,
    // Issue 14 M3: req.ip is the client's, not the proxy's, only when the operator says which proxies to believe.
    // A hop count is given as the function Fastify makes of one (its types leave the number out).
    trustProxy: typeof parts.config.trustProxy === 'number' ? trustHops(parts.config.trustProxy) : parts.config.trustProxy,
    http: { headersTimeout: Math.min(10_000, timeouts.requestTimeoutMs), connectionsCheckingInterval: Math.min(1000, Math.ceil(timeouts.requestTimeoutMs / 2)) },
    // Fastify's two lines per request are replaced by the one access-log line below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // While closing, requests are refused by the hook below in D7's form rather than Fastify's own body.
    return503OnClosing: false,
    // Route schemas compile once per process, not once per app (schema-compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: serializerFactory() } },
    // Ids in paths are checked by schema (D2); the router itself should not refuse long paths
    // (at 1000 a long id or e-mail got Fastify's raw 414 before authentication). Node's 16 KiB
    // header limit bounds a URL well below this.
    routerOptions: { maxParamLength: 65_536 },
    // A path Fastify cannot decode (bad percent-encoding) skips the hooks: authenticate here too
    // (D8: no key is 401) and answer in D7's form instead of Fastify's raw FST_ERR_BAD_URL body.
    frameworkErrors: (err, req, reply) => {
      void (async () => {
        await authenticate?.(req, reply);
        throw err.code === 'FST_ERR_BAD_URL' ? new ApiError(400, 'INVALID_REQUEST', 'the request path is not valid percent-encoding') : err;
      })().catch((e) => handleError(e, req, reply));
    },
  });
  app.setValidatorCompiler(validatorCompiler());
  app.setErrorHandler(handleError);
  app.decorateRequest('auth', null as never);
  app.addSchema(ErrorBody);
  app.addSchema(FlatErrorBody);

  // JSON only (D7: anything else is 415). An empty body on an action route is simply no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // A stopping server refuses new requests with 503 and `Connection: close` (load balancers move
  // on; kept-alive clients reconnect elsewhere) in the error form of the request's family.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take a callback rather than being async: each async hook costs every
  // request a promise and a microtask turn.
  app.addHook('onRequest', (_req, reply, done) => {
    if (!closing) return done();
    reply.header('Connection', 'close');
    done(new ApiError(503, 'SERVICE_UNAVAILABLE', 'the server is shutting down; retry on another instance or shortly'));
  });

  // PostgreSQL text cannot hold U+0000 (a query with it failed as a 500); refused on every database
  // alike, before the schema runs, as 400 naming the field (D7).
  app.addHook('preValidation', (req, _reply, done) => {
    const field =
      fieldWithNul(req.params, 'params') ??
      fieldWithNul(req.query, 'querystring') ??
      // A route whose handler refuses U+0000 item by item (D14 bulk import) keeps one bad item from failing the batch.
      (req.routeOptions.config.nulCheckedByHandler ? null : fieldWithNul(req.body, 'body'));
    done(field ? new ApiError(400, 'INVALID_REQUEST', `${field} must not contain the NUL character (U+0000)`) : undefined);
  });

  // One access-log line per request, with the route pattern (never the raw URL: it holds e-mails).
  // Written through one logger made here rather than the request's child logger, with the request
  // id as a field: the same line, without the child's cost on every request. Its fields are fixed
  // and never hold a secret, so it skips redaction, which cost a third of writing the line.
  const accessLog = parts.logger.child({}, { redact: [] });
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? null;
    accessLog.info({ reqId: req.id, method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime), key_id: req.auth?.keyId }, 'request');
    // D17.9: by the route's pattern, so the label set stays bounded whatever URLs clients send.
    parts.metrics.httpDuration.observe({ route: route ?? 'unmatched', method: req.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sendwell API',
        version: '1.0.0',
        description: 'Email marketing: contacts, lists, campaigns, statistics, API keys. Reference endpoints live under /api/v1; integration endpoints under /v1.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Sendwell' },
      },
      servers: [{ url: parts.config.publicUrl }],
      components: { securitySchemes, headers: responseHeaders },
      security: securityForWrites,
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) ?? `def-${i}` },
    // D17.8: documented forms of loosely validated schemas, optional defaulted parameters, operationIds.
    transform,
    // D10's response headers, where the answers carry them.
    transformObject,
  });
  // The interactive reference is public, like the document it shows.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, permissions: 'public' };
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  // One authenticator for the auth hook and the sign-in routes alike.
  const sessions = new SessionAuthenticator(parts.users, parts.config.publicUrl);
  // Issue 28: each account's share of this thread, for API requests and public views alike.
  const accountShare = new AccountShare(parts.config.requestShare);
  authenticate = registerAuth(app, { ...parts, sessions, accountShare });
  registerIdempotency(app, parts.idempotency);
  registerRoutes(app, parts, sessions, accountShare);
  registerNotFound(app, await registerWebApp(app, join(projectRoot, 'web', 'dist')));
  return app;
}
