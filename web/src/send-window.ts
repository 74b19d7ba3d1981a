import type { Schemas } from './api.ts';
import { displayZone } from './format.ts';

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

/** A first window for a campaign that had none: weekdays, office hours, in the account's time zone. */
export function defaultSendWindow(): SendWindow {
  return { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00', timezone: displayZone() };
}

/** `Mon, Wed, Fri 22:00-06:00 (next day) Europe/Berlin` */
export function describeSendWindow(w: SendWindow): string {
  const days = w.days.map((d) => WEEKDAYS[d - 1].label).join(', ');
  const wraps = w.end <= w.start ? ' (next day)' : '';
  return `${days} ${w.start}–${w.end}${wraps}, ${w.timezone}`;
}
