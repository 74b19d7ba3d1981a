import { ValidationError } from '../shared/errors.ts';
import { checkedTimeZone } from '../shared/time-zone.ts';

/**
 * D23: when a campaign may send, in its own time zone: on `days` (ISO weekdays, 1 = Monday ...
 * 7 = Sunday), from `start` to `end` (local wall-clock "HH:MM"). Outside it nothing of the
 * campaign is claimed and it stays SENDING.
 *
 * An `end` at or before `start` wraps past midnight: the window opens at `start` on a listed day
 * and closes at `end` on the day after (22:00-06:00 on Friday runs into Saturday morning; a
 * Saturday not listed opens no window of its own). So `start` equal to `end` is a whole day from
 * `start`, and 00:00-00:00 is exactly the listed days.
 *
 * Local time comes from Intl, so a daylight saving change moves the window with the clocks: on the
 * night the clocks skip 02:00-03:00, a window inside that hour does not open at all, and one
 * across it is an hour shorter.
 */
export interface SendWindow {
  days: number[];
  start: string;
  end: string;
  timezone: string;
}

export const TIME_OF_DAY = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

const ISO_WEEKDAY: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Formatters are costly to build; a sender asks the same few time zones every round. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timezone, f);
  }
  return f;
}

/** The ISO weekday and minute of the day at `at` on the wall clocks of `timezone`. */
export function localTime(timezone: string, at: Date): { day: number; minute: number } {
  const parts = formatterFor(timezone).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: ISO_WEEKDAY[part('weekday')], minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** Whether the window is open at `at`. */
export function inSendWindow(window: SendWindow, at: Date): boolean {
  const { day, minute } = localTime(window.timezone, at);
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  if (start < end) return window.days.includes(day) && minute >= start && minute < end;
  const dayBefore = day === 1 ? 7 : day - 1;
  return (window.days.includes(day) && minute >= start) || (window.days.includes(dayBefore) && minute < end);
}

/**
 * D26.2: when a closed window next opens, the minute its `start` comes on a listed day, or null
 * when none comes within a week (a window inside an hour that daylight saving skips). The local
 * minutes to wait are counted on the wall clock, then checked, and moved by the clock change when
 * one falls between.
 */
export function nextWindowOpening(window: SendWindow, at: Date): Date | null {
  const { day, minute } = localTime(window.timezone, at);
  const start = minutesOf(window.start);
  const thisMinute = Math.floor(at.getTime() / 60_000) * 60_000;
  for (let ahead = 0; ahead <= 7; ahead++) {
    const weekday = ((day - 1 + ahead) % 7) + 1;
    if (!window.days.includes(weekday) || (ahead === 0 && start <= minute)) continue;
    const guess = thisMinute + ((ahead * 24 * 60 + start - minute) * 60_000);
    for (const shift of [0, -60, 60, -30, 30]) {
      const candidate = new Date(guess + shift * 60_000);
      if (candidate > at && inSendWindow(window, candidate) && !inSendWindow(window, new Date(candidate.getTime() - 60_000))) return candidate;
    }
  }
  return null;
}

/**
 * The window as stored: days de-duplicated and sorted, the time zone as given (D26.9). The
 * HTTP schema checks shapes; this checks what it cannot (and is the rule for any other caller):
 * 400 naming the field.
 */
export function checkSendWindow(window: SendWindow): SendWindow {
  const { days, start, end, timezone } = window;
  if (!Array.isArray(days) || days.length === 0 || days.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) {
    throw new ValidationError('send_window.days must list ISO weekdays from 1 (Monday) to 7 (Sunday), at least one');
  }
  for (const [field, value] of [['start', start], ['end', end]] as const) {
    if (typeof value !== 'string' || !new RegExp(TIME_OF_DAY).test(value)) throw new ValidationError(`send_window.${field} must be a time HH:MM from 00:00 to 23:59`);
  }
  const zone = typeof timezone === 'string' ? checkedTimeZone(timezone) : null;
  if (zone === null) throw new ValidationError(`send_window.timezone must be an IANA time zone such as Europe/Berlin; "${String(timezone)}" is not one`);
  return { days: [...new Set(days)].sort((a, b) => a - b), start, end, timezone: zone };
}
