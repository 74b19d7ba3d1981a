import { ValidationError } from './errors.ts';

/** The one way the code reads the clock for stored timestamps: ISO 8601, UTC, milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** D1: responses show UTC as `YYYY-MM-DDTHH:MM:SS`, no fraction, no offset. */
export function toApiTimestamp(value: string | Date): string;
export function toApiTimestamp(value: string | Date | null): string | null;
export function toApiTimestamp(value: string | Date | null): string | null {
  if (value === null) return null;
  if (typeof value === 'string') return value.slice(0, 19);
  return value.toISOString().slice(0, 19);
}

export function toEpochMs(value: string | Date | null): number | null {
  if (value === null) return null;
  return typeof value === 'string' ? Date.parse(value) : value.getTime();
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * D1: inputs accept `YYYY-MM-DDTHH:MM:SS` (read as UTC) or any ISO 8601 date-time with an offset.
 * Returns the canonical stored form, or throws a ValidationError naming the field.
 */
export function parseInputTimestamp(field: string, raw: string): string {
  const m = ISO_DATE_TIME.exec(raw.trim());
  if (!m) throw new ValidationError(`${field} must be an ISO 8601 date-time such as 2026-01-31T09:30:00`);
  const [, y, mo, d, h, mi, s] = m;
  const ms = Date.parse(m[8] ? raw.trim() : raw.trim() + 'Z');
  // Date.parse rolls 2026-02-30 over to March; reject dates whose fields do not survive the round trip.
  const probe = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  if (
    Number.isNaN(ms) ||
    probe.getUTCFullYear() !== +y ||
    probe.getUTCMonth() !== +mo - 1 ||
    probe.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +s > 59
  ) {
    throw new ValidationError(`${field} is not a valid date-time`);
  }
  return new Date(ms).toISOString();
}
