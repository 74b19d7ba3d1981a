/**
 * Typed domain errors. Services throw these; the HTTP error handler maps the class to a status
 * and keeps `code` and `message` (D7). Nothing here knows about HTTP.
 */
export abstract class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input the schema could not catch (normalisation, cross-field rules): INVALID_REQUEST. */
export class ValidationError extends DomainError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}

export class NotFoundError extends DomainError {}

/** A uniqueness rule would be broken (CONTACT_ALREADY_EXISTS, LIST_ALREADY_EXISTS). */
export class ConflictError extends DomainError {}

/** The action is not allowed in the resource's current state (INVALID_STATE, CAMPAIGN_NOT_SENT). */
export class InvalidStateError extends DomainError {
  constructor(message: string, code = 'INVALID_STATE') {
    super(code, message);
  }
}

/** The caller is known but may not do this (PERMISSION_DENIED, KEY_LIMIT_REACHED). */
export class ForbiddenError extends DomainError {}
