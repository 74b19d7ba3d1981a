import type { SegmentRow } from '../../db/schema.ts';
import { NotFoundError } from '../shared/errors.ts';
import { boundedText, nameWithKey } from '../shared/names.ts';
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
export const segmentName = (raw: string) => nameWithKey(raw, SEGMENT_LIMITS.nameMax);

export const segmentDescription = (value: string | null | undefined) => boundedText(value, SEGMENT_LIMITS.descriptionMax);
