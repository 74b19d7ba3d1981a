import type { FastifyRequest } from 'fastify';
import type { ActingContext, Actor } from '../domain/shared/actor.ts';
import type { RequestAuth } from './route.ts';

/** D24.8: who a request acts as, for the audit log: its key, its signed-in user, or nobody yet (public routes). */
export function actorOf(auth: RequestAuth | undefined): Actor | null {
  if (!auth) return null;
  if (auth.keyId === null) return { type: 'user', id: String(auth.session.user.id), label: auth.session.user.email };
  return { type: 'api_key', id: String(auth.keyId), label: auth.name };
}

/** The request's acting context: the first argument of every service method that changes something (shared/actor.ts). */
export function actingOf(req: FastifyRequest): ActingContext {
  const userAgent = req.headers['user-agent'];
  return { actor: actorOf(req.auth as RequestAuth | undefined), ip: req.ip ?? null, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
