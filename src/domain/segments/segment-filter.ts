import { CONTACT_STATUSES } from '../contacts/contact-fields.ts';
import { CUSTOM_FIELD_KEY } from '../contacts/custom-field-key.ts';
import { ValidationError } from '../shared/errors.ts';
import { parseInputTimestamp } from '../shared/time.ts';

/**
 * D18: a segment's filter language, checked and turned into a typed tree. Pure: the repo compiles
 * the tree into SQL (segments.repo.ts), so nothing of the request is ever SQL text, and every
 * refusal names the path inside the filter (`filter.all[2].op`).
 */
export const FILTER_LIMITS = {
  conditions: 100,
  /** groups (`all`, `any`, `not`) nested, the outermost counting as 1 */
  depth: 5,
  valuesPerCondition: 1000,
  /** every value of every `in` list together: each is one SQL parameter, and databases cap those (SQLite 32,766, PostgreSQL 65,535) */
  valuesTotal: 5000,
  stringMax: 1000,
  daysMax: 36_500,
  /**
   * issue 28 C2: a text match (contains, not_contains, starts_with, ends_with on a text or custom
   * field) is a LIKE over every contact of the account, and its cost grows with the term's length
   * times the text's: the terms are shorter than other strings, and a filter holds fewer of them
   * together (D18's 100 conditions and 5 levels stay as they are: 100 short matches still fit).
   */
  patternMax: 200,
  patternCharsTotal: 2000,
} as const;

export const TEXT_FIELDS = ['email', 'first_name', 'last_name', 'phone'] as const;
export const DATE_FIELDS = ['created_at', 'updated_at'] as const;
export const ENGAGEMENT_FIELDS = ['campaign.sent', 'campaign.opened', 'campaign.clicked', 'campaign.bounced'] as const;
export const FILTER_OPS = [
  'eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists', 'within_days', 'before_days',
] as const;

export type TextField = (typeof TEXT_FIELDS)[number];
export type DateField = (typeof DATE_FIELDS)[number];
export type Engagement = 'sent' | 'opened' | 'clicked' | 'bounced';
export type Scalar = string | number | boolean;

/** The checked tree. Negative operators are kept as `not` around their positive form. */
export type SegmentCondition =
  | { kind: 'all' | 'any'; children: SegmentCondition[] }
  | { kind: 'not'; child: SegmentCondition }
  | { kind: 'text'; field: TextField; op: 'eq' | 'contains' | 'starts_with' | 'ends_with' | 'exists'; value: string }
  | { kind: 'text_in'; field: TextField | 'status'; values: string[] }
  | { kind: 'status'; value: string }
  | { kind: 'score'; op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte'; value: number }
  | { kind: 'score_in'; values: number[] }
  | { kind: 'date'; field: DateField; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string }
  | { kind: 'date_days'; field: DateField; op: 'within_days' | 'before_days'; days: number }
  | { kind: 'tags'; values: string[] }
  | { kind: 'lists'; ids: number[] }
  | { kind: 'custom'; key: string; op: 'eq' | 'contains' | 'starts_with' | 'ends_with' | 'gt' | 'gte' | 'lt' | 'lte' | 'exists'; value: Scalar }
  | { kind: 'custom_in'; key: string; values: Scalar[] }
  | { kind: 'engagement'; what: Engagement; campaignId: number | 'any'; withinDays: number | null }
  | { kind: 'event'; name: string; withinDays: number | null };

/** The ids a filter names, so the service can check they are the account's own. */
export interface FilterReferences {
  listIds: { id: number; path: string }[];
  campaignIds: { id: number; path: string }[];
}

const GROUPS = ['all', 'any', 'not'] as const;
const CONDITION_KEYS = new Set(['field', 'op', 'value', 'campaign_id', 'within_days', 'event']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (path: string, message: string): never => {
  throw new ValidationError(`${path}: ${message}`);
};
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** A condition names a custom field as this prefix and the field's key (D11's CUSTOM_FIELD_KEY). */
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';

/** The fields a condition may name, for messages. */
export const FIELD_NAMES = [...TEXT_FIELDS, 'status', 'lead_score', ...DATE_FIELDS, 'tags', 'lists', `${CUSTOM_FIELD_PREFIX}<key>`, ...ENGAGEMENT_FIELDS, 'event'];

/**
 * Checks a filter and returns its tree and the ids it names; 400 naming the path of the first
 * problem. Bounded before any recursion goes deep: a group below the depth limit is refused
 * without being walked, and the walk stops at the hundred-and-first condition.
 */
export function parseSegmentFilter(raw: unknown, root = 'filter'): { condition: SegmentCondition; references: FilterReferences } {
  const references: FilterReferences = { listIds: [], campaignIds: [] };
  let conditions = 0;
  let values = 0;
  let patternChars = 0;
  /** issue 28 C2: a LIKE term, bounded in length, and all of a filter's together. */
  const pattern = (v: unknown, path: string): string => {
    const term = text(v, path);
    const length = [...term].length;
    if (length > FILTER_LIMITS.patternMax) fail(path, `a text match (contains, not_contains, starts_with, ends_with) takes a term of at most ${FILTER_LIMITS.patternMax} characters`);
    patternChars += length;
    if (patternChars > FILTER_LIMITS.patternCharsTotal) fail(path, `the terms of a filter's text matches (contains, not_contains, starts_with, ends_with) hold at most ${FILTER_LIMITS.patternCharsTotal} characters together`);
    return term;
  };
  const counted = <T>(list: T[], path: string): T[] => {
    values += list.length;
    if (values > FILTER_LIMITS.valuesTotal) fail(path, `a filter holds at most ${FILTER_LIMITS.valuesTotal} values in its in and not_in lists together`);
    return list;
  };

  function node(v: unknown, path: string, depth: number): SegmentCondition {
    if (!isObject(v)) return fail(path, `must be an object: a group ({ "all": [...] }, { "any": [...] }, { "not": {...} }) or a condition ({ "field", "op", "value" }), not ${describe(v)}`);
    const group = GROUPS.filter((g) => g in v);
    if (group.length > 1) return fail(path, `must hold one of all, any or not, not ${group.join(' and ')}`);
    if (group.length === 1) {
      const g = group[0]!;
      const extra = Object.keys(v).filter((k) => k !== g);
      if (extra.length) return fail(path, `a group holds only "${g}", not "${extra[0]}"`);
      if (depth + 1 > FILTER_LIMITS.depth) return fail(path, `groups nest at most ${FILTER_LIMITS.depth} deep`);
      if (g === 'not') return { kind: 'not', child: node(v.not, `${path}.not`, depth + 1) };
      const items = v[g];
      if (!Array.isArray(items) || items.length === 0) return fail(`${path}.${g}`, 'must be a non-empty array');
      if (items.length > FILTER_LIMITS.conditions) return fail(`${path}.${g}`, `holds at most ${FILTER_LIMITS.conditions} items`);
      return { kind: g, children: items.map((item, i) => node(item, `${path}.${g}[${i}]`, depth + 1)) };
    }
    conditions += 1;
    if (conditions > FILTER_LIMITS.conditions) return fail(path, `a filter holds at most ${FILTER_LIMITS.conditions} conditions`);
    return condition(v, path);
  }

  function condition(c: Record<string, unknown>, path: string): SegmentCondition {
    for (const k of Object.keys(c)) if (!CONDITION_KEYS.has(k)) return fail(`${path}.${k}`, 'is not a condition key (field, op, value, campaign_id, within_days, event)');
    if (typeof c.field !== 'string') return fail(`${path}.field`, `is required: one of ${FIELD_NAMES.join(', ')}`);
    if (typeof c.op !== 'string') return fail(`${path}.op`, `is required: one of ${FILTER_OPS.join(', ')}`);
    const field = c.field;
    const op = c.op;
    const at = (k: string) => `${path}.${k}`;
    const opFits = (allowed: readonly string[], kind: string) => {
      if (!allowed.includes(op)) fail(at('op'), `"${op}" does not fit ${kind}: use ${allowed.join(', ')}`);
    };
    const noExtras = (...allowed: string[]) => {
      for (const k of ['campaign_id', 'within_days', 'event']) if (k in c && !allowed.includes(k)) fail(at(k), `does not apply to field "${field}"`);
    };
    const noValue = () => {
      if ('value' in c && c.value !== null && c.value !== true) fail(at('value'), `must be left out for "${op}"`);
    };

    if ((TEXT_FIELDS as readonly string[]).includes(field)) {
      noExtras();
      const f = field as TextField;
      opFits(['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'exists', 'not_exists'], `text field "${field}"`);
      if (op === 'exists' || op === 'not_exists') {
        noValue();
        return negated(op === 'not_exists', { kind: 'text', field: f, op: 'exists', value: '' });
      }
      if (op === 'in' || op === 'not_in') return negated(op === 'not_in', { kind: 'text_in', field: f, values: counted(stringArray(c.value, at('value')), at('value')).map((s) => s.toLowerCase()) });
      const value = (op === 'eq' || op === 'neq' ? text(c.value, at('value')) : pattern(c.value, at('value'))).toLowerCase();
      const positive = op === 'neq' ? 'eq' : op === 'not_contains' ? 'contains' : op;
      return negated(op === 'neq' || op === 'not_contains', { kind: 'text', field: f, op: positive as 'eq', value });
    }

    if (field === 'status') {
      noExtras();
      opFits(['eq', 'neq', 'in', 'not_in'], 'field "status"');
      const status = (v: unknown, p: string) => {
        const s = text(v, p).toUpperCase();
        if (!(CONTACT_STATUSES as readonly string[]).includes(s)) fail(p, `must be one of ${CONTACT_STATUSES.join(', ')}`);
        return s;
      };
      if (op === 'in' || op === 'not_in') {
        const values = counted(array(c.value, at('value')), at('value')).map((v, i) => status(v, `${at('value')}[${i}]`));
        return negated(op === 'not_in', { kind: 'text_in', field: 'status', values });
      }
      return negated(op === 'neq', { kind: 'status', value: status(c.value, at('value')) });
    }

    if (field === 'lead_score') {
      noExtras();
      opFits(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'], 'number field "lead_score"');
      if (op === 'in' || op === 'not_in') return negated(op === 'not_in', { kind: 'score_in', values: counted(array(c.value, at('value')), at('value')).map((v, i) => num(v, `${at('value')}[${i}]`)) });
      return negated(op === 'neq', { kind: 'score', op: op === 'neq' ? 'eq' : (op as 'eq'), value: num(c.value, at('value')) });
    }

    if ((DATE_FIELDS as readonly string[]).includes(field)) {
      noExtras();
      const f = field as DateField;
      opFits(['gt', 'gte', 'lt', 'lte', 'within_days', 'before_days'], `date field "${field}"`);
      if (op === 'within_days' || op === 'before_days') return { kind: 'date_days', field: f, op, days: days(c.value, at('value')) };
      if (typeof c.value !== 'string') return fail(at('value'), `must be a date-time such as 2026-01-31T09:30:00, not ${describe(c.value)}`);
      let value: string;
      try {
        value = parseInputTimestamp(at('value'), c.value);
      } catch (err) {
        return fail(at('value'), 'must be a date-time such as 2026-01-31T09:30:00 (UTC) or ISO 8601 with an offset');
      }
      return { kind: 'date', field: f, op: op as 'gt', value };
    }

    if (field === 'tags') {
      noExtras();
      opFits(['contains', 'not_contains', 'in'], 'field "tags"');
      const values = op === 'in' ? counted(stringArray(c.value, at('value')), at('value')) : [text(c.value, at('value'))];
      return negated(op === 'not_contains', { kind: 'tags', values: values.map((t) => t.trim()) });
    }

    if (field === 'lists') {
      noExtras();
      opFits(['contains', 'not_contains', 'in'], 'field "lists"');
      const ids = op === 'in' ? counted(array(c.value, at('value')), at('value')).map((v, i) => id(v, `${at('value')}[${i}]`)) : [id(c.value, at('value'))];
      ids.forEach((listId, i) => references.listIds.push({ id: listId, path: op === 'in' ? `${at('value')}[${i}]` : at('value') }));
      return negated(op === 'not_contains', { kind: 'lists', ids });
    }

    if (field.startsWith(CUSTOM_FIELD_PREFIX)) {
      noExtras();
      const key = field.slice(CUSTOM_FIELD_PREFIX.length);
      // D11's key pattern: only such a key ever reaches a JSON path (and then as a parameter).
      if (!CUSTOM_FIELD_KEY.test(key)) return fail(at('field'), 'custom field keys start with a letter and hold letters, digits and _ (at most 64)');
      opFits(FILTER_OPS.filter((o) => o !== 'within_days' && o !== 'before_days'), 'a custom field');
      if (op === 'exists' || op === 'not_exists') {
        noValue();
        return negated(op === 'not_exists', { kind: 'custom', key, op: 'exists', value: true });
      }
      if (op === 'in' || op === 'not_in') return negated(op === 'not_in', { kind: 'custom_in', key, values: counted(array(c.value, at('value')), at('value')).map((v, i) => scalar(v, `${at('value')}[${i}]`)) });
      if (['contains', 'not_contains', 'starts_with', 'ends_with'].includes(op)) {
        const value = pattern(c.value, at('value')).toLowerCase();
        return negated(op === 'not_contains', { kind: 'custom', key, op: op === 'not_contains' ? 'contains' : (op as 'contains'), value });
      }
      if (['gt', 'gte', 'lt', 'lte'].includes(op)) {
        const value = typeof c.value === 'string' ? text(c.value, at('value')).toLowerCase() : num(c.value, at('value'));
        return { kind: 'custom', key, op: op as 'gt', value };
      }
      const value = scalar(c.value, at('value'));
      return negated(op === 'neq', { kind: 'custom', key, op: 'eq', value: typeof value === 'string' ? value.toLowerCase() : value });
    }

    if ((ENGAGEMENT_FIELDS as readonly string[]).includes(field)) {
      noExtras('campaign_id', 'within_days');
      opFits(['eq'], `engagement field "${field}"`);
      const truth = bool(c.value, at('value'));
      let campaignId: number | 'any';
      if (c.campaign_id === 'any') campaignId = 'any';
      else if (c.campaign_id === undefined) return fail(at('campaign_id'), 'is required: a campaign id, or "any"');
      else {
        campaignId = id(c.campaign_id, at('campaign_id'), 'a campaign id, or "any"');
        references.campaignIds.push({ id: campaignId, path: at('campaign_id') });
      }
      const withinDays = c.within_days === undefined || c.within_days === null ? null : days(c.within_days, at('within_days'));
      const what = field.slice('campaign.'.length) as Engagement;
      return negated(!truth, { kind: 'engagement', what, campaignId, withinDays });
    }

    if (field === 'event') {
      noExtras('event', 'within_days');
      opFits(['eq'], 'field "event"');
      const truth = bool(c.value, at('value'));
      const name = text(c.event, at('event')).trim();
      if (name.length === 0) return fail(at('event'), 'must name the event');
      const withinDays = c.within_days === undefined || c.within_days === null ? null : days(c.within_days, at('within_days'));
      return negated(!truth, { kind: 'event', name, withinDays });
    }

    return fail(at('field'), `"${field.slice(0, 100)}" is not a field: use ${FIELD_NAMES.join(', ')}`);
  }

  const condition0 = node(raw, root, 0);
  return { condition: condition0, references };
}

function negated(negate: boolean, c: SegmentCondition): SegmentCondition {
  return negate ? { kind: 'not', child: c } : c;
}

function text(v: unknown, path: string): string {
  if (typeof v !== 'string') return fail(path, `must be a string, not ${describe(v)}`);
  if ([...v].length > FILTER_LIMITS.stringMax) return fail(path, `must be at most ${FILTER_LIMITS.stringMax} characters`);
  return v;
}

function array(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v) || v.length === 0) return fail(path, `must be a non-empty array, not ${describe(v)}`);
  if (v.length > FILTER_LIMITS.valuesPerCondition) return fail(path, `holds at most ${FILTER_LIMITS.valuesPerCondition} values`);
  return v;
}

function stringArray(v: unknown, path: string): string[] {
  return array(v, path).map((s, i) => text(s, `${path}[${i}]`));
}

function num(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, `must be a number, not ${describe(v)}`);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') return fail(path, `must be true or false, not ${describe(v)}`);
  return v;
}

function scalar(v: unknown, path: string): Scalar {
  if (typeof v === 'string') return text(v, path);
  if (typeof v === 'number') return num(v, path);
  if (typeof v === 'boolean') return v;
  return fail(path, `must be a string, a number or true/false, not ${describe(v)}`);
}

function id(v: unknown, path: string, what = 'an id'): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) return fail(path, `must be ${what} (a positive integer)`);
  return v;
}

function days(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > FILTER_LIMITS.daysMax) return fail(path, `must be a whole number of days, 0-${FILTER_LIMITS.daysMax}`);
  return v;
}
