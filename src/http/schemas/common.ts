import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ERROR_CODES } from '../../domain/shared/errors.ts';

/**
 * D17.8: how a schema reads in the OpenAPI document when the validator must run something looser,
 * because the contract's own message comes from the service (an automation step names its failing
 * field, a bulk item fails alone, D2's path id is checked as text so `01` or `1e3` is 400). The
 * document-building transform (openapi-document.ts) swaps every marked node for its documented form.
 */
export const DOCUMENTED = Symbol('sendwell.documented');
export function documentedAs<T extends TSchema>(runtime: T, documented: object): T {
  return { ...runtime, [DOCUMENTED]: documented };
}

/** A string from a fixed list, as a plain JSON Schema `enum` (the values come from the domain's own constant). */
export function StringEnum<const T extends readonly string[]>(values: T, opts: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
}

/** D1 timestamp form, used for documentation of every date-time field. */
export const Timestamp = Type.String({ description: 'UTC, YYYY-MM-DDTHH:MM:SS', examples: ['2026-01-31T09:30:00'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const NullableString = (opts: { maxLength?: number; description?: string } = {}) => Type.Union([Type.String(opts), Type.Null()]);

/**
 * D2: a path id is a positive integer; anything else is 400 before any lookup. It is checked as
 * text (coercion would take `01`, `1e3` or ` 1`), and documented as the integer it is (D17.8).
 */
export const PathId = documentedAs(Type.String({ pattern: '^[1-9][0-9]*$', description: 'positive integer id' }), {
  type: 'integer',
  minimum: 1,
  description: 'positive integer id',
});
export const IdParams = Type.Object({ id: PathId });

/** D6: page >= 0, size 1-100. */
export const PageQuery = {
  // The maximum keeps page * size inside a bigint OFFSET; 1e20 or 1e400 otherwise reached the database (or the serializer) as a 500.
  page: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'page number, 0-indexed' }),
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'items per page (1-100)' }),
};

export function PageOf(name: string, item: TSchema) {
  return Type.Object({
    [name]: Type.Array(item),
    page: Type.Integer(),
    size: Type.Integer(),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
  });
}

/** Success envelope: reads carry no `message`; creates, updates, deletes and actions do (D4). */
/**
 * Issue 15: unknown body fields are ignored (D7) but named here. The route table adds it to every
 * success envelope, so no route declares it; present only when not empty.
 */
export const Warnings = Type.Array(Type.String(), {
  minItems: 1,
  description: 'present only when there is something the status alone hides: fields the endpoint ignored, e.g. `unknown field "frist_name" was ignored`, or (D26.6) a contact created with an address erased before, which will not be mailed',
});

export function Read(data: TSchema) {
  return Type.Object({ success: Type.Literal(true), data });
}
export function Written(data: TSchema) {
  return Type.Object({ success: Type.Literal(true), data, message: Type.String() });
}

const RateLimitDetails = {
  retryAfter: Type.Optional(Type.Integer({ description: 'seconds to wait (429 only)' })),
  limit: Type.Optional(Type.Integer()),
  remaining: Type.Optional(Type.Integer()),
  resetAt: Type.Optional(Timestamp),
};

/** D7 reference error form. */
export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({ code: StringEnum(ERROR_CODES), message: Type.String() }),
    ...RateLimitDetails,
  },
  { $id: 'ErrorBody', description: 'Error envelope of the reference endpoints' },
);

/** D7 integration (flat) error form. */
export const FlatErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'short text, e.g. Unauthorized' }),
    code: StringEnum(ERROR_CODES),
    message: Type.String(),
    ...RateLimitDetails,
  },
  { $id: 'FlatErrorBody', description: 'Error form of the integration endpoints' },
);

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid request (INVALID_REQUEST)',
  401: 'Missing, malformed, unknown, revoked or expired API key (UNAUTHORIZED)',
  403: 'The key lacks the permission (PERMISSION_DENIED)',
  429: 'Rate limit exceeded (RATE_LIMIT_EXCEEDED)',
  500: 'Server failure (INTERNAL_ERROR)',
};

/** The error responses a route documents: the standard set plus its own (e.g. 404, 409). */
export function errorResponses(flat: boolean, own: Record<number, string> = {}): Record<number, TSchema> {
  const body = flat ? FlatErrorBody : ErrorBody;
  const all = { ...STANDARD_ERRORS, ...own };
  return Object.fromEntries(Object.entries(all).map(([status, description]) => [status, Type.Ref(body, { description })]));
}

/**
 * D17.8: what any operation with a body may answer before its handler runs: 413 over the body
 * limit, and 415 for a body that is not JSON (unless the route reads any body as text).
 */
export function bodyErrorResponses(flat: boolean, jsonOnly: boolean): Record<number, TSchema> {
  const body = flat ? FlatErrorBody : ErrorBody;
  const responses: Record<number, TSchema> = { 413: Type.Ref(body, { description: 'The body is over the size limit (PAYLOAD_TOO_LARGE)' }) };
  if (jsonOnly) responses[415] = Type.Ref(body, { description: 'The body is not application/json (UNSUPPORTED_MEDIA_TYPE)' });
  return responses;
}

/**
 * D25.6: what an operation that takes an Idempotency-Key may answer for it, each added to the
 * route's own description of the status (`own`) where it has one.
 */
export function idempotencyErrorResponses(flat: boolean, own: Record<number, TSchema>): Record<number, TSchema> {
  const body = flat ? FlatErrorBody : ErrorBody;
  const added: Record<number, string> = {
    400: 'the Idempotency-Key header is not 1-255 printable ASCII characters (IDEMPOTENCY_KEY_INVALID)',
    409: 'a request with this Idempotency-Key is still running (IDEMPOTENCY_KEY_IN_PROGRESS; Retry-After says when to retry)',
    422: 'this Idempotency-Key was used in the last 24 hours for another method, path or body (IDEMPOTENCY_KEY_REUSED)',
  };
  return Object.fromEntries(
    Object.entries(added).map(([status, description]) => {
      const before = own[Number(status)]?.description;
      return [status, Type.Ref(body, { description: before ? `${before}; or ${description}` : description })];
    }),
  );
}
