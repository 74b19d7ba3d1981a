import { sql, type Insertable, type RawBuilder, type Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { SegmentsTable } from '../../db/schema.ts';
import { affixPattern, containsPattern, jsonArrayHasAny, lowerFor } from '../../db/sql-helpers.ts';
import { pageQuery } from '../../db/page-query.ts';
import { CUSTOM_FIELD_KEY } from '../contacts/custom-field-key.ts';
import type { PageRequest } from '../shared/paging.ts';
import type { Engagement, Scalar, SegmentCondition } from './segment-filter.ts';

// ---------------------------------------------------------------------------------------------
// The segments table

export function insertSegment(db: Db, values: Insertable<SegmentsTable>) {
  return db.insertInto('segments').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findSegment(db: Db, accountId: number, id: number) {
  return db.selectFrom('segments').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function findSegmentByNameKey(db: Db, accountId: number, nameKey: string) {
  return db.selectFrom('segments').selectAll().where('account_id', '=', accountId).where('name_key', '=', nameKey).executeTakeFirst();
}

/** The account's segments among `ids` (a campaign's audience reads their filters at snapshot time). */
export async function findSegments(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('segments').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).orderBy('id').execute();
}

export function updateSegment(db: Db, accountId: number, id: number, values: Updateable<SegmentsTable>) {
  return db.updateTable('segments').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteSegment(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('segments').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** D6: oldest first, as lists. */
export function pageSegments(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('segments').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}

// ---------------------------------------------------------------------------------------------
// Filters as SQL (D18): one WHERE fragment over `contacts`, every value a parameter

/** What a filter is compiled for: the account (its campaigns and events), and the "now" day counts start from, the same for every condition of a request. */
export interface CompileContext {
  dialect: Dialect;
  accountId: number;
  nowMs: number;
}

/**
 * A contact's status as segments compare it. Issue 28 M3: one waiting for its double opt-in
 * confirmation is not SUBSCRIBED here (its stored status is, D20), so it matches `neq SUBSCRIBED`
 * and never `eq SUBSCRIBED`; it has none of the other statuses either.
 */
const STATUS = sql`(case when contacts.awaiting_confirmation = 1 and contacts.status = 'SUBSCRIBED' then 'UNCONFIRMED' else contacts.status end)`;

const daysAgo = (ctx: CompileContext, days: number) => new Date(ctx.nowMs - days * 86_400_000).toISOString();
const ENGAGEMENT_COLUMN: Record<Engagement, string> = { sent: 'sent_at', opened: 'opened_at', clicked: 'clicked_at', bounced: 'bounced_at' };
const COMPARE = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * The condition as a boolean SQL expression over the `contacts` row. Every fragment is true or
 * false, never NULL (a missing field compares false), so `not` is the exact complement: "first
 * name is not Ann" holds for a contact with no first name, as Mailchimp's "is not" does.
 * Lists, engagement and events are `contacts.id in (subquery)`, never correlated: the database
 * reads the set once (from an index) and can drive the scan from it, and the subqueries leave out
 * NULL contact ids so `not in` stays exact.
 */
export function matchContacts(condition: SegmentCondition, ctx: CompileContext): RawBuilder<boolean> {
  const pg = ctx.dialect === 'postgres';
  const ref = (column: string) => sql.ref(`contacts.${column}`);
  const list = (values: readonly (string | number)[]) => sql.join(values.map((v) => sql`${v}`));
  const op = (o: keyof typeof COMPARE) => sql.raw(COMPARE[o]);
  // lead_score is an integer column: PostgreSQL would type a parameter beside it as integer and refuse 2.5.
  const score = (v: number) => (pg ? sql`cast(${v} as numeric)` : sql`${v}`);
  const lower = (expr: RawBuilder<unknown> | ReturnType<typeof ref>, terms: readonly string[]) => lowerFor(ctx.dialect, expr, terms);

  switch (condition.kind) {
    case 'all':
    case 'any':
      return sql<boolean>`(${sql.join(
        byCost(condition.children).map((c) => matchContacts(c, ctx)),
        sql.raw(condition.kind === 'all' ? ' and ' : ' or '),
      )})`;
    case 'not':
      return sql<boolean>`(not ${matchContacts(condition.child, ctx)})`;
    case 'text': {
      const col = ref(condition.field);
      switch (condition.op) {
        case 'exists':
          return sql<boolean>`(${col} is not null and ${col} <> '')`;
        case 'eq':
          return sql<boolean>`(${col} is not null and ${lower(col, [condition.value])} = ${condition.value})`;
        case 'contains':
          return sql<boolean>`(${col} is not null and ${lower(col, [condition.value])} like ${containsPattern(condition.value)})`;
        case 'starts_with':
        case 'ends_with':
          return sql<boolean>`(${col} is not null and ${lower(col, [condition.value])} like ${affixPattern(condition.value, condition.op === 'starts_with' ? 'prefix' : 'suffix')})`;
      }
      break;
    }
    case 'text_in': {
      const col = ref(condition.field);
      // Statuses are stored upper-case and never null; the other fields compare ignoring case.
      return condition.field === 'status' ? sql<boolean>`(${STATUS} in (${list(condition.values)}))` : sql<boolean>`(${col} is not null and ${lower(col, condition.values)} in (${list(condition.values)}))`;
    }
    case 'status':
      return sql<boolean>`(${STATUS} = ${condition.value})`;
    case 'score':
      return sql<boolean>`(${ref('lead_score')} ${op(condition.op)} ${score(condition.value)})`;
    case 'score_in':
      return sql<boolean>`(${ref('lead_score')} in (${sql.join(condition.values.map(score))}))`;
    case 'date':
      return sql<boolean>`(${ref(condition.field)} ${op(condition.op)} ${condition.value})`;
    case 'date_days':
      return sql<boolean>`(${ref(condition.field)} ${sql.raw(condition.op === 'within_days' ? '>=' : '<')} ${daysAgo(ctx, condition.days)})`;
    case 'tags':
      return jsonArrayHasAny(ctx.dialect, 'contacts.tags', condition.values);
    case 'lists':
      // D20: a list's members are its SUBSCRIBED memberships, as for audiences and contact_count.
      return sql<boolean>`(contacts.id in (select lm.contact_id from list_members lm where lm.list_id in (${list(condition.ids)}) and lm.status = 'SUBSCRIBED'))`;
    case 'custom':
      return customField(condition.key, condition.op, condition.value, ctx.dialect);
    case 'custom_in': {
      const strings = condition.values.filter((v): v is string => typeof v === 'string').map((s) => s.toLowerCase());
      const numbers = condition.values.filter((v): v is number => typeof v === 'number');
      const booleans = condition.values.filter((v): v is boolean => typeof v === 'boolean');
      const parts: RawBuilder<boolean>[] = [];
      const j = jsonField(condition.key, pg);
      if (strings.length) parts.push(sql<boolean>`(${j.isText} and ${lower(j.text, strings)} in (${list(strings)}))`);
      if (numbers.length) parts.push(sql<boolean>`(${j.isNumber} and ${j.number} in (${list(numbers)}))`);
      for (const b of new Set(booleans)) parts.push(j.isBoolean(b));
      return sql<boolean>`(${sql.join(parts, sql.raw(' or '))})`;
    }
    case 'engagement': {
      const column = sql.ref(`r.${ENGAGEMENT_COLUMN[condition.what]}`);
      const campaigns = condition.campaignId === 'any' ? sql`(select c.id from campaigns c where c.account_id = ${ctx.accountId})` : sql`(${condition.campaignId})`;
      const within = condition.withinDays === null ? sql`` : sql` and ${column} >= ${daysAgo(ctx, condition.withinDays)}`;
      return sql<boolean>`(contacts.id in (select r.contact_id from campaign_recipients r where r.campaign_id in ${campaigns} and ${column} is not null${within} and r.contact_id is not null))`;
    }
    case 'event': {
      const within = condition.withinDays === null ? sql`` : sql` and e.created_at >= ${daysAgo(ctx, condition.withinDays)}`;
      return sql<boolean>`(contacts.id in (select e.contact_id from events e where e.account_id = ${ctx.accountId} and e.name = ${condition.name}${within} and e.contact_id is not null))`;
    }
  }
  throw new Error(`unhandled segment condition ${(condition as { kind: string }).kind}`);
}

/**
 * How much a condition costs per contact row, for ordering a group's terms: SQLite evaluates
 * `and` and `or` left to right and stops early, so a membership test against a set read once
 * (engagement, events, lists) goes before plain column comparisons, and those before the JSON
 * ones (tags, custom fields), which parse the row's document. The order never changes the result.
 */
function cost(c: SegmentCondition): number {
  switch (c.kind) {
    case 'not':
      return cost(c.child);
    case 'engagement':
    case 'event':
      return 1;
    case 'lists':
      return 2;
    case 'tags':
      return 4;
    case 'custom':
    case 'custom_in':
      return 5;
    case 'all':
    case 'any':
      return 6;
    default:
      return 3;
  }
}

const byCost = (children: SegmentCondition[]) => children.map((c, i) => ({ c, i })).sort((a, b) => cost(a.c) - cost(b.c) || a.i - b.i).map((x) => x.c);

/**
 * A custom field's value by its JSON type. The key passed D11's pattern when the filter was
 * checked, and still goes in as a parameter. SQLite: json_type/json_extract with a `$.key` path
 * over the text document. PostgreSQL: `->` / `->>` over the `jsonb` column (migration 0013).
 */
function jsonField(key: string, pg: boolean) {
  if (pg) {
    const type = sql`coalesce(jsonb_typeof(contacts.custom_fields -> ${key}), '')`;
    const text = sql`(contacts.custom_fields ->> ${key})`;
    return {
      isText: sql<boolean>`${type} = 'string'`,
      isNumber: sql<boolean>`${type} = 'number'`,
      isPresent: sql<boolean>`${type} not in ('', 'null')`,
      isBoolean: (b: boolean) => sql<boolean>`(contacts.custom_fields @? ${jsonPathTest(key, '==', b)}::jsonpath)`,
      text,
      // CASE, because PostgreSQL may evaluate the cast before the type test of an AND.
      number: sql`(case when ${type} = 'number' then (${text})::numeric end)`,
    };
  }
  const path = '$.' + key;
  const type = sql`coalesce(json_type(contacts.custom_fields, ${path}), '')`;
  const value = sql`json_extract(contacts.custom_fields, ${path})`;
  return {
    isText: sql<boolean>`${type} = 'text'`,
    isNumber: sql<boolean>`${type} in ('integer', 'real')`,
    isPresent: sql<boolean>`${type} not in ('', 'null')`,
    isBoolean: (b: boolean) => sql<boolean>`${type} = ${b ? 'true' : 'false'}`,
    text: value,
    number: value,
  };
}

/**
 * A SQL/JSON path that holds when the field compares true with a number or boolean, for
 * PostgreSQL's `@?`: one pass over the binary document, false for a value of another JSON type
 * (a string never compares with a number), and an operator the planner estimates from the
 * column's statistics, where a CASE over `->>` was a blind guess that ordered the whole query
 * wrong. The key matched D11's pattern (letters, digits, underscores) and the value is a finite
 * number or a boolean, each written as JSON, so the path's text has no other source; it still goes
 * in as a parameter.
 */
export function jsonPathTest(key: string, compare: '==' | '>' | '>=' | '<' | '<=', value: number | boolean): string {
  if (!CUSTOM_FIELD_KEY.test(key)) throw new Error(`custom field key ${JSON.stringify(key)} reached SQL unchecked`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('a custom field comparison needs a finite number');
  return `$.${JSON.stringify(key)} ? (@ ${compare} ${JSON.stringify(value)})`;
}

const JSON_PATH_COMPARE = { eq: '==', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function customField(key: string, op: 'eq' | 'contains' | 'starts_with' | 'ends_with' | 'gt' | 'gte' | 'lt' | 'lte' | 'exists', value: Scalar, dialect: Dialect): RawBuilder<boolean> {
  const pg = dialect === 'postgres';
  const j = jsonField(key, pg);
  if (op === 'exists') return sql<boolean>`(${j.isPresent})`;
  if (typeof value === 'boolean') return j.isBoolean(value);
  if (op === 'contains' || op === 'starts_with' || op === 'ends_with') {
    const pattern = op === 'contains' ? containsPattern(String(value)) : affixPattern(String(value), op === 'starts_with' ? 'prefix' : 'suffix');
    return sql<boolean>`(${j.isText} and ${lowerFor(dialect, j.text, [String(value)])} like ${pattern})`;
  }
  if (typeof value === 'number' && pg) return sql<boolean>`(contacts.custom_fields @? ${jsonPathTest(key, JSON_PATH_COMPARE[op], value)}::jsonpath)`;
  const compare = sql.raw(COMPARE[op]);
  return typeof value === 'number' ? sql<boolean>`(${j.isNumber} and ${j.number} ${compare} ${value})` : sql<boolean>`(${j.isText} and ${lowerFor(dialect, j.text, [value])} ${compare} ${value})`;
}
