import { toValueSync, TypeGuards, Value, type Arguments, type PropertyAccessToken, type Template } from 'liquidjs';

/**
 * D26.7: which merge fields a piece of content uses, and which of them nothing fills. Pure: the
 * names come from liquidjs's own static analysis of templates already parsed (so `assign`,
 * `capture` and loop variables are the template's own, not merge fields), and whether a name is
 * known is a rule over the render's scope (sending/render.ts builds the same names).
 */

/** The contact's own fields in every message's scope; `custom_fields` is the object of all of them. */
export const CONTACT_MERGE_FIELDS = ['email', 'first_name', 'last_name', 'phone', 'custom_fields'] as const;
/** The recipient's links every message's scope holds (D16, D20, D22). */
export const LINK_MERGE_FIELDS = ['unsubscribe_url', 'preferences_url', 'webview_url'] as const;
/** A workflow's SEND_EMAIL step also sees its run's triggering event as `event` (D26.7). */
export const EVENT_MERGE_FIELD = 'event';
/** A layout's one slot (content.ts CONTENT_SLOT): filled by the content it wraps. */
const LAYOUT_SLOT = 'content';

/**
 * Where content is saved, which decides what else its scope holds: a workflow's step has `event`,
 * a layout its `{{ content }}` slot; a campaign's and a starter template's have neither.
 */
export type MergeFieldPlace = 'campaign' | 'template' | 'layout' | 'workflow';

/** The fields whose keys name a further field: `custom_fields.company`, `event.amount`. */
const KEYED = new Set<string>(['custom_fields', EVENT_MERGE_FIELD]);
const ALWAYS_KNOWN = new Set<string>([...CONTACT_MERGE_FIELDS, ...LINK_MERGE_FIELDS]);
const isEventField = (name: string) => name === EVENT_MERGE_FIELD || name.startsWith(`${EVENT_MERGE_FIELD}.`);

/** What a tag or an output reads: a value, or a token (liquidjs's Argument, which it does not export by name). */
type Argument = Arguments extends Iterable<infer A> ? A : never;
/** A filter's argument: a value, or a `key: value` pair. */
type FilterArg = Value['filters'][number]['args'][number];

/** The segments of a variable's path as the analysis keeps them: names and indexes, or a variable used as an index. */
type Segment = string | number | PropertyAccessToken | undefined;

/** A path's segments: `a.b[c]` is a, b and the variable c; a path that starts with a path (`a[b].c`) is flattened. */
function pathOf(token: PropertyAccessToken): Segment[] {
  const [first, ...rest] = token.props;
  const segment = (t: (typeof token.props)[number]): Segment =>
    TypeGuards.isPropertyAccessToken(t) ? t : TypeGuards.isQuotedToken(t) || TypeGuards.isWordToken(t) ? t.content : TypeGuards.isNumberToken(t) ? t.content : undefined;
  return [...(TypeGuards.isPropertyAccessToken(first) ? pathOf(first) : [segment(first)]), ...rest.map(segment)];
}

/** The variables (paths) a tag's or an output's argument reads: its value and its filters' arguments. */
function* accessesOf(arg: Argument | FilterArg | undefined): Generator<PropertyAccessToken> {
  if (arg === undefined) return;
  if (Array.isArray(arg)) {
    yield* accessesOf(arg[1]); // a filter's `key: value` argument
  } else if (arg instanceof Value || TypeGuards.isFilteredValueToken(arg)) {
    for (const token of arg.initial.postfix) if (TypeGuards.isValueToken(token)) yield* accessesOf(token);
    for (const filter of arg.filters) for (const a of filter.args) yield* accessesOf(a);
  } else if (TypeGuards.isRangeToken(arg)) {
    yield* accessesOf(arg.lhs);
    yield* accessesOf(arg.rhs);
  } else if (TypeGuards.isPropertyAccessToken(arg)) {
    yield arg;
  }
}

/**
 * The merge fields `templates` read from the message's scope, each once: the root name, and for
 * `custom_fields` and `event` the key after it when the content writes one (`custom_fields.company`,
 * `event.amount`). Names the template makes itself (`assign`, `capture`, `increment`, a loop's
 * variable and `forloop` inside it) are not merge fields; partials are not followed (the sandbox
 * has none).
 *
 * This is the walk of liquidjs's own static analysis (analyzeSync: each template's arguments,
 * local and block scopes, and children), over the parse the syntax check made. analyzeSync itself
 * is not used: it works out every variable's line and column by scanning the source from its
 * start, so its cost grows with the square of the template: 15 s for 230 KB and 9,000 tags,
 * within the template limits, where this walk takes milliseconds.
 */
export function mergeFieldsUsed(templates: Template[]): string[] {
  const names = new Set<string>();
  const scopes: Set<string>[] = [new Set()];
  const inScope = (name: string) => scopes.some((scope) => scope.has(name));
  const read = (access: PropertyAccessToken) => {
    const path = pathOf(access);
    const [root, key] = path;
    if (typeof root === 'string' && !inScope(root)) names.add(KEYED.has(root) && typeof key === 'string' ? `${root}.${key}` : root);
    for (const segment of path) if (segment instanceof Object) read(segment); // a variable used as an index is read too
  };
  const visit = (template: Template) => {
    if (template.arguments) for (const arg of template.arguments()) for (const access of accessesOf(arg)) read(access);
    if (template.localScope) for (const ident of template.localScope()) scopes[scopes.length - 1].add(ident.content);
    if (!template.children || template.partialScope?.()) return;
    const block = template.blockScope ? [...template.blockScope()] : null;
    if (block) scopes.push(new Set(block));
    for (const child of toValueSync(template.children(false, true))) visit(child);
    if (block) scopes.pop();
  };
  for (const template of templates) visit(template);
  return [...names];
}

/**
 * The custom field key a merge field needs to be known, or null when what the account's contacts
 * hold cannot make it known or unknown. A top-level name may be a custom field: the render puts
 * each custom field in the scope by its key, beside `custom_fields`.
 */
export function customFieldKeyOf(name: string, place: MergeFieldPlace): string | null {
  if (name.startsWith('custom_fields.')) return name.slice('custom_fields.'.length);
  if (isEventField(name) || ALWAYS_KNOWN.has(name)) return null;
  if (name === LAYOUT_SLOT && place === 'layout') return null;
  return name;
}

/**
 * D26.7: the merge fields of `used` that nothing fills where the content is saved: not a contact
 * field, not a custom field in use (`customFieldsInUse`: keys the account's contacts hold), not a
 * link, and `event.*` outside a workflow. They would render empty in every message.
 */
export function unknownMergeFields(used: readonly string[], place: MergeFieldPlace, customFieldsInUse: ReadonlySet<string>): string[] {
  return used.filter((name) => {
    if (isEventField(name)) return place !== 'workflow';
    const key = customFieldKeyOf(name, place);
    return key !== null && !customFieldsInUse.has(key);
  });
}

/** The `warnings` entry (D17) of an unknown merge field, naming it and why it is empty. */
export function unknownMergeFieldWarning(name: string): string {
  if (isEventField(name)) {
    return `the merge field {{ ${name} }} is always empty here: only a workflow's SEND_EMAIL step has an event's data (D26.7)`;
  }
  return `the merge field {{ ${name} }} is unknown: it is not a contact field, a custom field your contacts have, or a link, so it renders empty (D26.7)`;
}
