/**
 * The segment builder's model (D18): a tree of groups and conditions as the form edits it, the
 * fields it offers, the operators each field's type takes, and the conversion to and from the
 * API's filter. Pure, so the rules the server enforces are mirrored in one place of the dashboard.
 */
import type { CustomFieldInfo } from './api.ts';

export type FieldKind = 'text' | 'status' | 'number' | 'date' | 'tags' | 'lists' | 'custom_string' | 'custom_number' | 'custom_boolean' | 'custom_any' | 'engagement' | 'event';

export interface FieldOption {
  value: string;
  label: string;
  group: string;
  kind: FieldKind;
}


export const STATUSES = ['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED'] as const;
export const MAX_DEPTH = 5;
export const MAX_CONDITIONS = 100;

const OPS: Record<FieldKind, string[]> = {
  text: ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'exists', 'not_exists'],
  status: ['eq', 'neq', 'in', 'not_in'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'],
  date: ['within_days', 'before_days', 'gt', 'gte', 'lt', 'lte'],
  tags: ['contains', 'not_contains', 'in'],
  lists: ['contains', 'not_contains', 'in'],
  custom_string: ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'exists', 'not_exists'],
  custom_number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists'],
  custom_boolean: ['eq', 'neq', 'exists', 'not_exists'],
  custom_any: ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists'],
  engagement: ['eq'],
  event: ['eq'],
};

export const OP_LABEL: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is any of',
  not_in: 'is none of',
  exists: 'is set',
  not_exists: 'is not set',
  within_days: 'is within the last (days)',
  before_days: 'is more than (days) ago',
};

/** The fields the builder offers: the contact's own, each custom field the account's contacts hold, engagement and events. */
export function fieldOptions(custom: CustomFieldInfo[]): FieldOption[] {
  const contact = 'Contact';
  const options: FieldOption[] = [
    { value: 'email', label: 'E-mail', group: contact, kind: 'text' },
    { value: 'first_name', label: 'First name', group: contact, kind: 'text' },
    { value: 'last_name', label: 'Last name', group: contact, kind: 'text' },
    { value: 'phone', label: 'Phone', group: contact, kind: 'text' },
    { value: 'status', label: 'Status', group: contact, kind: 'status' },
    { value: 'lead_score', label: 'Lead score', group: contact, kind: 'number' },
    { value: 'created_at', label: 'Created', group: contact, kind: 'date' },
    { value: 'updated_at', label: 'Updated', group: contact, kind: 'date' },
    { value: 'tags', label: 'Tags', group: contact, kind: 'tags' },
    { value: 'lists', label: 'Lists', group: contact, kind: 'lists' },
  ];
  for (const f of custom) {
    const kind: FieldKind = f.types.length === 1 ? (`custom_${f.types[0]}` as FieldKind) : 'custom_any';
    options.push({ value: `custom_fields.${f.key}`, label: f.key, group: 'Custom fields', kind });
  }
  const engagement = 'Engagement';
  options.push(
    { value: 'campaign.sent', label: 'Was sent a campaign', group: engagement, kind: 'engagement' },
    { value: 'campaign.opened', label: 'Opened a campaign', group: engagement, kind: 'engagement' },
    { value: 'campaign.clicked', label: 'Clicked in a campaign', group: engagement, kind: 'engagement' },
    { value: 'campaign.bounced', label: 'Bounced from a campaign', group: engagement, kind: 'engagement' },
    { value: 'event', label: 'Performed an event', group: engagement, kind: 'event' },
  );
  return options;
}

/** The kind of a field, including a custom field the sample did not show (any type then). */
export function kindOf(field: string, options: FieldOption[]): FieldKind {
  return options.find((o) => o.value === field)?.kind ?? (field.startsWith('custom_fields.') ? 'custom_any' : 'text');
}

export const opsFor = (kind: FieldKind) => OPS[kind];
export const takesList = (op: string) => op === 'in' || op === 'not_in';
export const takesNoValue = (op: string) => op === 'exists' || op === 'not_exists';

export interface ConditionNode {
  kind: 'condition';
  id: number;
  field: string;
  op: string;
  /** what the inputs hold; toFilter types it */
  value: unknown;
  campaign_id?: number | 'any';
  within_days?: number | null;
  event?: string;
}

export interface GroupNode {
  kind: 'group';
  id: number;
  mode: 'all' | 'any';
  negate: boolean;
  children: BuilderNode[];
}

export type BuilderNode = ConditionNode | GroupNode;

let nextId = 1;
export const newId = () => nextId++;

/** A new condition on `field`, with the first operator that fits and a value of the right shape. */
export function newCondition(field: string, options: FieldOption[]): ConditionNode {
  const kind = kindOf(field, options);
  const op = OPS[kind][0];
  return { kind: 'condition', id: newId(), field, op, value: defaultValue(kind, op), ...(kind === 'engagement' ? { campaign_id: 'any' as const, within_days: null } : {}), ...(kind === 'event' ? { event: '', within_days: null } : {}) };
}

export function defaultValue(kind: FieldKind, op: string): unknown {
  if (takesNoValue(op)) return undefined;
  if (takesList(op) || (kind === 'lists' && op === 'in') || (kind === 'tags' && op === 'in')) return [];
  if (kind === 'engagement' || kind === 'event' || kind === 'custom_boolean') return true;
  if (kind === 'date') return op === 'within_days' || op === 'before_days' ? 30 : '';
  if (kind === 'number' || kind === 'custom_number') return 0;
  if (kind === 'status') return 'SUBSCRIBED';
  if (kind === 'lists') return null;
  return '';
}

export const newGroup = (mode: 'all' | 'any' = 'all', children: BuilderNode[] = []): GroupNode => ({ kind: 'group', id: newId(), mode, negate: false, children });

export function countConditions(node: BuilderNode): number {
  return node.kind === 'condition' ? 1 : node.children.reduce((n, c) => n + countConditions(c), 0);
}

/** A number typed in a text box, kept a number where it reads as one (custom fields of any type). */
function scalarOf(value: unknown, kind: FieldKind): unknown {
  if (kind === 'custom_number' || kind === 'number') return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  if (kind === 'custom_any' && typeof value === 'string') {
    if (value === 'true' || value === 'false') return value === 'true';
    if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  }
  return value;
}

/** The form's tree as the API's filter (D18). A nested group with no condition is left out; the root is always a group. */
export function toFilter(node: BuilderNode, options: FieldOption[]): unknown {
  if (node.kind === 'group') {
    const inner = { [node.mode]: node.children.filter((c) => countConditions(c) > 0).map((c) => toFilter(c, options)) };
    return node.negate ? { not: inner } : inner;
  }
  const kind = kindOf(node.field, options);
  const out: Record<string, unknown> = { field: node.field, op: node.op };
  if (!takesNoValue(node.op)) {
    out.value = Array.isArray(node.value) ? node.value.map((v) => (kind === 'lists' ? Number(v) : scalarOf(v, kind))) : kind === 'lists' ? Number(node.value) : scalarOf(node.value, kind);
  }
  if (kind === 'engagement') out.campaign_id = node.campaign_id ?? 'any';
  if (kind === 'event') out.event = node.event ?? '';
  if ((kind === 'engagement' || kind === 'event') && node.within_days !== null && node.within_days !== undefined) out.within_days = node.within_days;
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A saved filter back into the form's tree; the root is always a group (a lone condition is wrapped). */
export function fromFilter(filter: unknown): GroupNode {
  const node = nodeOf(filter);
  return node.kind === 'group' ? node : newGroup('all', [node]);
}

function nodeOf(f: unknown): BuilderNode {
  if (!isObject(f)) return newGroup();
  if ('not' in f) {
    const inner = nodeOf(f.not);
    const group = inner.kind === 'group' ? inner : newGroup('all', [inner]);
    return { ...group, negate: !group.negate };
  }
  for (const mode of ['all', 'any'] as const) if (Array.isArray(f[mode])) return newGroup(mode, (f[mode] as unknown[]).map(nodeOf));
  return {
    kind: 'condition',
    id: newId(),
    field: String(f.field ?? 'email'),
    op: String(f.op ?? 'eq'),
    value: f.value,
    ...(f.campaign_id !== undefined ? { campaign_id: f.campaign_id as number | 'any' } : {}),
    ...(f.within_days !== undefined ? { within_days: f.within_days as number } : {}),
    ...(f.event !== undefined ? { event: String(f.event) } : {}),
  };
}

/** The tree with `id`'s node replaced by `fn(node)` (or removed when it answers null). */
export function updateNode(root: GroupNode, id: number, fn: (n: BuilderNode) => BuilderNode | null): GroupNode {
  const walk = (n: BuilderNode): BuilderNode | null => {
    if (n.id === id) return fn(n);
    if (n.kind === 'condition') return n;
    return { ...n, children: n.children.map(walk).filter((c): c is BuilderNode => c !== null) };
  };
  return walk(root) as GroupNode;
}
