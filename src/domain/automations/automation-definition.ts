import { CONTACT_LIMITS } from '../contacts/contact-fields.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { checkTemplateLimits, TEMPLATE_LIMITS } from '../content/template-limits.ts';
import { checkTemplateSyntax } from '../content/template-syntax.ts';
import { ValidationError } from '../shared/errors.ts';
import { CONTENT_FORMATS, type ContentFormat } from '../content/content.ts';

/**
 * D15's workflow shapes, and the pure rules about them: validating a definition and evaluating a
 * CONDITION step. No database here; the service and the runner use these.
 */
export const TRIGGER_TYPES = ['EVENT', 'TAG_ADDED', 'TAG_REMOVED', 'LIST_JOINED', 'CONTACT_CREATED'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const STEP_TYPES = ['SEND_EMAIL', 'WAIT', 'ADD_TAG', 'REMOVE_TAG', 'ADD_TO_LIST', 'REMOVE_FROM_LIST', 'UPDATE_LEAD_SCORE', 'CONDITION'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const CONDITION_OPS = ['contains', 'equals', 'not_equals', 'gte', 'lte', 'exists'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** A run: under way, through every step, or ended early (its ended_reason says why). */
export const RUN_STATUSES = ['ACTIVE', 'COMPLETED', 'EXITED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A step of a run's history: DONE, SENDING (in flight), SENT, BOUNCED, FAILED, SKIPPED, or FALSE (a CONDITION that ended the run). */
export const RUN_STEP_STATUSES = ['DONE', 'SENDING', 'SENT', 'BOUNCED', 'FAILED', 'SKIPPED', 'FALSE'] as const;
export type RunStepStatus = (typeof RUN_STEP_STATUSES)[number];

/** D14: `data` at most 64 KiB as serialized JSON. */
export const EVENT_DATA_MAX_BYTES = 64 * 1024;

/**
 * Issue 14 L7: how many levels of objects and arrays `data` may nest, `data` itself the first.
 * JSON.stringify (and so storing the event) recurses, and `data` nested 150,000 deep, which fits
 * in a 1 MiB body and which the body parser reads without recursion, overflowed the stack: a 500.
 */
export const EVENT_DATA_MAX_DEPTH = 32;

/** Whether `value` nests objects or arrays deeper than `limit`; walked without recursion, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [object, number][] = value !== null && typeof value === 'object' ? [[value, 1]] : [];
  while (pending.length > 0) {
    const [container, depth] = pending.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(container)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

export const AUTOMATION_LIMITS = {
  nameMax: 255,
  eventMax: 128,
  stepsMax: 50,
  subjectMax: 998,
  waitMaxSeconds: 366 * 24 * 3600,
  leadScoreDeltaMax: 1_000_000,
} as const;

/**
 * Issue 28 H3: budgets per account, not per item. One account's workflows shared the runner with
 * every other account's, with no bound on what they started: 25 workflows each adding the next
 * one's trigger tag never met the loop rule (no workflow repeats in the chain), and an import of
 * 1,000 contacts held another account's one-step workflow back 153 s. Past any of these the work
 * ends with the reason on record (a run EXITED with it, a warn log line; a 409 for activation).
 * - `claimPerAccount`: due runs one claim takes of one account; the claim takes the others'
 *   alongside and the runner goes through them round robin (interleaveByAccount), so one account's
 *   backlog holds another's run back by at most this many of its runs per claim.
 * - `runsPerHour`: runs an account's workflows may start per clock hour (UTC). Past it, each
 *   workflow a change would have started gets one run, EXITED with RUNS_PER_HOUR_REASON, and the
 *   rest of that change's runs are not written (the table grows by a bounded amount).
 * - `stepsPerHour`: steps an account's runs may run per clock hour; past it, a claimed run ends
 *   EXITED with STEPS_PER_HOUR_REASON instead of running its step. Counted per claim, so it can
 *   be overrun by one claim's steps.
 * - `descendantsPerOrigin`: runs that the changes following one outside event (an API change, an
 *   import row, an event for one contact) may start through steps, however many workflows they
 *   pass through. The runs an outside change starts directly are roots; every run a step's change
 *   starts inherits its root (`origin_id`), and the root's descendants are counted. Past it, the
 *   run whose step would have started more ends EXITED with FANOUT_REASON (its step's own change
 *   stays made). The loop rule (a workflow never re-enters its own chain) stays.
 * - `activeWorkflows`: active workflows per account; activating one more is 409 INVALID_STATE.
 */
export const AUTOMATION_BUDGETS = {
  claimPerAccount: 25,
  runsPerHour: 100_000,
  stepsPerHour: 500_000,
  descendantsPerOrigin: 20,
  activeWorkflows: 100,
} as const;

export const FANOUT_REASON = `fan-out budget reached: the changes following one outside event may start ${AUTOMATION_BUDGETS.descendantsPerOrigin} runs through workflow steps; no further run starts from them`;
export const RUNS_PER_HOUR_REASON = `hourly budget reached: the account's workflows may start ${AUTOMATION_BUDGETS.runsPerHour} runs per clock hour (UTC); no further run starts until the next hour`;
export const STEPS_PER_HOUR_REASON = `hourly budget reached: the account's runs may run ${AUTOMATION_BUDGETS.stepsPerHour} steps per clock hour (UTC); runs due until the next hour end here`;
export const ACTIVE_WORKFLOWS_MESSAGE = `the account has ${AUTOMATION_BUDGETS.activeWorkflows} active workflows, the most it may have; deactivate one first`;

/** The clock hour (UTC, hours since the epoch) a moment falls in: the window of the hourly budgets. */
export const hourOf = (iso: string): number => Math.floor(Date.parse(iso) / 3_600_000);

/** How many of `wanted` may go ahead when `used` of `budget` is spent (never negative). */
export const withinBudget = (budget: number, used: number, wanted: number): number => Math.max(0, Math.min(wanted, budget - used));

export interface Trigger {
  type: TriggerType;
  event?: string;
  tag?: string;
  list_id?: number;
}

/**
 * Issue 34 item 11: a SEND_EMAIL step takes a format and a layout as a campaign does (D22).
 * `format` (html when absent) and `template_id` (a layout, none when absent or null) are kept only
 * when given, so a step saved before them reads back as it was. `compiled_html` is the server's,
 * never the API's: the step's html compiled in its format inside its layout when it was saved
 * (kept only when there is a format other than html or a layout; a plain HTML step without a
 * layout is sent as written, as before).
 */
export interface SendEmailStep {
  type: 'SEND_EMAIL';
  subject: string;
  html: string;
  text: string | null;
  from_email: string;
  from_name: string | null;
  format?: ContentFormat;
  template_id?: number | null;
  compiled_html?: string;
}

/** Whether a step's html is compiled when saved: a format other than html, or a layout around it. */
export const needsCompiling = (step: SendEmailStep): boolean => (step.format !== undefined && step.format !== 'html') || (step.template_id !== undefined && step.template_id !== null);

/** The step as the API shows it: without what the server keeps for sending. */
export function publicStep(step: Step): Step {
  if (step.type !== 'SEND_EMAIL' || step.compiled_html === undefined) return step;
  const { compiled_html: _compiled, ...rest } = step;
  return rest;
}

export type Step =
  | SendEmailStep
  | { type: 'WAIT'; seconds: number }
  | { type: 'ADD_TAG' | 'REMOVE_TAG'; tag: string }
  | { type: 'ADD_TO_LIST' | 'REMOVE_FROM_LIST'; list_id: number }
  | { type: 'UPDATE_LEAD_SCORE'; delta: number }
  | { type: 'CONDITION'; field: string; op: ConditionOp; value: string | number | boolean | null };

const codePoints = (s: string) => [...s].length;

function text(step: Record<string, unknown>, at: string, name: string, opts: { min?: number; max: number; optional?: boolean }): string | null {
  const value = step[name];
  if (value === undefined || value === null) {
    if (opts.optional) return null;
    throw new ValidationError(`${at}.${name} is required`);
  }
  if (typeof value !== 'string') throw new ValidationError(`${at}.${name} must be a string`);
  const length = codePoints(value);
  if (length < (opts.min ?? 1) || length > opts.max) throw new ValidationError(`${at}.${name} must be ${opts.min ?? 1}-${opts.max} characters`);
  return value;
}

function integer(step: Record<string, unknown>, at: string, name: string, min: number, max: number): number {
  const value = step[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ValidationError(`${at}.${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A tag as contacts hold it (D11): trimmed, 1-64 characters. */
function tagOf(step: Record<string, unknown>, at: string): string {
  const raw = text(step, at, 'tag', { max: 1000 })!.trim();
  if (codePoints(raw) < 1 || codePoints(raw) > CONTACT_LIMITS.tagMax) throw new ValidationError(`${at}.tag must be 1-${CONTACT_LIMITS.tagMax} characters after trimming`);
  return raw;
}

const CUSTOM_FIELD = /^custom_fields\.[A-Za-z][A-Za-z0-9_]{0,63}$/;
const EVENT_PATH = /^event\.[^.]+(\.[^.]+)*$/;

export function validateTrigger(raw: unknown): Trigger {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('trigger must be an object');
  const t = raw as Record<string, unknown>;
  if (!(TRIGGER_TYPES as readonly unknown[]).includes(t.type)) throw new ValidationError(`trigger.type must be one of ${TRIGGER_TYPES.join(', ')}`);
  const type = t.type as TriggerType;
  switch (type) {
    case 'EVENT':
      return { type, event: text(t, 'trigger', 'event', { max: AUTOMATION_LIMITS.eventMax })! };
    case 'TAG_ADDED':
    case 'TAG_REMOVED':
      return { type, tag: tagOf(t, 'trigger') };
    case 'LIST_JOINED':
      return { type, list_id: integer(t, 'trigger', 'list_id', 1, Number.MAX_SAFE_INTEGER) };
    case 'CONTACT_CREATED':
      return { type };
  }
}

/** What activities are matched on: exact event names, tags case-insensitively (D11), list ids. */
export function triggerKey(trigger: Trigger): string {
  switch (trigger.type) {
    case 'EVENT':
      return trigger.event!;
    case 'TAG_ADDED':
    case 'TAG_REMOVED':
      return trigger.tag!.toLowerCase();
    case 'LIST_JOINED':
      return String(trigger.list_id);
    case 'CONTACT_CREATED':
      return '';
  }
}

/** A step as the API gives it, checked; a SEND_EMAIL step's merge fields (D26.7) are added to `mergeFields`. */
export function validateStep(raw: unknown, index: number, mergeFields = new Set<string>()): Step {
  const at = `steps[${index}]`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError(`${at} must be an object`);
  const s = raw as Record<string, unknown>;
  if (!(STEP_TYPES as readonly unknown[]).includes(s.type)) throw new ValidationError(`${at}.type must be one of ${STEP_TYPES.join(', ')}`);
  const type = s.type as StepType;
  switch (type) {
    case 'SEND_EMAIL': {
      const fromEmail = normaliseEmail(text(s, at, 'from_email', { max: 1000 })!, `${at}.from_email`);
      const html = text(s, at, 'html', { max: TEMPLATE_LIMITS.bytesMax })!;
      const plain = text(s, at, 'text', { max: TEMPLATE_LIMITS.bytesMax, optional: true });
      // The same bound on what compiling costs as a campaign's content (issue 14 H2).
      checkTemplateLimits({ [`${at}.html`]: html, [`${at}.text`]: plain });
      const subject = text(s, at, 'subject', { max: AUTOMATION_LIMITS.subjectMax })!;
      // D17.4: a Liquid typo is refused here, not found when the step first mails someone.
      for (const name of checkTemplateSyntax({ [`${at}.subject`]: subject, [`${at}.html`]: html, [`${at}.text`]: plain })) mergeFields.add(name);
      const step: SendEmailStep = {
        type,
        subject,
        html,
        text: plain,
        from_email: fromEmail,
        from_name: text(s, at, 'from_name', { max: 255, optional: true }),
      };
      if (s.format !== undefined) {
        if (!(CONTENT_FORMATS as readonly unknown[]).includes(s.format)) throw new ValidationError(`${at}.format must be one of ${CONTENT_FORMATS.join(', ')}`);
        step.format = s.format as ContentFormat;
      }
      if (s.template_id !== undefined) step.template_id = s.template_id === null ? null : integer(s, at, 'template_id', 1, Number.MAX_SAFE_INTEGER);
      return step;
    }
    case 'WAIT':
      return { type, seconds: integer(s, at, 'seconds', 1, AUTOMATION_LIMITS.waitMaxSeconds) };
    case 'ADD_TAG':
    case 'REMOVE_TAG':
      return { type, tag: tagOf(s, at) };
    case 'ADD_TO_LIST':
    case 'REMOVE_FROM_LIST':
      return { type, list_id: integer(s, at, 'list_id', 1, Number.MAX_SAFE_INTEGER) };
    case 'UPDATE_LEAD_SCORE':
      return { type, delta: integer(s, at, 'delta', -AUTOMATION_LIMITS.leadScoreDeltaMax, AUTOMATION_LIMITS.leadScoreDeltaMax) };
    case 'CONDITION': {
      const field = text(s, at, 'field', { max: 300 })!;
      if (!['tags', 'lead_score', 'status'].includes(field) && !CUSTOM_FIELD.test(field) && !EVENT_PATH.test(field)) {
        throw new ValidationError(`${at}.field must be tags, lead_score, status, custom_fields.<key> or event.<path>`);
      }
      if (!(CONDITION_OPS as readonly unknown[]).includes(s.op)) throw new ValidationError(`${at}.op must be one of ${CONDITION_OPS.join(', ')}`);
      const op = s.op as ConditionOp;
      const value = s.value;
      if (op !== 'exists') {
        if (value === undefined || value === null) throw new ValidationError(`${at}.value is required for op ${op}`);
        if (!['string', 'number', 'boolean'].includes(typeof value)) throw new ValidationError(`${at}.value must be a string, number or boolean`);
        if ((op === 'gte' || op === 'lte') && !Number.isFinite(Number(value))) throw new ValidationError(`${at}.value must be a number for op ${op}`);
      }
      return { type, field, op, value: (value ?? null) as string | number | boolean | null };
    }
  }
}

/** The steps checked, and the merge fields their SEND_EMAIL steps use (D26.7, from the syntax check's parse). */
export function validateSteps(raw: unknown): { steps: Step[]; mergeFields: string[] } {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > AUTOMATION_LIMITS.stepsMax) {
    throw new ValidationError(`steps must be an array of 1-${AUTOMATION_LIMITS.stepsMax} steps`);
  }
  const mergeFields = new Set<string>();
  return { steps: raw.map((step, index) => validateStep(step, index, mergeFields)), mergeFields: [...mergeFields] };
}

/** What a CONDITION reads: the contact as it is when the step runs, and the triggering event's data. */
export interface ConditionSubject {
  tags: string[];
  lead_score: number;
  status: string;
  custom_fields: Record<string, unknown>;
  event: Record<string, unknown> | null;
}

function fieldValue(field: string, subject: ConditionSubject): unknown {
  if (field === 'tags') return subject.tags;
  if (field === 'lead_score') return subject.lead_score;
  if (field === 'status') return subject.status;
  if (field.startsWith('custom_fields.')) {
    const key = field.slice('custom_fields.'.length);
    return Object.hasOwn(subject.custom_fields, key) ? subject.custom_fields[key] : undefined;
  }
  // event.<path>: a path inside the triggering event's data (event.total reads data.total)
  let value: unknown = subject.event ?? undefined;
  for (const part of field.slice('event.'.length).split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = Number(a);
    const y = Number(b);
    return typeof a !== 'boolean' && typeof b !== 'boolean' && a !== '' && b !== '' && Number.isFinite(x) && x === y;
  }
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  return a === b;
}

const sameTag = (tags: unknown[], value: unknown) => tags.some((t) => typeof t === 'string' && String(value).toLowerCase() === t.toLowerCase());

/**
 * D15's CONDITION. On `tags` (an array): `contains`/`equals` mean "has this tag" (case-insensitive,
 * as tags are, D11) and `not_equals` "has not". On a string, `contains` is a case-insensitive
 * substring. `gte`/`lte` compare numbers (a value that is not a number is false). `exists` is true
 * for any value but null or missing (and for tags, when there is at least one).
 */
export function evaluateCondition(step: { field: string; op: ConditionOp; value: unknown }, subject: ConditionSubject): boolean {
  const actual = fieldValue(step.field, subject);
  if (step.op === 'exists') return Array.isArray(actual) ? actual.length > 0 : actual !== undefined && actual !== null;
  if (actual === undefined || actual === null) return step.op === 'not_equals';
  if (Array.isArray(actual)) {
    if (step.op === 'contains' || step.op === 'equals') return sameTag(actual, step.value);
    if (step.op === 'not_equals') return !sameTag(actual, step.value);
    return false;
  }
  switch (step.op) {
    case 'contains':
      return typeof actual === 'string' && actual.toLowerCase().includes(String(step.value).toLowerCase());
    case 'equals':
      return sameValue(actual, step.value);
    case 'not_equals':
      return !sameValue(actual, step.value);
    case 'gte':
    case 'lte': {
      if (typeof actual === 'boolean' || actual === '') return false;
      const x = Number(actual);
      const y = Number(step.value);
      if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
      return step.op === 'gte' ? x >= y : x <= y;
    }
  }
}

