import { analyzeSync, type Template } from 'liquidjs';

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

/**
 * The merge fields `templates` read from the message's scope, each once: the root name, and for `custom_fields` and `event` the key after it when the content writes one
 * (`custom_fields.company`, `event.amount`). Partials are not followed: the sandbox has none.
 */
export function mergeFieldsOf(templates: Template[]): string[] {
  const names = new Set<string>();
  for (const uses of Object.values(analyzeSync(templates, { partials: false }).globals)) {
    for (const { segments } of uses) {
      const [root, key] = segments;
      if (typeof root === 'string') names.add(KEYED.has(root) && typeof key === 'string' ? `${root}.${key}` : root);
    }
  }
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
