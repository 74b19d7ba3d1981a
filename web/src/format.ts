import { DEFAULT_TIME_ZONE, fromWallTime } from '../../src/domain/shared/time-zone.ts';

/**
 * Issue 34 item 3: the dashboard shows every date in the account's time zone (Settings), and says
 * which. The session sets it when it is read (session.tsx); until then, and for a reader with no
 * account, dates are UTC, as D1's timestamps are.
 */
let zone = DEFAULT_TIME_ZONE;

export function setDisplayZone(timeZone: string | null | undefined): void {
  zone = timeZone || DEFAULT_TIME_ZONE;
}

/** The zone the dashboard shows dates in and reads typed times in: the account's. */
export const displayZone = () => zone;

const formatters = new Map<string, { date: Intl.DateTimeFormat; us: Intl.DateTimeFormat }>();

function formattersFor(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = {
      date: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone, timeZoneName: 'short' }),
      us: new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'short' }),
    };
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * `29 Nov 2026, 14:00 CET`: the instant on the zone's clocks, with the zone's abbreviation. Where
 * British English has only an offset (`GMT-5`) and American English a name (`EST`), the name.
 */
export function formatInZone(at: Date, timeZone: string): string {
  const { date, us } = formattersFor(timeZone);
  const parts = date.formatToParts(at);
  const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  const usName = us.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const abbreviation = name.startsWith('GMT') && /^[A-Z]{2,5}$/.test(usName) ? usName : name;
  return parts.map((p) => (p.type === 'timeZoneName' ? abbreviation : p.value)).join('');
}

/** D1 timestamps are UTC without an offset; shown in the account's zone, which the text names. */
export function when(ts: string | null | undefined, timeZone = zone): string {
  if (!ts) return '—';
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(ts) ? ts : ts + 'Z');
  return Number.isNaN(d.getTime()) ? ts : formatInZone(d, timeZone);
}

/**
 * A `datetime-local` input's value, read on the clocks of `timeZone` (the account's unless told),
 * as the API's ISO 8601 instant; null when empty or no time. A time the clocks skip moves on by
 * the jump (time-zone.ts).
 */
export function fromLocalInput(value: string, timeZone = zone): string | null {
  if (!value) return null;
  return fromWallTime(value, timeZone)?.at.toISOString() ?? null;
}

/**
 * The zones a picker offers: UTC first, then the browser's list (which leaves UTC out). The server
 * checks the one chosen, and keeps names the list lacks (Asia/Kolkata, D26.9): `zoneChoices`
 * adds the current one when it is such a name.
 */
export const TIME_ZONES: string[] = [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((z) => z !== DEFAULT_TIME_ZONE)];

export const zoneChoices = (current: string): string[] => (TIME_ZONES.includes(current) ? TIME_ZONES : [current, ...TIME_ZONES]);

export const percent = (rate: number) => `${rate.toFixed(1)}%`;
export const count = (n: number) => n.toLocaleString();
