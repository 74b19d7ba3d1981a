import type { Schemas } from './api.ts';

/** D23: when a campaign may send, in its own time zone. */
export type SendWindow = NonNullable<Schemas['Campaign']['send_window']>;

/** ISO weekdays: 1 = Monday ... 7 = Sunday. */
export const WEEKDAYS = [
  { value: 1, label: 'Mon' },
  { value: 2, label: 'Tue' },
  { value: 3, label: 'Wed' },
  { value: 4, label: 'Thu' },
  { value: 5, label: 'Fri' },
  { value: 6, label: 'Sat' },
  { value: 7, label: 'Sun' },
];

/** The time zones the browser knows, for the picker; the server checks the one chosen. */
export const TIME_ZONES: string[] = Intl.supportedValuesOf('timeZone');

/** A first window for a campaign that had none: weekdays, office hours, where the user is. */
export function defaultSendWindow(): SendWindow {
  return { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

/** `Mon, Wed, Fri 22:00-06:00 (next day) Europe/Berlin` */
export function describeSendWindow(w: SendWindow): string {
  const days = w.days.map((d) => WEEKDAYS[d - 1].label).join(', ');
  const wraps = w.end <= w.start ? ' (next day)' : '';
  return `${days} ${w.start}–${w.end}${wraps}, ${w.timezone}`;
}
