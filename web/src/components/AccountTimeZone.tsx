import { Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { account } from '../api.ts';
import { formatInZone } from '../format.ts';
import { useAction } from '../hooks.ts';
import { can } from '../permissions.ts';
import { useSession } from '../session.tsx';
import { ErrorText } from './PageState.tsx';
import { TimeZoneSelect } from './TimeZoneSelect.tsx';

/**
 * Issue 34 item 3: the account's time zone. Every date the dashboard shows is in it, and the
 * schedule picker offers it first. An owner or admin changes it (PUT /api/v1/account); others read it.
 */
export function AccountTimeZone() {
  const { session, refresh } = useSession();
  const current = session?.account.time_zone ?? 'UTC';
  const [zone, setZone] = useState(current);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  if (!session) return null;
  const example = `Now: ${formatInZone(new Date(), zone)}`;
  if (!can(session, '*')) {
    return (
      <Text size="sm">
        {current} <Text span c="dimmed" size="sm">({example}; an owner or admin can change it)</Text>
      </Text>
    );
  }
  const save = async () => {
    setSaved(false);
    const done = await action.run(async () => {
      await account.update({ time_zone: zone });
      await refresh();
      return true;
    });
    if (done) setSaved(true);
  };
  return (
    <Stack gap="xs">
      <Group align="end" wrap="wrap">
        <TimeZoneSelect
          label="Account time zone"
          description={example}
          value={zone}
          onChange={(z) => {
            setZone(z);
            setSaved(false);
          }}
        />
        <Button variant="light" loading={action.busy} disabled={zone === current} onClick={() => void save()}>
          Save time zone
        </Button>
      </Group>
      {saved && (
        <Text size="sm" c="teal" role="status">
          Saved: dates are shown in {current}.
        </Text>
      )}
      <ErrorText error={action.error} />
    </Stack>
  );
}
