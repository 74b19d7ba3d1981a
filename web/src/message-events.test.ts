/**
 * D25.8: the Transactional page's timeline of a message, from its fields, and the "Send a test"
 * form's checks (web/src/message-events.ts).
 */
import { describe, expect, it } from 'vitest';
import { messageEvents, parseData, parseTags, testMessageProblems, type Message, type TestMessageForm } from './message-events.ts';

const base: Message = {
  id: 1,
  status: 'QUEUED',
  to: 'a@example.com',
  from_email: 'app@example.com',
  subject: 'Hi',
  tags: [],
  metadata: {},
  scheduled_at: null,
  created_at: '2026-11-29T09:00:00',
  sent_at: null,
  opened_at: null,
  clicked_at: null,
  error: null,
};
const labels = (m: Partial<Message>) => messageEvents({ ...base, ...m }).map((e) => e.label);

describe('D25.8: a message as a timeline', () => {
  it('a queued message waits for the sender', () => {
    expect(labels({})).toEqual(['Created', 'Queued: waiting for the sender']);
    expect(messageEvents(base)[1].pending).toBe(true);
  });

  it('a sent message that was opened and clicked, in that order, with their times', () => {
    const events = messageEvents({ ...base, status: 'SENT', sent_at: '2026-11-29T09:00:02', opened_at: '2026-11-29T09:05:00', clicked_at: '2026-11-29T09:06:00' });
    expect(events.map((e) => [e.label, e.at])).toEqual([
      ['Created', '2026-11-29T09:00:00'],
      ['Sent', '2026-11-29T09:00:02'],
      ['Opened (first time)', '2026-11-29T09:05:00'],
      ['Clicked (first time)', '2026-11-29T09:06:00'],
    ]);
  });

  it('a scheduled message waits for its time; canceled, it ends there', () => {
    expect(labels({ status: 'SCHEDULED', scheduled_at: '2026-12-01T10:00:00' })).toEqual(['Created', 'Scheduled: waiting to be sent']);
    const canceled = messageEvents({ ...base, status: 'CANCELED', scheduled_at: '2026-12-01T10:00:00' });
    expect(canceled.map((e) => e.label)).toEqual(['Created', 'Scheduled', 'Canceled: not sent']);
    expect(canceled[2]).toMatchObject({ at: null, problem: true });
  });

  it('bounced, failed and suppressed messages say why', () => {
    expect(messageEvents({ ...base, status: 'BOUNCED', sent_at: '2026-11-29T09:00:02', error: '550 no such user' }).at(-1)).toEqual({ label: 'Bounced', at: null, detail: '550 no such user', problem: true });
    expect(messageEvents({ ...base, status: 'FAILED', error: 'render error' }).map((e) => e.label)).toEqual(['Created', 'Failed: not sent']);
    expect(messageEvents({ ...base, status: 'SUPPRESSED', error: 'suppressed: BOUNCE' })).toEqual([
      { label: 'Created', at: base.created_at },
      { label: 'Suppressed: not sent', at: base.created_at, detail: 'suppressed: BOUNCE', problem: true },
    ]);
  });
});

const form: TestMessageForm = { to: 'a@example.com', fromEmail: 'app@example.com', subject: 'Hi', templateId: '', text: 'Hello', data: '', tags: '', scheduleAt: '' };
const now = new Date('2026-11-29T09:00:00Z');

describe('D25.8: the "Send a test" form', () => {
  it('takes a written text or a starter, and data as a JSON object', () => {
    expect(testMessageProblems(form, now)).toEqual({});
    expect(testMessageProblems({ ...form, text: ' ', templateId: '3' }, now)).toEqual({});
    expect(testMessageProblems({ ...form, text: ' ' }, now)).toEqual({ text: 'Write the text, or pick a starter' });
    expect(parseData('{"order": "A-42"}')).toEqual({ value: { order: 'A-42' } });
    expect(parseData('  ')).toEqual({ value: undefined });
  });

  it('names malformed data, a list or a scalar where an object belongs', () => {
    expect(testMessageProblems({ ...form, data: '{"order": ' }, now).data).toMatch(/^Not JSON: /);
    expect(testMessageProblems({ ...form, data: '[1, 2]' }, now).data).toBe('Must be a JSON object, like {"order": "A-42"}');
    expect(testMessageProblems({ ...form, data: 'null' }, now).data).toBe('Must be a JSON object, like {"order": "A-42"}');
  });

  it('checks tags by D25.1: their characters and at most 10', () => {
    expect(parseTags('receipt, test  beta')).toEqual(['receipt', 'test', 'beta']);
    expect(testMessageProblems({ ...form, tags: 'ok no.dots' }, now).tags).toBe('"no.dots" is not a tag: letters, digits, - and _ only, at most 50');
    expect(testMessageProblems({ ...form, tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(',') }, now).tags).toBe('At most 10 tags');
  });

  it('takes a schedule up to 30 days ahead', () => {
    expect(testMessageProblems({ ...form, scheduleAt: '2026-12-20T10:00' }, now)).toEqual({});
    expect(testMessageProblems({ ...form, scheduleAt: '2027-02-01T10:00' }, now).scheduleAt).toBe('At most 30 days ahead');
    expect(testMessageProblems({ ...form, scheduleAt: 'soon' }, now).scheduleAt).toBe('Not a date and time');
  });
});
