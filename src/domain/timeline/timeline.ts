import { ValidationError } from '../shared/errors.ts';
import { toApiTimestamp } from '../shared/time.ts';

/**
 * Issue 34: a contact's activity, newest first. Each kind is one source: a column of its campaign
 * recipient rows, its consent records, memberships it left, its events or its automation runs.
 * D23: opens and clicks are `human` or `machine` (a privacy proxy or a link scanner), each its own kind.
 * The order of this list is the rank that orders entries of the same second (last first).
 */
export const TIMELINE_KINDS = [
  'subscribed',
  'event',
  'automation_run',
  'sent',
  'opened_by_machine',
  'opened',
  'clicked_by_machine',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'left_list',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export const TIMELINE_LIMITS = { sizeMax: 100, sizeDefault: 20, cursorMax: 200 } as const;

export const rankOfKind = (kind: TimelineKind): number => TIMELINE_KINDS.indexOf(kind);

export interface TimelineRef {
  id: number;
  name: string;
}

/** One entry as the API shows it (D1 time, D5 nulls). */
export interface TimelineEntry {
  kind: TimelineKind;
  at: string;
  /** the source row's id: a campaign recipient, consent record, list, event or automation run */
  id: number;
  /** the campaign of a message (null: the campaign was deleted, or the message was an automation's) */
  campaign: TimelineRef | null;
  /** `subscribed` through a form */
  form: TimelineRef | null;
  /** `left_list` */
  list: TimelineRef | null;
  /** `automation_run` */
  automation: TimelineRef | null;
  /** `event`: its name */
  event: string | null;
  /** `subscribed`: FORM, API, IMPORT, CONFIRMATION or EVENT; `automation_run`: its status */
  detail: string | null;
}

export interface TimelinePage {
  entries: TimelineEntry[];
  /** pass as `cursor` for the next (older) entries; null on the last page */
  next_cursor: string | null;
  size: number;
}

/** Where a page starts: the last entry of the page before, as the database gave its time. */
export interface TimelinePosition {
  at: string;
  kind: TimelineKind;
  id: number;
}

// ISO 8601 as either database hands it back (SQLite's stored text, PostgreSQL's Date as ISO).
const STORED_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)?$/;

export function encodeCursor(p: TimelinePosition): string {
  return Buffer.from(JSON.stringify([p.at, p.kind, p.id])).toString('base64url');
}

/** A cursor this endpoint gave, else 400 naming `cursor` (it is opaque to callers). */
export function decodeCursor(raw: string): TimelinePosition {
  const invalid = () => new ValidationError('cursor is not one this endpoint gave (pass next_cursor as it came)');
  if (raw.length > TIMELINE_LIMITS.cursorMax || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
  const [at, kind, id] = parsed as unknown[];
  if (typeof at !== 'string' || !STORED_TIME.test(at) || Number.isNaN(Date.parse(at.replace(' ', 'T')))) throw invalid();
  if (typeof kind !== 'string' || !(TIMELINE_KINDS as readonly string[]).includes(kind)) throw invalid();
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw invalid();
  return { at, kind: kind as TimelineKind, id };
}

/** The time as the database returned it, kept exactly for the next page's comparison. */
export function storedTime(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

/** A merged row (see db/keyset.ts's KeysetRow) as the API shows it. */
export function toTimelineEntry(r: { rank: number; at: string | Date; id: number; ref_id: number | null; ref_name: string | null; detail: string | null }): TimelineEntry {
  const kind = TIMELINE_KINDS[Number(r.rank)]!;
  const ref = r.ref_id === null || r.ref_name === null ? null : { id: Number(r.ref_id), name: r.ref_name };
  const entry: TimelineEntry = { kind, at: toApiTimestamp(r.at), id: Number(r.id), campaign: null, form: null, list: null, automation: null, event: null, detail: null };
  switch (kind) {
    case 'subscribed':
      return { ...entry, form: ref, detail: r.detail };
    case 'left_list':
      return { ...entry, list: ref };
    case 'event':
      return { ...entry, event: r.detail };
    case 'automation_run':
      return { ...entry, automation: ref, detail: r.detail };
    default:
      // A message: `detail` holds its campaign's status; an automation's hidden campaign is no campaign to show.
      return { ...entry, campaign: r.detail === 'AUTOMATION' ? null : ref };
  }
}
