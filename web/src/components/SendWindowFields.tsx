import { Checkbox, Group, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { defaultSendWindow, WEEKDAYS, type SendWindow } from '../send-window.ts';
import { TimeZoneSelect } from './TimeZoneSelect.tsx';

/**
 * D23: the campaign's send window: off (any time), or days, a start and an end time and a time
 * zone. An end at or before the start runs past midnight, as the API says.
 */
export function SendWindowFields({ value, onChange }: { value: SendWindow | null; onChange: (w: SendWindow | null) => void }) {
  const w = value;
  return (
    <Stack>
      <Title order={4}>When to send</Title>
      <Switch
        label="Send only within a window"
        description="Outside it nothing is sent; the campaign waits, SENDING, until the window opens again."
        checked={w !== null}
        onChange={(e) => onChange(e.currentTarget.checked ? defaultSendWindow() : null)}
      />
      {w && (
        <>
          <Checkbox.Group label="Days" value={w.days.map(String)} onChange={(days) => onChange({ ...w, days: days.map(Number).sort((a, b) => a - b) })}>
            <Group gap="sm" mt={4}>
              {WEEKDAYS.map((d) => (
                <Checkbox key={d.value} value={String(d.value)} label={d.label} />
              ))}
            </Group>
          </Checkbox.Group>
          <Group grow wrap="wrap">
            <TextInput label="From" type="time" value={w.start} onChange={(e) => onChange({ ...w, start: e.currentTarget.value })} />
            <TextInput label="Until" type="time" value={w.end} onChange={(e) => onChange({ ...w, end: e.currentTarget.value })} />
          </Group>
          <TimeZoneSelect value={w.timezone} onChange={(timezone) => onChange({ ...w, timezone })} />
          {w.end <= w.start && (
            <Text size="sm" c="dimmed">
              Ends before it starts: the window runs past midnight into the next day.
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}
