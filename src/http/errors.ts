import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { validationMessage, type SchemaError } from './validation-message.ts';
import { answersWithPage, sendPublicErrorPage } from './pages/public-error-pages.ts';
import { ConflictError, DomainError, type ErrorCode, ForbiddenError, InvalidStateError, NotFoundError, RateLimitedError, TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/shared/errors.ts';

/** An error that only the HTTP layer raises (authentication, rate limits, permissions). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** extra top-level body fields (the 429 details of D10) */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * D25.6: not an error but the kept answer of an earlier request with the same Idempotency-Key,
 * thrown where a handler finds it (an upload, once its file is read) and answered as it was.
 */
export class ReplayedAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super('replayed');
  }
}

export const unauthorized = () => new ApiError(401, 'UNAUTHORIZED', 'a valid API key is required in X-API-Key or Authorization: Bearer');
/** `role`: a dashboard session's (D24.1), named in the message; null for an API key. */
export const permissionDenied = (needed: readonly string[], role: string | null = null) =>
  new ApiError(403, 'PERMISSION_DENIED', role === null ? `this API key lacks the permission ${needed.join(' and ')}` : `your role (${role}) does not allow this: it needs ${needed.join(' and ')}`);

function statusOfDomainError(err: DomainError): number {
  if (err instanceof ValidationError) return 400;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError || err instanceof InvalidStateError) return 409;
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof TooLargeError) return 413;
  if (err instanceof UnsupportedMediaTypeError) return 415;
  return 500;
}

/** Fastify's own client errors (body parsing, limits, content type) in the contract's codes (D7). */
function fromFastifyError(err: FastifyError): ApiError | null {
  if (err.validation) return new ApiError(400, 'INVALID_REQUEST', validationMessage(err.validation as SchemaError[], err.validationContext));
  switch (err.statusCode) {
    case 413:
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'the request body is too large');
    case 415:
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
    case 400:
      return new ApiError(400, 'INVALID_REQUEST', err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'the body must not be empty' : `body: ${err.message}`);
    default:
      return null;
  }
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof RateLimitedError) return new ApiError(429, err.code, err.message, { retryAfter: err.retryAfterSeconds });
  if (err instanceof DomainError) return new ApiError(statusOfDomainError(err), err.code, err.message);
  const fastify = fromFastifyError(err as FastifyError);
  if (fastify) return fastify;
  return new ApiError(500, 'INTERNAL_ERROR', 'the server failed to handle the request; it has been logged');
}

/** Integration endpoints (`/v1/...`) answer in the flat form of the key guide; the rest nest under `error` (D7). */
export function isIntegrationRoute(url: string): boolean {
  return url.startsWith('/v1/');
}

export function errorBody(url: string, err: ApiError): Record<string, unknown> {
  return isIntegrationRoute(url)
    ? { success: false, error: STATUS_CODES[err.status] ?? 'Error', code: err.code, message: err.message, ...err.extra }
    : { success: false, error: { code: err.code, message: err.message }, ...err.extra };
}

/** The one error handler: every failure leaves through here. */
export function handleError(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof ReplayedAnswer) return reply.code(err.status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').serializer((body: string) => body).send(err.body);
  const apiError = toApiError(err);
  if (apiError.status >= 500) req.log.error({ err }, 'request failed');
  // A refusal that says when to come back says it in the header too (RFC 9110), whoever threw it.
  if (typeof apiError.extra.retryAfter === 'number') reply.header('Retry-After', String(apiError.extra.retryAfter));
  // D26.5: a recipient's browser gets a page, never JSON.
  if (answersWithPage(req.url, req.headers.accept)) return sendPublicErrorPage(reply, apiError.status, apiError.extra.retryAfter as number | undefined);
  // Serialize here so the body shape never depends on which route's response schema is in force.
  return reply.status(apiError.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(errorBody(req.url, apiError));
}
