/**
 * Typed domain errors. Services throw these; the HTTP error handler maps the class to a status
 * and keeps `code` and `message` (D7). Nothing here knows about HTTP.
 */
/**
 * Every error code the API answers with (D7 and the codes later decisions add). Errors are typed by
 * this list, so a new code must be added here, and the OpenAPI document lists the same (D17.8).
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'INVALID_CREDENTIALS',
  'PERMISSION_DENIED',
  'FORBIDDEN',
  'CSRF_TOKEN_INVALID',
  'KEY_LIMIT_REACHED',
  'SIGNUP_CLOSED',
  'NOT_FOUND',
  'ACCOUNT_NOT_FOUND',
  'CONTACT_NOT_FOUND',
  'LIST_NOT_FOUND',
  'CAMPAIGN_NOT_FOUND',
  'AUTOMATION_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'SEGMENT_NOT_FOUND',
  'SUPPRESSION_NOT_FOUND',
  'DOMAIN_NOT_FOUND',
  'FORM_NOT_FOUND',
  'TEMPLATE_NOT_FOUND',
  'MEDIA_NOT_FOUND',
  'MESSAGE_NOT_FOUND',
  'CONTACT_ALREADY_EXISTS',
  'LIST_ALREADY_EXISTS',
  'SEGMENT_ALREADY_EXISTS',
  'DOMAIN_ALREADY_EXISTS',
  'USER_ALREADY_EXISTS',
  'CAMPAIGN_NOT_SENT',
  'LIST_IN_USE',
  'INVALID_STATE',
  'PRECONDITION_FAILED',
  'RANGE_NOT_SATISFIABLE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'RETRY_LATER',
  // D25.6: Idempotency-Key
  'IDEMPOTENCY_KEY_INVALID',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  // D24.4-D24.5: a reset link that is unknown, used or expired; another user's or an unknown session
  'INVALID_TOKEN',
  'SESSION_NOT_FOUND',
  // D24: members and invitations
  'MEMBER_NOT_FOUND',
  'INVITATION_NOT_FOUND',
  'INVITATION_EXISTS',
  'LAST_OWNER',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input the schema could not catch (normalisation, cross-field rules): INVALID_REQUEST, or a 400 of its own (D24's INVALID_TOKEN). */
export class ValidationError extends DomainError {
  /** `code`: another 400 the decisions name (D24.4's INVALID_TOKEN, D24.5's INVALID_CREDENTIALS) */
  constructor(message: string, code: ErrorCode = 'INVALID_REQUEST') {
    super(code, message);
  }
}

export class NotFoundError extends DomainError {}

/** A uniqueness rule would be broken (CONTACT_ALREADY_EXISTS, LIST_ALREADY_EXISTS). */
export class ConflictError extends DomainError {}

/** The action is not allowed in the resource's current state (INVALID_STATE, CAMPAIGN_NOT_SENT). */
export class InvalidStateError extends DomainError {
  constructor(message: string, code: ErrorCode = 'INVALID_STATE') {
    super(code, message);
  }
}

/** The caller is known but may not do this (PERMISSION_DENIED, KEY_LIMIT_REACHED). */
export class ForbiddenError extends DomainError {}

/** D22: an upload past a size limit or the account's storage cap (PAYLOAD_TOO_LARGE, 413). */
export class TooLargeError extends DomainError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

/** D22: content of a kind the service does not take, such as a media upload that is not an image (UNSUPPORTED_MEDIA_TYPE, 415). */
export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/**
 * Issue 28: an account has as much of a shared resource's work waiting as it may (the compile and render
 * thread's queue); it may retry after `retryAfterSeconds` (RATE_LIMIT_EXCEEDED, 429 with Retry-After).
 */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMIT_EXCEEDED', message);
  }
}
