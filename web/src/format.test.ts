import { afterEach, describe, expect, it } from 'vitest';
import { displayZone, formatInZone, fromLocalInput, setDisplayZone, when, zoneChoices } from './format.ts';

afterEach(() => setDisplayZone(null));

describe('issue 34: dates in the account\'s time zone, which the text names', () => {
  it('shows a D1 timestamp on the zone\'s clocks with its abbreviation', () => {
    expect(when('2026-11-29T13:00:00', 'Europe/Paris')).toBe('29 Nov 2026, 14:00 CET');
    expect(when('2026-07-01T12:00:00', 'Europe/Paris')).toBe('1 Jul 2026, 14:00 CEST');
    expect(when('2026-11-29T13:00:00', 'UTC')).toBe('29 Nov 2026, 13:00 UTC');
    expect(when('2026-11-29T23:30:00', 'Asia/Kolkata')).toBe('30 Nov 2026, 05:00 GMT+5:30');
  });

  it('names American zones as Americans do where British English gives only an offset', () => {
    expect(when('2026-11-29T13:00:00', 'America/New_York')).toBe('29 Nov 2026, 08:00 EST');
    expect(when('2026-07-01T13:00:00', 'America/Los_Angeles')).toBe('1 Jul 2026, 06:00 PDT');
  });

  it('follows the zone the session set, UTC before one is', () => {
    expect(displayZone()).toBe('UTC');
    expect(when('2026-11-29T13:00:00')).toBe('29 Nov 2026, 13:00 UTC');
    setDisplayZone('Europe/Paris');
    expect(when('2026-11-29T13:00:00')).toBe('29 Nov 2026, 14:00 CET');
    expect(fromLocalInput('2026-11-29T14:00')).toBe('2026-11-29T13:00:00.000Z');
  });

  it('reads a typed time on the zone\'s clocks, across daylight saving', () => {
    expect(fromLocalInput('2026-07-01T14:00', 'Europe/Paris')).toBe('2026-07-01T12:00:00.000Z');
    expect(fromLocalInput('2026-03-29T02:30', 'Europe/Paris')).toBe('2026-03-29T01:30:00.000Z');
    expect(fromLocalInput('', 'Europe/Paris')).toBeNull();
    expect(fromLocalInput('soon', 'Europe/Paris')).toBeNull();
  });

  it('keeps what is not a date as it is, and a missing one as a dash', () => {
    expect(when(null)).toBe('—');
    expect(when('not a date')).toBe('not a date');
    expect(formatInZone(new Date('2026-11-29T13:00:00Z'), 'Asia/Tokyo')).toBe('29 Nov 2026, 22:00 GMT+9');
  });

  it('offers UTC first, and a kept name the browser does not list', () => {
    expect(zoneChoices('UTC')[0]).toBe('UTC');
    expect(zoneChoices('Europe/Paris')).toContain('Europe/Paris');
    expect(zoneChoices('Asia/Kolkata')[0]).toBe('Asia/Kolkata');
  });
});
