import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Deps } from '../../deps.ts';
import { defineRoute } from '../route.ts';

const tags = ['System'];

export function systemRoutes({ handle }: Deps, app: FastifyInstance) {
  return {
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
          await sql`select 1`.execute(handle.db);
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
