import { describe, expect, it } from 'vitest';
import { checkedTimeZone, fromWallTime, toWallTime, zoneOffsetMinutes } from './time-zone.ts';

const iso = (wall: string, zone: string) => fromWallTime(wall, zone)?.at.toISOString();

describe('checkedTimeZone (D26.9)', () => {
  it('keeps the name as given, correcting only the case of Intl\'s own', () => {
    expect(checkedTimeZone('UTC')).toBe('UTC');
    expect(checkedTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(checkedTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(checkedTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(checkedTimeZone('Europe/Kyiv')).toBe('Europe/Kyiv');
  });

  it.each(['', ' ', 'Mars/Olympus', '+01:00', '-05', 'Europe/Paris ' + 'x'.repeat(100), 'CEST'])('refuses %j', (name) => {
    expect(checkedTimeZone(name)).toBeNull();
  });
});

describe('fromWallTime', () => {
  it('reads an ordinary wall time in the zone', () => {
    expect(fromWallTime('2026-11-29T14:00', 'Europe/Paris')).toEqual({ at: new Date('2026-11-29T13:00:00Z'), kind: 'exact' });
    expect(iso('2026-07-01T14:00', 'Europe/Paris')).toBe('2026-07-01T12:00:00.000Z');
    expect(iso('2026-07-01T14:00', 'UTC')).toBe('2026-07-01T14:00:00.000Z');
    expect(iso('2026-07-01T09:30', 'America/New_York')).toBe('2026-07-01T13:30:00.000Z');
    expect(iso('2026-01-15T09:30', 'America/New_York')).toBe('2026-01-15T14:30:00.000Z');
    expect(iso('2026-07-01T09:00', 'Asia/Kolkata')).toBe('2026-07-01T03:30:00.000Z');
    expect(iso('2026-07-01T09:00', 'Asia/Kathmandu')).toBe('2026-07-01T03:15:00.000Z');
    expect(iso('2026-07-01T09:00:30', 'UTC')).toBe('2026-07-01T09:00:30.000Z');
  });

  it('reads the southern summer (Sydney is ahead 11 hours in January, 10 in July)', () => {
    expect(iso('2026-01-10T08:00', 'Australia/Sydney')).toBe('2026-01-09T21:00:00.000Z');
    expect(iso('2026-07-10T08:00', 'Australia/Sydney')).toBe('2026-07-09T22:00:00.000Z');
  });

  it('reads the hours either side of a change by their own offset', () => {
    // Paris springs forward at 2026-03-29 01:00 UTC (02:00 CET becomes 03:00 CEST).
    expect(iso('2026-03-29T01:59', 'Europe/Paris')).toBe('2026-03-29T00:59:00.000Z');
    expect(iso('2026-03-29T03:00', 'Europe/Paris')).toBe('2026-03-29T01:00:00.000Z');
    // It falls back at 2026-10-25 01:00 UTC (03:00 CEST becomes 02:00 CET).
    expect(iso('2026-10-25T01:59', 'Europe/Paris')).toBe('2026-10-24T23:59:00.000Z');
    expect(iso('2026-10-25T03:00', 'Europe/Paris')).toBe('2026-10-25T02:00:00.000Z');
  });

  it('moves a time the clocks skip on by the jump', () => {
    expect(fromWallTime('2026-03-29T02:30', 'Europe/Paris')).toEqual({ at: new Date('2026-03-29T01:30:00Z'), kind: 'gap' });
    expect(toWallTime(new Date('2026-03-29T01:30:00Z'), 'Europe/Paris')).toBe('2026-03-29T03:30');
    // New York skips 02:00-03:00 on 8 March 2026.
    expect(fromWallTime('2026-03-08T02:15', 'America/New_York')).toEqual({ at: new Date('2026-03-08T07:15:00Z'), kind: 'gap' });
  });

  it('takes the first of a time the clocks show twice', () => {
    expect(fromWallTime('2026-10-25T02:30', 'Europe/Paris')).toEqual({ at: new Date('2026-10-25T00:30:00Z'), kind: 'overlap' });
    expect(fromWallTime('2026-11-01T01:30', 'America/New_York')).toEqual({ at: new Date('2026-11-01T05:30:00Z'), kind: 'overlap' });
  });

  it.each(['', '2026-11-29', '2026-02-30T10:00', '2026-11-29T24:00', '2026-11-29T10:60', '29/11/2026 10:00', '2026-11-29T10:00Z'])('refuses %j', (wall) => {
    expect(fromWallTime(wall, 'Europe/Paris')).toBeNull();
  });

  it('goes back to the same wall time for every half hour of a year with two changes', () => {
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 30 * 60_000) {
      const wall = toWallTime(new Date(t), 'Europe/Paris');
      expect(toWallTime(fromWallTime(wall, 'Europe/Paris')!.at, 'Europe/Paris')).toBe(wall);
    }
  });
});

describe('toWallTime and zoneOffsetMinutes', () => {
  it('shows an instant on the zone\'s clocks', () => {
    expect(toWallTime(new Date('2026-11-29T13:00:00Z'), 'Europe/Paris')).toBe('2026-11-29T14:00');
    expect(toWallTime(new Date('2026-11-29T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-11-30T08:30');
    expect(toWallTime(new Date('2026-11-29T00:00:00Z'), 'UTC')).toBe('2026-11-29T00:00');
  });

  it('gives the offset in minutes, summer and winter', () => {
    expect(zoneOffsetMinutes('Europe/Paris', new Date('2026-01-01T12:00:00Z'))).toBe(60);
    expect(zoneOffsetMinutes('Europe/Paris', new Date('2026-07-01T12:00:00Z'))).toBe(120);
    expect(zoneOffsetMinutes('America/Los_Angeles', new Date('2026-07-01T12:00:00Z'))).toBe(-420);
    expect(zoneOffsetMinutes('UTC', new Date('2026-07-01T12:00:00Z'))).toBe(0);
  });
});
