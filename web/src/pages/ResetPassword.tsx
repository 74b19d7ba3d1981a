import { Anchor, Text } from '@mantine/core';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { session } from '../api.ts';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { NewPasswordForm } from '../components/NewPasswordForm.tsx';

/** D24.4: where a reset mail's link leads, `/reset/{token}`: sets the password; it does not sign in. */
export function ResetPasswordPage() {
  const { token = '' } = useParams();
  const [done, setDone] = useState(false);
  if (done) {
    return (
      <AuthPanel title="Password changed">
        <Text>Your new password is set, and every session that was signed in with the old one has ended.</Text>
        <Text ta="center">
          <Anchor component={Link} to="/signin">
            Sign in
          </Anchor>
        </Text>
      </AuthPanel>
    );
  }
  return (
    <AuthPanel title="Set a new password">
      <NewPasswordForm submitLabel="Set the password" onSubmit={async (password) => (await session.confirmPasswordReset({ token, password }), setDone(true))} />
      <Text size="sm" ta="center">
        Link expired?{' '}
        <Anchor component={Link} to="/forgot-password">
          Ask for a new one
        </Anchor>
      </Text>
    </AuthPanel>
  );
}
