/**
 * IANA time zones: which names are one (D26.9), and wall-clock time in a zone to and from an
 * instant (issue 34 item 3: the account's zone, D23's send windows, the schedule picker). Pure,
 * with Intl only: the server and the dashboard import it, so both convert alike.
 *
 * Across daylight saving a wall time is not always one instant. A time the clocks skip (02:30 on
 * the night Paris goes from 02:00 to 03:00) is read as the clocks would show it had they not
 * jumped, so it lands just after the jump (03:30), as Temporal's "compatible" rule does. A time
 * the clocks show twice (02:30 on the night Paris goes back from 03:00 to 02:00) is the first of
 * the two, before the change.
 */

/** The default zone of an account and of every reader that has none. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** The longest name accepted (the longest IANA name is 32 characters; room for aliases). */
export const TIME_ZONE_MAX_LENGTH = 100;

/**
 * The time zone as it is stored and returned, or null when Intl does not know it. D26.9: the name
 * as given: Intl knows a zone by its ICU name (`Asia/Kolkata` resolves to `Asia/Calcutta`), and
 * reading back a name the user did not write looked like a different zone. Only the case is
 * corrected, when the given name is Intl's own in another case (`europe/berlin`).
 *
 * Not `Intl.supportedValuesOf('timeZone')`: Node 20's list leaves out `UTC`, `Asia/Kolkata` and
 * `Europe/Kyiv`, names that Intl itself accepts and D26.9 keeps.
 */
export function checkedTimeZone(timezone: string): string | null {
  if (typeof timezone !== 'string' || timezone.trim() === '' || timezone.length > TIME_ZONE_MAX_LENGTH) return null;
  if (/^[+-]/.test(timezone)) return null; // bare offsets are no IANA zone
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return resolved.toLowerCase() === timezone.toLowerCase() ? resolved : timezone;
}

/** Formatters are costly to build; a page or a sender asks the same few zones again and again. */
const partFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let f = partFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    partFormatters.set(zone, f);
  }
  return f;
}

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallParts(at: number, zone: string): WallParts {
  const parts = partsFormatter(zone).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return { year: n('year'), month: n('month'), day: n('day'), hour: n('hour') % 24, minute: n('minute'), second: n('second') };
}

/** How far the zone's clocks are ahead of UTC at `at`, in minutes (Paris in winter: 60). */
export function zoneOffsetMinutes(zone: string, at: Date): number {
  const ms = Math.floor(at.getTime() / 1000) * 1000;
  const w = wallParts(ms, zone);
  return Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - ms) / 60_000);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The wall clock of `zone` at `at`, as a `datetime-local` input shows it: `YYYY-MM-DDTHH:MM`. */
export function toWallTime(at: Date, zone: string): string {
  const w = wallParts(at.getTime(), zone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * What a wall time is in a zone: the instant, and whether the clocks skip it (`gap`: the instant
 * is that time moved on by the jump) or show it twice (`overlap`: the first of the two).
 */
export interface ZonedInstant {
  at: Date;
  kind: 'exact' | 'gap' | 'overlap';
}

/**
 * The instant the wall time `YYYY-MM-DDTHH:MM` (seconds optional) is in `zone`, or null when the
 * text is no such time (`2026-02-30T10:00`, `25:00`). The zone must be one (checkedTimeZone).
 */
export function fromWallTime(wall: string, zone: string): ZonedInstant | null {
  const m = WALL_TIME.exec(wall);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(asUtc);
  // Date.UTC rolls 30 February over to March: such a text names no day.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  // No zone changes its offset twice within two days: the offsets a day either side are the only
  // ones this wall time can have.
  const before = zoneOffsetMinutes(zone, new Date(asUtc - 86_400_000));
  const after = zoneOffsetMinutes(zone, new Date(asUtc + 86_400_000));
  const shows = (offset: number) => {
    const w = wallParts(asUtc - offset * 60_000, zone);
    return w.year === year && w.month === month && w.day === day && w.hour === hour && w.minute === minute && w.second === second;
  };
  const candidates = [...new Set([before, after])].filter(shows).map((offset) => asUtc - offset * 60_000);
  if (candidates.length === 0) return { at: new Date(asUtc - before * 60_000), kind: 'gap' };
  if (candidates.length === 1) return { at: new Date(candidates[0]), kind: 'exact' };
  return { at: new Date(Math.min(...candidates)), kind: 'overlap' };
}
