import { Type } from '@sinclair/typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pingDatabase } from '../../db/health.repo.ts';
import type { HttpParts } from '../http-parts.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { documentedAs } from '../schemas/common.ts';

const tags = ['System'];

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * D17.9: with METRICS_TOKEN, only `Authorization: Bearer <token>` reads the metrics (compared in
 * constant time). Without it, only the machine itself: the client address must be loopback, and a
 * request that came through a proxy counts as the proxy's client, which TRUST_PROXY must name
 * (otherwise a local reverse proxy would make every visitor look local).
 */
export function metricsAccess(req: FastifyRequest, token: string | null, proxyTrusted: boolean): 'allowed' | 'unauthorized' | 'forbidden' {
  if (token !== null) {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return m && timingSafeEqual(sha256(m[1]), sha256(token)) ? 'allowed' : 'unauthorized';
  }
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined;
  if (proxied && !proxyTrusted) return 'forbidden';
  return isLoopback(req.ip) ? 'allowed' : 'forbidden';
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

export function systemRoutes({ handle, config, metrics }: Pick<HttpParts, 'handle' | 'config' | 'metrics'>, app: FastifyInstance) {
  return {
    metrics: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Prometheus metrics (D17.9)',
        description:
          'Prometheus text: http_request_duration_seconds (route, method, status), sendwell_messages_sent_total, _bounced_total and _failed_total, the backlogs (recipients pending, automation runs active, webhook deliveries pending) and process metrics. With METRICS_TOKEN set it needs `Authorization: Bearer <token>` (401 otherwise); unset, it answers only loopback clients (403 otherwise).',
        tags,
        response: {
          200: documentedAs(Type.String(), { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }),
          401: Type.Any({ description: 'METRICS_TOKEN is set and the bearer token is missing or wrong (UNAUTHORIZED)' }),
          403: Type.Any({ description: 'METRICS_TOKEN is unset and the client is not this machine (FORBIDDEN)' }),
        },
      },
      handler: async (req, reply) => {
        const access = metricsAccess(req, config.metricsToken, config.trustProxy !== false);
        if (access === 'unauthorized') throw new ApiError(401, 'UNAUTHORIZED', 'metrics need Authorization: Bearer with the METRICS_TOKEN of this server');
        if (access === 'forbidden') throw new ApiError(403, 'FORBIDDEN', 'metrics answer only this machine; set METRICS_TOKEN to read them from elsewhere');
        const body = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).serializer((b: unknown) => b as string).send(body);
      },
    }),

    health: defineRoute({
      permissions: 'public',
      schema: { summary: 'Liveness: 200 while the process runs', tags, response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      handler: async () => ({ status: 'ok' as const }),
    }),

    ready: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Readiness: 200 only when the database answers',
        tags,
        response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: Type.Object({ status: Type.Literal('unavailable') }) },
      },
      handler: async (_req, reply) => {
        try {
          await pingDatabase(handle.db);
          return { status: 'ready' as const };
        } catch {
          return reply.status(503).send({ status: 'unavailable' as const });
        }
      },
    }),

    openapi: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'This OpenAPI 3.1 document',
        tags,
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1 document' }) },
      },
      // A custom serializer skips Fastify's default Content-Type, so it is set here.
      handler: async (_req, reply) => reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(app.swagger()),
    }),
  };
}
