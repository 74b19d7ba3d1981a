import { Button, Card, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { security } from '../api.ts';
import { PageHeader } from '../components/Layout.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { SessionsCard } from '../components/SessionsCard.tsx';
import { TwoFactorCard } from '../components/TwoFactorCard.tsx';
import { useAction } from '../hooks.ts';

/** D24.5/D24.6/D24.9: the signed-in user's own password, two-factor sign-in and sessions. */
export function SecurityPage() {
  // A password change ends the other sessions: the list is read again after it.
  const [changes, setChanges] = useState(0);
  return (
    <Stack>
      <PageHeader title="Security" />
      <PasswordCard onChanged={() => setChanges((n) => n + 1)} />
      <TwoFactorCard />
      <SessionsCard key={changes} />
    </Stack>
  );
}

function PasswordCard({ onChanged }: { onChanged: () => void }) {
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(false);
    if (await action.run(async () => (await security.changePassword({ current_password: current, new_password: next }), true))) {
      setDone(true);
      setCurrent('');
      setNext('');
      onChanged();
    }
  }

  return (
    <Card withBorder padding="lg" radius="md" component="form" onSubmit={submit} aria-label="Change password">
      <Title order={3} mb="sm">
        Password
      </Title>
      <Stack maw={420}>
        <PasswordInput label="Current password" required autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.currentTarget.value)} />
        <PasswordInput label="New password" description="At least 8 characters" required minLength={8} maxLength={256} autoComplete="new-password" value={next} onChange={(e) => setNext(e.currentTarget.value)} />
        <ErrorText error={action.error} />
        {done && (
          <Text size="sm" c="green" role="status">
            Password changed. Your other sessions have been signed out.
          </Text>
        )}
        <div>
          <Button type="submit" loading={action.busy}>
            Change password
          </Button>
        </div>
      </Stack>
    </Card>
  );
}
