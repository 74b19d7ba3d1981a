import { describe, expect, it } from 'vitest';
import { checkSendWindow, inSendWindow, nextWindowOpening, type SendWindow } from './send-window.ts';

// D23: a campaign's send window, on the wall clocks of its time zone (Intl), wrapping past
// midnight when end <= start.
const window = (days: number[], start: string, end: string, timezone = 'Europe/Berlin'): SendWindow => ({ days, start, end, timezone });
const weekdays = [1, 2, 3, 4, 5];

describe('inSendWindow', () => {
  it.each([
    // 2026-11-26 is a Thursday; Berlin is UTC+1 in winter.
    ['opens at start', window(weekdays, '09:00', '17:00'), '2026-11-26T08:00:00Z', true],
    ['closed a minute before start', window(weekdays, '09:00', '17:00'), '2026-11-26T07:59:00Z', false],
    ['open in the last minute', window(weekdays, '09:00', '17:00'), '2026-11-26T15:59:00Z', true],
    ['closed at end (end is exclusive)', window(weekdays, '09:00', '17:00'), '2026-11-26T16:00:00Z', false],
    ['closed on a day not listed', window(weekdays, '09:00', '17:00'), '2026-11-28T10:00:00Z', false],
    // Day boundaries are the campaign's, not UTC's.
    ['Friday 23:59 in Berlin is still Friday', window([5], '00:00', '00:00'), '2026-11-27T22:59:00Z', true],
    ['Friday 23:00 UTC is Saturday in Berlin', window([5], '00:00', '00:00'), '2026-11-27T23:00:00Z', false],
    ['Sunday 22:00 in New York is Monday in UTC', window([1], '00:00', '00:00', 'America/New_York'), '2026-11-30T03:00:00Z', false],
    ['... and Sunday in New York', window([7], '21:00', '23:00', 'America/New_York'), '2026-11-30T03:00:00Z', true],
    ['half-hour zones: Kolkata 09:00', window([4], '09:00', '09:30', 'Asia/Kolkata'), '2026-11-26T03:30:00Z', true],
    ['half-hour zones: Kolkata 08:59', window([4], '09:00', '09:30', 'Asia/Kolkata'), '2026-11-26T03:29:00Z', false],
    // end <= start wraps past midnight into the day after a listed day.
    ['wrap: Friday 22:00 opens', window([5], '22:00', '06:00'), '2026-11-27T21:00:00Z', true],
    ['wrap: runs into Saturday 05:59', window([5], '22:00', '06:00'), '2026-11-28T04:59:00Z', true],
    ['wrap: closes Saturday 06:00', window([5], '22:00', '06:00'), '2026-11-28T05:00:00Z', false],
    ['wrap: Friday early morning belongs to Thursday, not listed', window([5], '22:00', '06:00'), '2026-11-27T04:00:00Z', false],
    ['wrap: Saturday 22:00 opens nothing (Saturday not listed)', window([5], '22:00', '06:00'), '2026-11-28T21:00:00Z', false],
    ['wrap: Sunday night runs into Monday', window([7], '23:00', '01:00'), '2026-11-29T23:30:00Z', true],
    ['start = end: a whole day from start', window([4], '12:00', '12:00'), '2026-11-27T10:59:00Z', true],
    // Daylight saving: Berlin moves to UTC+2 at 01:00 UTC on 2026-03-29 and back at 01:00 UTC on 2026-10-25.
    ['DST: the same UTC instant is 09:30 after the change', window([7], '09:00', '10:00'), '2026-03-29T07:30:00Z', true],
    ['DST: ... and 08:30 the week before', window([7], '09:00', '10:00'), '2026-03-22T07:30:00Z', false],
    ['DST: a window in the skipped hour: just before it', window([7], '02:00', '03:00'), '2026-03-29T00:59:00Z', false],
    ['DST: ... the clocks jump from 01:59 to 03:00', window([7], '02:00', '03:00'), '2026-03-29T01:00:00Z', false],
    ['DST: ... an ordinary Sunday has that hour', window([7], '02:00', '03:00'), '2026-03-22T01:30:00Z', true],
    ['DST fall back: the first 02:30', window([7], '02:00', '03:00'), '2026-10-25T00:30:00Z', true],
    ['DST fall back: the second 02:30', window([7], '02:00', '03:00'), '2026-10-25T01:30:00Z', true],
    ['DST fall back: 03:00 CET closes it', window([7], '02:00', '03:00'), '2026-10-25T02:00:00Z', false],
  ])('%s', (_name, w, at, open) => {
    expect(inSendWindow(w, new Date(at))).toBe(open);
  });
});

describe('checkSendWindow', () => {
  it('sorts and de-duplicates days and keeps the time zone as given, its case corrected (D26.9)', () => {
    expect(checkSendWindow(window([5, 1, 1], '09:00', '17:00', 'europe/berlin'))).toEqual(window([1, 5], '09:00', '17:00', 'Europe/Berlin'));
    expect(checkSendWindow(window([7], '00:00', '23:59', 'UTC')).timezone).toBe('UTC');
    // Intl knows these by other names (Asia/Calcutta, Europe/Kiev); they read back as written.
    expect(checkSendWindow(window([1], '09:00', '17:00', 'Asia/Kolkata')).timezone).toBe('Asia/Kolkata');
    expect(checkSendWindow(window([1], '09:00', '17:00', 'Europe/Kyiv')).timezone).toBe('Europe/Kyiv');
    expect(checkSendWindow(window([1], '09:00', '17:00', 'Asia/Calcutta')).timezone).toBe('Asia/Calcutta');
  });

  it.each([
    ['no days', window([], '09:00', '17:00'), 'send_window.days'],
    ['day 0', window([0], '09:00', '17:00'), 'send_window.days'],
    ['day 8', window([8], '09:00', '17:00'), 'send_window.days'],
    ['a fraction of a day', window([1.5], '09:00', '17:00'), 'send_window.days'],
    ['start without a leading zero', window([1], '9:00', '17:00'), 'send_window.start'],
    ['end 24:00', window([1], '09:00', '24:00'), 'send_window.end'],
    ['minute 60', window([1], '09:60', '17:00'), 'send_window.start'],
    ['an unknown time zone', window([1], '09:00', '17:00', 'Mars/Olympus'), 'send_window.timezone'],
    ['a bare offset', window([1], '09:00', '17:00', '+01:00'), 'send_window.timezone'],
    ['an empty time zone', window([1], '09:00', '17:00', ''), 'send_window.timezone'],
  ])('refuses %s, naming the field', (_name, w, field) => {
    expect(() => checkSendWindow(w)).toThrow(new RegExp(`^${field.replace('.', '\\.')} must`));
  });
});

describe('nextWindowOpening (D26.2: until when a campaign is held)', () => {
  it.each([
    ['later today', window(weekdays, '09:00', '17:00'), '2026-11-26T06:30:00Z', '2026-11-26T08:00:00.000Z'],
    ['tomorrow, after today closed', window(weekdays, '09:00', '17:00'), '2026-11-26T17:00:00Z', '2026-11-27T08:00:00.000Z'],
    ['over the weekend', window(weekdays, '09:00', '17:00'), '2026-11-27T16:30:00Z', '2026-11-30T08:00:00.000Z'],
    ['seconds are dropped to the minute', window(weekdays, '09:00', '17:00'), '2026-11-26T07:59:30Z', '2026-11-26T08:00:00.000Z'],
    ['half-hour zones', window([4], '09:00', '09:30', 'Asia/Kolkata'), '2026-11-26T01:00:00Z', '2026-11-26T03:30:00.000Z'],
    ['a week ahead, the same weekday', window([4], '09:00', '10:00'), '2026-11-26T09:30:00Z', '2026-12-03T08:00:00.000Z'],
    // Europe/Berlin moves to summer time on 2026-03-29 at 02:00: the wall clock's 09:00 is 07:00 UTC that day.
    ['across a clock change', window([7], '09:00', '10:00'), '2026-03-28T12:00:00Z', '2026-03-29T07:00:00.000Z'],
    ['wrapping windows open at start', window([5], '22:00', '06:00'), '2026-11-27T12:00:00Z', '2026-11-27T21:00:00.000Z'],
  ])('%s', (_name, w, at, expected) => {
    const opens = nextWindowOpening(w, new Date(at));
    expect(opens?.toISOString()).toBe(expected);
    expect(inSendWindow(w, opens!)).toBe(true);
  });

  it('a window inside the hour the clocks skip does not open that night: it opens on the next listed day', () => {
    // 2026-03-29 is a Sunday; 02:00-02:30 does not exist in Berlin that night.
    const skipped = nextWindowOpening(window([7], '02:00', '02:30'), new Date('2026-03-29T00:30:00Z'));
    expect(skipped?.toISOString()).toBe('2026-04-05T00:00:00.000Z');
  });
});
