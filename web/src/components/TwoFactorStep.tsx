import { Anchor, Button, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { ErrorText } from './PageState.tsx';

/**
 * D24.6: the sign-in's second step for a user with two-factor sign-in: the 6-digit code of the
 * authenticator app, or one of the recovery codes shown when it was turned on.
 */
export function TwoFactorStep({ challenge, onSignedIn, onRestart }: { challenge: string; onSignedIn: () => void; onRestart: () => void }) {
  const { signInWithCode } = useSession();
  const action = useAction();
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');

  async function submit(e: FormEvent) {
    e.preventDefault();
    const value = code.trim();
    const ok = await action.run(async () => {
      await signInWithCode(challenge, useRecovery ? { recovery_code: value } : { code: value.replace(/\s/g, '') });
      return true;
    });
    if (ok) onSignedIn();
  }

  return (
    <main className="auth-page">
      <Title order={1} ta="center" mb="xs">
        Two-factor sign-in
      </Title>
      <Text c="dimmed" ta="center" mb="lg">
        {useRecovery ? 'Enter one of your recovery codes. Each works once.' : 'Enter the 6-digit code your authenticator app shows for Sendwell.'}
      </Text>
      <Paper withBorder p="lg" radius="md" component="form" onSubmit={submit}>
        <Stack>
          {useRecovery ? (
            <TextInput key="recovery" label="Recovery code" required autoComplete="off" value={code} onChange={(e) => setCode(e.currentTarget.value)} />
          ) : (
            <TextInput
              key="code"
              label="Code from your authenticator app"
              required
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="\s*[0-9]{3}\s*[0-9]{3}\s*"
              maxLength={8}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
            />
          )}
          <ErrorText error={action.error} />
          <Button type="submit" loading={action.busy} fullWidth>
            Sign in
          </Button>
          <Text size="sm" ta="center">
            <Anchor
              component="button"
              type="button"
              onClick={() => {
                setUseRecovery(!useRecovery);
                setCode('');
                action.setError(null);
              }}
            >
              {useRecovery ? 'Use a code from the app' : 'Use a recovery code'}
            </Anchor>
            {' · '}
            <Anchor component="button" type="button" onClick={onRestart}>
              Start again
            </Anchor>
          </Text>
        </Stack>
      </Paper>
    </main>
  );
}
