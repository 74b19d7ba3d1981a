/*
 * D25.8: what the Transactional page shows of a message, worked out without the page: its events
 * as a timeline (from the message's own fields: the API keeps no event list for a message), and
 * the "Send a test" form's checks, so a mistake is named beside its field before anything is sent.
 */
import { latestSchedule, MESSAGE_LIMITS, type MessageStatus } from '../../src/domain/messages/message.ts';
import type { Schemas } from './api.ts';
import { fromLocalInput } from './format.ts';

export type Message = Schemas['Message'];

export const MESSAGE_COLOR: Record<MessageStatus, string> = {
  SCHEDULED: 'blue',
  QUEUED: 'yellow',
  CANCELED: 'gray',
  SENT: 'green',
  FAILED: 'red',
  BOUNCED: 'orange',
  SUPPRESSED: 'violet',
};

export interface MessageEvent {
  label: string;
  /** D1's UTC timestamp, or null when the API does not say when (a bounce, a cancel) */
  at: string | null;
  detail?: string;
  /** a step still to come (waiting for its time or for the sender) */
  pending?: boolean;
  /** the step that ended the message badly */
  problem?: boolean;
}

/**
 * The message's life in order: created, scheduled, sent, first open, first click, and how it
 * ended when it did not end sent. The API answers only the first open and click, and no time for a
 * bounce, a failure or a cancel, so those carry none.
 */
export function messageEvents(m: Message): MessageEvent[] {
  const events: MessageEvent[] = [{ label: 'Created', at: m.created_at }];
  if (m.status === 'SUPPRESSED') return [...events, { label: 'Suppressed: not sent', at: m.created_at, detail: m.error ?? undefined, problem: true }];
  if (m.scheduled_at) events.push({ label: m.status === 'SCHEDULED' ? 'Scheduled: waiting to be sent' : 'Scheduled', at: m.scheduled_at, pending: m.status === 'SCHEDULED' });
  if (m.status === 'CANCELED') return [...events, { label: 'Canceled: not sent', at: null, problem: true }];
  if (m.status === 'QUEUED') events.push({ label: 'Queued: waiting for the sender', at: null, pending: true, detail: m.error ?? undefined });
  if (m.sent_at) events.push({ label: 'Sent', at: m.sent_at });
  if (m.opened_at) events.push({ label: 'Opened (first time)', at: m.opened_at });
  if (m.clicked_at) events.push({ label: 'Clicked (first time)', at: m.clicked_at });
  if (m.status === 'BOUNCED') events.push({ label: 'Bounced', at: null, detail: m.error ?? undefined, problem: true });
  if (m.status === 'FAILED') events.push({ label: 'Failed: not sent', at: null, detail: m.error ?? undefined, problem: true });
  return events;
}

/** What the "Send a test" form holds, as typed. */
export interface TestMessageForm {
  to: string;
  fromEmail: string;
  subject: string;
  /** a starter's id, or '' when the text is written here */
  templateId: string;
  text: string;
  data: string;
  tags: string;
  /** a `datetime-local` value (the browser's time), or '' for now */
  scheduleAt: string;
}

export type TestMessageProblems = Partial<Record<keyof TestMessageForm, string>>;

const tagPattern = new RegExp(MESSAGE_LIMITS.tagPattern);

/** The form's `data` box as the object D25.1 takes; '' is no data. */
export function parseData(text: string): { value?: Record<string, unknown>; problem?: string } {
  if (text.trim() === '') return { value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `Not JSON: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'Must be a JSON object, like {"order": "A-42"}' };
  return { value: value as Record<string, unknown> };
}

/** The tags box (commas or spaces between) as D25.1's list. */
export function parseTags(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** Each field's mistake in words, by D25.1's rules; an empty object when the form can be sent. */
export function testMessageProblems(f: TestMessageForm, now: Date): TestMessageProblems {
  const problems: TestMessageProblems = {};
  if (!f.templateId && f.text.trim() === '') problems.text = 'Write the text, or pick a starter';
  const data = parseData(f.data);
  if (data.problem) problems.data = data.problem;
  const tags = parseTags(f.tags);
  const badTag = tags.find((t) => !tagPattern.test(t));
  if (badTag) problems.tags = `"${badTag.slice(0, 60)}" is not a tag: letters, digits, - and _ only, at most 50`;
  else if (tags.length > MESSAGE_LIMITS.tagsMax) problems.tags = `At most ${MESSAGE_LIMITS.tagsMax} tags`;
  if (f.scheduleAt) {
    // Issue 34: typed on the account's clocks, as every time the dashboard reads.
    const at = fromLocalInput(f.scheduleAt);
    if (at === null) problems.scheduleAt = 'Not a date and time';
    else if (new Date(at) > latestSchedule(now)) problems.scheduleAt = `At most ${MESSAGE_LIMITS.scheduleDaysMax} days ahead`;
  }
  return problems;
}
