/**
 * Issue 15: the automation pages speak in words, not in the API's names: "Send an e-mail", not
 * SEND_EMAIL; "Joins the list Newsletter", not "Joins list #2"; waits in minutes, hours or days.
 * The API keeps its names and its seconds (D15); only what people read changes.
 */
export const STEP_LABELS: Record<string, string> = {
  SEND_EMAIL: 'Send an e-mail',
  WAIT: 'Wait',
  ADD_TAG: 'Add a tag',
  REMOVE_TAG: 'Remove a tag',
  ADD_TO_LIST: 'Add to a list',
  REMOVE_FROM_LIST: 'Remove from a list',
  UPDATE_LEAD_SCORE: 'Change the lead score',
  CONDITION: 'Continue only if…',
};

export const STEP_STATUS_WORDS: Record<string, string> = {
  DONE: 'done',
  SKIPPED: 'skipped',
  FALSE: 'condition false',
  SENDING: 'sending',
  SENT: 'sent',
  BOUNCED: 'bounced',
  FAILED: 'failed',
  RETRY: 'will retry',
};

/** A CONDITION's test in words; the API's `op` stays the value sent. */
export const CONDITION_OPS = [
  { value: 'contains', label: 'contains' },
  { value: 'equals', label: 'is' },
  { value: 'not_equals', label: 'is not' },
  { value: 'gte', label: 'is at least' },
  { value: 'lte', label: 'is at most' },
  { value: 'exists', label: 'is set' },
];

export const DURATION_UNITS = [
  { value: 'minutes', label: 'minutes', seconds: 60 },
  { value: 'hours', label: 'hours', seconds: 3600 },
  { value: 'days', label: 'days', seconds: 86_400 },
] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number]['value'];

/** Seconds as the largest unit that divides them exactly (2 hours, not 120 minutes); below a minute, a fraction of minutes. */
export function splitDuration(seconds: number): { amount: number; unit: DurationUnit } {
  for (const u of [...DURATION_UNITS].reverse()) if (seconds >= u.seconds && seconds % u.seconds === 0) return { amount: seconds / u.seconds, unit: u.value };
  return { amount: Math.round((seconds / 60) * 100) / 100, unit: 'minutes' };
}

export function toSeconds(amount: number, unit: DurationUnit): number {
  return Math.round(amount * DURATION_UNITS.find((u) => u.value === unit)!.seconds);
}

export function describeDuration(seconds: number): string {
  const { amount, unit } = splitDuration(seconds);
  return `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
}

/** One step in words, with list names where it names a list. */
export function describeStep(step: { type: string; [k: string]: unknown }, listName: (id: number) => string): string {
  switch (step.type) {
    case 'WAIT':
      return `Wait ${describeDuration(Number(step.seconds))}`;
    case 'ADD_TAG':
      return `Add the tag “${step.tag}”`;
    case 'REMOVE_TAG':
      return `Remove the tag “${step.tag}”`;
    case 'ADD_TO_LIST':
      return `Add to the list ${listName(Number(step.list_id))}`;
    case 'REMOVE_FROM_LIST':
      return `Remove from the list ${listName(Number(step.list_id))}`;
    case 'SEND_EMAIL':
      return step.subject ? `Send an e-mail “${step.subject}”` : STEP_LABELS.SEND_EMAIL;
    case 'CONDITION': {
      const test = CONDITION_OPS.find((o) => o.value === step.op)?.label ?? String(step.op);
      return `Continue only if ${step.field} ${test}${step.op === 'exists' ? '' : ` “${step.value ?? ''}”`}`;
    }
    case 'UPDATE_LEAD_SCORE':
      return Number(step.delta) >= 0 ? `Add ${Number(step.delta)} to the lead score` : `Subtract ${-Number(step.delta)} from the lead score`;
    default:
      return STEP_LABELS[step.type] ?? step.type;
  }
}

/** An automation's trigger in words, with the list's name where it names one. */
export function describeTrigger(t: { type: string; event?: string; tag?: string; list_id?: number }, listName: (id: number) => string): string {
  switch (t.type) {
    case 'EVENT':
      return `Event “${t.event}”`;
    case 'TAG_ADDED':
      return `Tag “${t.tag}” added`;
    case 'TAG_REMOVED':
      return `Tag “${t.tag}” removed`;
    case 'LIST_JOINED':
      return `Joins the list ${listName(Number(t.list_id))}`;
    default:
      return 'Contact created';
  }
}

/** A list's name in quotes, or that it is gone. */
export function listNamer(lists: { id: number; name: string }[] | undefined): (id: number) => string {
  return (id) => {
    const list = lists?.find((l) => l.id === id);
    return list ? `“${list.name}”` : lists ? 'that no longer exists' : '…';
  };
}

/**
 * Issue 34 item 11: the triggers in words, the one a new automation starts with first ("A contact
 * joins a list": what most workflows begin with), and no API path in any of them.
 */
export const TRIGGER_LABELS = [
  { value: 'LIST_JOINED', label: 'A contact joins a list' },
  { value: 'TAG_ADDED', label: 'A tag is added' },
  { value: 'TAG_REMOVED', label: 'A tag is removed' },
  { value: 'CONTACT_CREATED', label: 'A contact is created' },
  { value: 'EVENT', label: 'Your app or site sends an event' },
] as const;

/** What a new automation's trigger is before anything is chosen: the first one offered. */
export const DEFAULT_TRIGGER = { type: TRIGGER_LABELS[0].value } as const;

/** An EVENT trigger's sample data until the user writes their own: what an order event might carry. */
export const SAMPLE_EVENT_JSON = '{\n  "order_id": "A-1001",\n  "total": 42\n}';

/**
 * Issue 34 item 11: the event data a run of this trigger has (the server's triggerDataOf), with
 * sample values, for a SEND_EMAIL step's preview and merge tags. An EVENT's is the JSON the user
 * wrote (null when it is not a JSON object).
 */
export function sampleEventData(trigger: { type: string; tag?: string; list_id?: number }, listName: (id: number) => string | undefined, eventJson: string): Record<string, unknown> | null {
  switch (trigger.type) {
    case 'LIST_JOINED':
      return { list_id: trigger.list_id ?? 1, list_name: (trigger.list_id && listName(trigger.list_id)) || 'Newsletter' };
    case 'TAG_ADDED':
    case 'TAG_REMOVED':
      return { tag: trigger.tag || 'vip' };
    case 'EVENT':
      try {
        const data: unknown = JSON.parse(eventJson);
        return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    default:
      return {};
  }
}
