/** D1 timestamps are UTC without an offset; shown in the reader's local time. */
export function when(ts: string | null | undefined): string {
  if (!ts) return '—';
  const d = new Date(ts + 'Z');
  return Number.isNaN(d.getTime()) ? ts : d.toLocaleString();
}

/** A `datetime-local` input's value (local time) as the API's ISO 8601 with offset. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export const percent = (rate: number) => `${rate.toFixed(1)}%`;
export const count = (n: number) => n.toLocaleString();

/** The reader's time zone by name, for pages that say which zone their times are in. */
export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
