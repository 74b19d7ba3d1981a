/**
 * Issue 15: the dashboard's automation pages in words (web/src/automation-words.ts). The API keeps
 * its step names and its seconds (D15); people read "Send an e-mail", list names and waits in
 * minutes, hours or days.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRIGGER, describeDuration, describeStep, describeTrigger, listNamer, sampleEventData, splitDuration, toSeconds, TRIGGER_LABELS } from './automation-words.ts';

const lists = listNamer([{ id: 2, name: 'Newsletter' }]);

describe('issue 15: waits in minutes, hours or days, stored in seconds', () => {
  it.each([
    [60, 1, 'minutes', '1 minute'],
    [5400, 90, 'minutes', '90 minutes'],
    [7200, 2, 'hours', '2 hours'],
    [86_400, 1, 'days', '1 day'],
    [172_800, 2, 'days', '2 days'],
    [90_000, 25, 'hours', '25 hours'],
  ] as const)('%i seconds read as %i %s', (seconds, amount, unit, words) => {
    expect(splitDuration(seconds)).toEqual({ amount, unit });
    expect(toSeconds(amount, unit)).toBe(seconds);
    expect(describeDuration(seconds)).toBe(words);
  });

  it('a wait under a minute (set through the API) reads as a fraction of a minute', () => {
    expect(splitDuration(30)).toEqual({ amount: 0.5, unit: 'minutes' });
    expect(toSeconds(0.5, 'minutes')).toBe(30);
  });

  it('a fractional amount is whole seconds', () => {
    expect(toSeconds(1.5, 'hours')).toBe(5400);
    expect(toSeconds(0.333, 'minutes')).toBe(20);
  });
});

describe('issue 15: steps and triggers in words, lists by name', () => {
  it('names no API step type and no list number', () => {
    const steps = [
      { type: 'SEND_EMAIL', subject: 'Welcome' },
      { type: 'WAIT', seconds: 7200 },
      { type: 'ADD_TO_LIST', list_id: 2 },
      { type: 'REMOVE_FROM_LIST', list_id: 2 },
      { type: 'ADD_TAG', tag: 'vip' },
      { type: 'UPDATE_LEAD_SCORE', delta: -5 },
      { type: 'UPDATE_LEAD_SCORE', delta: 3 },
      { type: 'CONDITION', field: 'lead_score', op: 'gte', value: 10 },
      { type: 'CONDITION', field: 'custom_fields.plan', op: 'exists' },
    ];
    expect(steps.map((s) => describeStep(s, lists))).toEqual([
      'Send an e-mail “Welcome”',
      'Wait 2 hours',
      'Add to the list “Newsletter”',
      'Remove from the list “Newsletter”',
      'Add the tag “vip”',
      'Subtract 5 from the lead score',
      'Add 3 to the lead score',
      'Continue only if lead_score is at least “10”',
      'Continue only if custom_fields.plan is set',
    ]);
  });

  it('a trigger names its list; a deleted list says so; lists still loading show an ellipsis', () => {
    expect(describeTrigger({ type: 'LIST_JOINED', list_id: 2 }, lists)).toBe('Joins the list “Newsletter”');
    expect(describeTrigger({ type: 'LIST_JOINED', list_id: 9 }, lists)).toBe('Joins the list that no longer exists');
    expect(describeTrigger({ type: 'LIST_JOINED', list_id: 2 }, listNamer(undefined))).toBe('Joins the list …');
    expect(describeTrigger({ type: 'EVENT', event: 'purchase' }, lists)).toBe('Event “purchase”');
  });
});

describe('issue 34 item 11: triggers in words, and the sample event data of each', () => {
  it('offers "A contact joins a list" first, as the new automation\'s trigger, and no label names an API path', () => {
    expect(TRIGGER_LABELS[0]).toEqual({ value: 'LIST_JOINED', label: 'A contact joins a list' });
    expect(DEFAULT_TRIGGER).toEqual({ type: 'LIST_JOINED' });
    for (const t of TRIGGER_LABELS) expect(t.label).not.toMatch(/\/v1|POST|[A-Z]{2,}_/);
  });

  it('a list join carries the list, a tag change the tag, an event the JSON written for it', () => {
    const names = (id: number) => (id === 2 ? 'Newsletter' : undefined);
    expect(sampleEventData({ type: 'LIST_JOINED', list_id: 2 }, names, '')).toEqual({ list_id: 2, list_name: 'Newsletter' });
    expect(sampleEventData({ type: 'TAG_ADDED', tag: 'gold' }, names, '')).toEqual({ tag: 'gold' });
    expect(sampleEventData({ type: 'EVENT' }, names, '{"order_id":"A-1"}')).toEqual({ order_id: 'A-1' });
    expect(sampleEventData({ type: 'EVENT' }, names, '[1]')).toBeNull();
    expect(sampleEventData({ type: 'EVENT' }, names, '{oops')).toBeNull();
    expect(sampleEventData({ type: 'CONTACT_CREATED' }, names, '')).toEqual({});
  });
});
