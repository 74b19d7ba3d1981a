import { Badge, Button, Card, Code, Group, Image, List, PasswordInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import QRCode from 'qrcode';
import { useState, type FormEvent } from 'react';
import { security, session as sessionApi, type Schemas } from '../api.ts';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { ErrorText } from './PageState.tsx';

/** Whether the signed-in user has two-factor sign-in, read afresh (it changes on this page). */
async function myTwoFactor(): Promise<boolean> {
  return (await sessionApi.me()).user.two_factor;
}

/**
 * D24.6: turns two-factor sign-in on (a QR code of the otpauth URL and the secret as text, then a
 * code from the app; the 10 recovery codes are shown once) or off (with the password).
 */
export function TwoFactorCard() {
  const { session } = useSession();
  const state = useLoad(() => myTwoFactor(), [session?.user.id]);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <Card withBorder padding="lg" radius="md">
      <Group justify="space-between" mb="sm">
        <Title order={3}>Two-factor sign-in</Title>
        {state.data !== undefined && (
          <Badge color={state.data ? 'green' : 'gray'} variant="light">
            {state.data ? 'On' : 'Off'}
          </Badge>
        )}
      </Group>
      <ErrorText error={state.error} />
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
      ) : state.data === true ? (
        <TurnOff onOff={state.reload} />
      ) : state.data === false ? (
        <TurnOn
          onOn={async (codes) => {
            setRecoveryCodes(codes);
            await state.reload();
          }}
        />
      ) : null}
    </Card>
  );
}

function TurnOn({ onOn }: { onOn: (recoveryCodes: string[]) => Promise<void> }) {
  const action = useAction();
  const [setup, setSetup] = useState<(Schemas['TotpSetup'] & { qr: string }) | null>(null);
  const [code, setCode] = useState('');

  async function start() {
    await action.run(async () => {
      const s = await security.totpSetup();
      setSetup({ ...s, qr: await QRCode.toDataURL(s.otpauth_url, { margin: 1, width: 200 }) });
    });
  }

  async function enable(e: FormEvent) {
    e.preventDefault();
    const answer = await action.run(() => security.totpEnable(code.replace(/\s/g, '')));
    if (answer) await onOn(answer.recovery_codes);
  }

  if (!setup) {
    return (
      <Stack align="flex-start">
        <Text size="sm">After your password, sign-in will ask for a code from an authenticator app on your phone (Google Authenticator, 1Password, Authy and others).</Text>
        <ErrorText error={action.error} />
        <Button onClick={() => void start()} loading={action.busy}>
          Set up two-factor sign-in
        </Button>
      </Stack>
    );
  }
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg" component="form" onSubmit={enable} aria-label="Turn on two-factor sign-in">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">1. Scan this code with your authenticator app.</Text>
        <Image src={setup.qr} alt="QR code for your authenticator app" w={200} h={200} />
        <Text size="sm">Cannot scan it? Enter this key in the app instead:</Text>
        <Code aria-label="Secret key" className="key-value">
          {setup.secret}
        </Code>
      </Stack>
      <Stack gap="sm" maw={320}>
        <Text size="sm">2. Enter the 6-digit code the app shows.</Text>
        <TextInput label="Code" required inputMode="numeric" autoComplete="one-time-code" maxLength={8} value={code} onChange={(e) => setCode(e.currentTarget.value)} />
        <ErrorText error={action.error} />
        <div>
          <Button type="submit" loading={action.busy}>
            Turn on
          </Button>
        </div>
      </Stack>
    </SimpleGrid>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Stack align="flex-start">
      <Text size="sm" fw={600}>
        Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.
      </Text>
      <List aria-label="Recovery codes" className="key-value" spacing={2} listStyleType="none">
        {codes.map((c) => (
          <List.Item key={c}>{c}</List.Item>
        ))}
      </List>
      <Button variant="default" onClick={onDone}>
        I have saved them
      </Button>
    </Stack>
  );
}

function TurnOff({ onOff }: { onOff: () => Promise<void> }) {
  const action = useAction();
  const [password, setPassword] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (await action.run(async () => (await security.totpDisable(password), true))) await onOff();
  }
  return (
    <Stack component="form" onSubmit={submit} maw={420} aria-label="Turn off two-factor sign-in">
      <Text size="sm">Sign-in asks for a code from your authenticator app after your password. To turn this off, confirm your password.</Text>
      <PasswordInput label="Password" required autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
      <ErrorText error={action.error} />
      <div>
        <Button type="submit" color="red" variant="light" loading={action.busy}>
          Turn off two-factor sign-in
        </Button>
      </div>
    </Stack>
  );
}
