import { Anchor, Button, PasswordInput, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { session } from '../api.ts';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { useAction } from '../hooks.ts';

/** D24.4: "Forgot password?": a link to reset it is mailed to the address, if it is a user's. */
export function ForgotPasswordPage() {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (await action.run(async () => (await session.requestPasswordReset({ email }), true))) setSent(true);
  }

  if (sent) {
    return (
      <AuthPanel title="Check your mail">
        <Text>
          If <b>{email}</b> has a Sendwell account, a link to reset its password is on its way. It works once, within an hour.
        </Text>
        <Text size="sm" ta="center">
          <Anchor component={Link} to="/signin">Back to sign in</Anchor>
        </Text>
      </AuthPanel>
    );
  }
  return (
    <AuthPanel title="Reset your password">
      <form onSubmit={submit}>
        <TextInput label="E-mail" type="email" required autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} mb="md" />
        <ErrorText error={action.error} />
        <Button type="submit" loading={action.busy} fullWidth>
          Mail me a link
        </Button>
      </form>
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/signin">Back to sign in</Anchor>
      </Text>
    </AuthPanel>
  );
}

/** D24.4: where the mailed link leads, `/reset/{token}`: a new password; every session ends and nobody is signed in. */
export function ResetPasswordPage() {
  const { token = '' } = useParams();
  const action = useAction();
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (await action.run(async () => (await session.confirmPasswordReset({ token, password }), true))) setDone(true);
  }

  if (done) {
    return (
      <AuthPanel title="Password changed">
        <Text>Your password is changed and every session of your account has ended.</Text>
        <Button component={Link} to="/signin" fullWidth>
          Sign in
        </Button>
      </AuthPanel>
    );
  }
  return (
    <AuthPanel title="Choose a new password">
      <form onSubmit={submit}>
        <PasswordInput label="New password" required minLength={8} description="At least 8 characters" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} mb="md" />
        <ErrorText error={action.error} />
        <Button type="submit" loading={action.busy} fullWidth>
          Set the password
        </Button>
      </form>
      <Text size="sm" ta="center">
        Link expired? <Anchor component={Link} to="/forgot-password">Ask for a new one</Anchor>
      </Text>
    </AuthPanel>
  );
}
