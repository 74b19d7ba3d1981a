import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedKey } from '../domain/api-keys/key-cache.ts';
import type { Permission } from '../domain/api-keys/permissions.ts';
import type { SessionAuth } from './session-auth.ts';
import type { Session } from '../domain/users/users.service.ts';

/** Who made the request: an API key, or a dashboard session (`keyId: null`). */
export type RequestAuth = AuthenticatedKey | SessionAuth;

export interface RouteSchema {
  summary: string;
  description?: string;
  tags: string[];
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** the body's media types in the OpenAPI document, when not JSON (D22's multipart upload) */
  consumes?: string[];
  response: Record<number, TSchema>;
}

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface TypedRequest<S extends RouteSchema> extends FastifyRequest {
  params: StaticOr<S['params'], unknown>;
  query: StaticOr<S['querystring'], unknown>;
  body: StaticOr<S['body'], unknown>;
  auth: RequestAuth;
}

export interface RouteDef<S extends RouteSchema = RouteSchema> {
  schema: S;
  /** Permissions the key must hold (all of them), or 'public' for routes that need no key. */
  permissions: readonly Permission[] | 'public';
  /** D24.2: a dashboard session of any role may call it; keys still need `permissions` (the member list) */
  anySession?: boolean;
  bodyLimit?: number;
  /** takes a body of any content type as text (RFC 8058's form POST); every other route takes JSON only */
  acceptAnyBody?: boolean;
  /** D26.10: the document lists the HEAD that Fastify answers for this GET (tracked links: scanners check them with HEAD) */
  documentHead?: boolean;
  /** reads a multipart/form-data upload itself (D22 media): registered in the one scope that has the multipart plugin */
  multipart?: boolean;
  /** the handler refuses U+0000 in the body itself, item by item (D14 bulk import: an invalid item never fails the batch) */
  nulCheckedByHandler?: boolean;
  /**
   * D24.5-D24.6: acts on the signed-in person: a dashboard session only, found before the body is
   * read (D8's order) and handed to the handler as `req.dashboardSession`; an API key is 401.
   * Such a route is public to the key check (`permissions: 'public'`).
   */
  sessionOnly?: boolean;
  /** sets or clears cookies (dashboard sign-in): registered in the one scope that has the cookie plugin, so other routes pay nothing for it */
  setsCookies?: boolean;
  /** Success status; D4 makes every success under /api/v1 a 200, D14 makes events a 202. */
  status?: number;
  handler: (req: TypedRequest<S>, reply: FastifyReply) => Promise<unknown>;
}

/** Declares a route with its schema; request types are inferred from the schema. */
export function defineRoute<S extends RouteSchema>(def: RouteDef<S>): RouteDef<S> {
  return def;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permissions?: readonly Permission[] | 'public';
    /** RouteDef.anySession */
    anySession?: boolean;
    nulCheckedByHandler?: boolean;
    /** reads a multipart upload itself: its Idempotency-Key is checked once the file is read (D25.6) */
    multipart?: boolean;
  }
  interface FastifyRequest {
    auth: RequestAuth;
    /** the session of a `sessionOnly` route, found before its body was judged */
    dashboardSession?: Session;
    /** the success envelope's `warnings` (issue 15: unknown body fields, named, still ignored) */
    warnings?: string[];
  }
}

/** A handler's answer that carries the success envelope (`success: true`), the one place `warnings` may go. */
export function isSuccessEnvelope(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && (body as { success?: unknown }).success === true;
}

/** `warnings` entries (D17) the handler found, after any the request's unknown fields made. */
export function addWarnings(req: FastifyRequest, warnings: readonly string[]): void {
  if (warnings.length > 0) req.warnings = [...(req.warnings ?? []), ...warnings];
}

/** Success envelope helpers (D4): reads carry no message, writes do. */
export const read = <T>(data: T) => ({ success: true as const, data });
export const written = <T>(data: T, message: string) => ({ success: true as const, data, message });

/**
 * A path id already matched D2's pattern. Ids beyond 2^53 cannot exist here; 0 matches no row,
 * so they answer 404 like any other missing id instead of overflowing a bigint parameter.
 */
export function pathId(raw: string): number {
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : 0;
}

/** D20: the request's client as a consent record keeps it (the address TRUST_PROXY makes real, and the user agent). */
export const clientOf = (req: FastifyRequest) => ({ ip: req.ip, userAgent: req.headers['user-agent'] ?? null });
