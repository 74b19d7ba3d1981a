import { describe, expect, it } from 'vitest';
import { heldOf, type HoldFacts } from './campaign-hold.ts';

// D26.2: the reason a SENDING campaign waits, table-driven. 2026-11-26 is a Thursday; Berlin is UTC+1.
const now = new Date('2026-11-26T06:30:00Z');
const sending = (over: Partial<HoldFacts> = {}): HoldFacts => ({
  status: 'SENDING',
  window: null,
  warmup: null,
  queue: { inFlight: false, dueNow: true, nextDue: null },
  ...over,
});
const office = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00', timezone: 'Europe/Berlin' };

describe('heldOf', () => {
  it.each([
    ['sending: a recipient is due', sending(), null],
    ['sending: a message is in flight', sending({ queue: { inFlight: true, dueNow: false, nextDue: null } }), null],
    ['not SENDING', sending({ status: 'SCHEDULED', window: office }), null],
    ['nothing left to wait for (it is finishing)', sending({ queue: { inFlight: false, dueNow: false, nextDue: null } }), null],
    ['outside its send window', sending({ window: office }), { reason: 'send_window', until: '2026-11-26T08:00:00' }],
    ['the window first, even with the cap used up', sending({ window: office, warmup: { cap: 50, counted: 50 } }), { reason: 'send_window', until: '2026-11-26T08:00:00' }],
    ['inside its window, it sends', sending({ window: { ...office, start: '07:00' } }), null],
    ['warm-up cap used up today', sending({ warmup: { cap: 50, counted: 50 } }), { reason: 'warmup', until: '2026-11-27T00:00:00' }],
    ['warm-up with room left', sending({ warmup: { cap: 50, counted: 49 } }), null],
    ['warm-up used up while paced rows wait', sending({ warmup: { cap: 5, counted: 5 }, queue: { inFlight: false, dueNow: false, nextDue: '2026-11-26T06:31:00.000Z' } }), { reason: 'warmup', until: '2026-11-27T00:00:00' }],
    ['every recipient left waits for its pace', sending({ queue: { inFlight: false, dueNow: false, nextDue: '2026-11-26T06:31:00.000Z' } }), { reason: 'pacing', until: '2026-11-26T06:31:00' }],
    ['a due recipient outweighs one waiting', sending({ queue: { inFlight: false, dueNow: true, nextDue: '2026-11-26T06:31:00.000Z' } }), null],
  ])('%s', (_name, facts, expected) => {
    expect(heldOf(facts, now)).toEqual(expected);
  });
});
