import { Type, type TSchema } from '@sinclair/typebox';

/** D1 timestamp form, used for documentation of every date-time field. */
export const Timestamp = Type.String({ description: 'UTC, YYYY-MM-DDTHH:MM:SS', examples: ['2026-01-31T09:30:00'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const NullableString = (opts: { maxLength?: number; description?: string } = {}) => Type.Union([Type.String(opts), Type.Null()]);

/** D2: a path id is a positive integer; anything else is 400 before any lookup. */
export const IdParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]*$', description: 'positive integer id' }) });

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
    error: Type.Object({ code: Type.String(), message: Type.String() }),
    ...RateLimitDetails,
  },
  { $id: 'ErrorBody', description: 'Error envelope of the reference endpoints' },
);

/** D7 integration (flat) error form. */
export const FlatErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'short text, e.g. Unauthorized' }),
    code: Type.String(),
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
