import { Anchor, Button, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { session } from '../api.ts';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { useAction } from '../hooks.ts';

/** D24.4: asks for a reset link. The answer is the same whether or not the address is a user. */
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
        <Text>If a Sendwell user has this address, a link to set a new password is on its way to it. The link works once, within an hour.</Text>
        <Text size="sm" ta="center">
          <Anchor component={Link} to="/signin">
            Back to sign in
          </Anchor>
        </Text>
      </AuthPanel>
    );
  }
  return (
    <AuthPanel title="Forgot your password?">
      <form onSubmit={submit}>
        <Text mb="md">Enter your e-mail address and we will send you a link to set a new password.</Text>
        <TextInput label="E-mail" type="email" required autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} mb="md" />
        <ErrorText error={action.error} />
        <Button type="submit" loading={action.busy} fullWidth mt="md">
          Mail me a link
        </Button>
      </form>
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/signin">
          Back to sign in
        </Anchor>
      </Text>
    </AuthPanel>
  );
}
