import { Anchor, Button, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';

/**
 * Where a sign-up's mailed link leads (issue 14 L5): `/signup/confirm#<token>`. Nothing happens
 * until the button is pressed, as mail scanners open links; the token stays in the fragment, which
 * the browser never sends to a server.
 */
export function ConfirmSignUpPage() {
  const { confirmSignUp } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const token = window.location.hash.slice(1);

  async function confirm() {
    const done = await action.run(async () => {
      await confirmSignUp(token);
      return true;
    });
    if (done) navigate('/keys', { replace: true });
  }

  return (
    <AuthPanel title="Create your account">
      <Text>Your e-mail address is confirmed by this link. Create the account to sign in.</Text>
      <ErrorText error={token ? action.error : 'This link is incomplete: open it from the mail again.'} />
      <Button onClick={() => void confirm()} loading={action.busy} disabled={!token} fullWidth>
        Create my account
      </Button>
      <Text size="sm" ta="center">
        Link expired? <Anchor component={Link} to="/signup">Sign up again</Anchor>
      </Text>
    </AuthPanel>
  );
}
