import { Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { fromWallTime } from '../../../src/domain/shared/time-zone.ts';
import { displayZone, formatInZone } from '../format.ts';
import { TimeZoneSelect } from './TimeZoneSelect.tsx';

/**
 * Issue 34 item 3: a wall time and the zone it is in, the account's unless the user picks another
 * for this schedule; `onChange` gets the instant (ISO 8601, UTC) the API stores, or '' while there
 * is none. Below, the instant as it will be read, in words, and what daylight saving does to it.
 * Laid out as items of the caller's wrapping row (the line of words takes a row of its own, last).
 */
export function SchedulePicker({ onChange }: { onChange: (at: string) => void }) {
  const accountZone = displayZone();
  const [wall, setWall] = useState('');
  const [zone, setZone] = useState(accountZone);
  const resolved = wall ? fromWallTime(wall, zone) : null;
  const update = (nextWall: string, nextZone: string) => {
    setWall(nextWall);
    setZone(nextZone);
    onChange((nextWall && fromWallTime(nextWall, nextZone)?.at.toISOString()) || '');
  };
  const inAccountZone = resolved && zone !== accountZone ? `; ${formatInZone(resolved.at, accountZone)} in the account's zone` : '';
  return (
    <>
      <TextInput label="Schedule for" type="datetime-local" value={wall} onChange={(e) => update(e.currentTarget.value, zone)} />
      <TimeZoneSelect
        label="Schedule time zone"
        description={zone === accountZone ? "The account's" : `The account's is ${accountZone}`}
        value={zone}
        onChange={(z) => update(wall, z)}
      />
      {resolved && (
        <Text size="sm" c="dimmed" role="status" style={{ flexBasis: '100%', order: 1 }} data-testid="schedule-summary">
          Sends {formatInZone(resolved.at, zone)}
          {inAccountZone}.
          {resolved.kind === 'gap' && ' The clocks skip that time on that day, so it is the time they show just after the change.'}
          {resolved.kind === 'overlap' && ' The clocks show that time twice on that day; this is the first, before they go back.'}
        </Text>
      )}
    </>
  );
}
