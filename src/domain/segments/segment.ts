import type { SegmentRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { toApiTimestamp } from '../shared/time.ts';

/** A segment as the API shows it (D18), its mapper, limits and name rule: pure, as list.ts. */
export const SEGMENT_LIMITS = { nameMax: 255, descriptionMax: 1000, previewSize: 10 } as const;

export interface Segment {
  id: number;
  name: string;
  description: string | null;
  filter: unknown;
  contact_count: number;
  created_at: string;
  updated_at: string;
}

export interface SegmentInput {
  name?: string;
  description?: string | null;
  filter?: unknown;
}

export const segmentNotFound = () => new NotFoundError('SEGMENT_NOT_FOUND', 'segment not found');

export function toSegment(row: SegmentRow, contactCount: number): Segment {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    filter: JSON.parse(row.filter),
    contact_count: contactCount,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The name trimmed and its unique key (names are unique per account ignoring case, as lists'), or 400. */
export function segmentName(raw: string): { name: string; nameKey: string } {
  const name = raw.trim();
  const length = [...name].length;
  if (length < 1 || length > SEGMENT_LIMITS.nameMax) throw new ValidationError(`name must be 1-${SEGMENT_LIMITS.nameMax} characters`);
  return { name, nameKey: name.toLowerCase() };
}

export function segmentDescription(value: string | null | undefined): string | null | undefined {
  if (typeof value === 'string' && [...value].length > SEGMENT_LIMITS.descriptionMax) {
    throw new ValidationError(`description must be at most ${SEGMENT_LIMITS.descriptionMax} characters`);
  }
  return value;
}
