import { Alert, Anchor, Button, Center, Divider, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { session } from '../api.ts';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { TwoFactorStep } from '../components/TwoFactorStep.tsx';
import { signInErrorText } from '../sign-in-errors.ts';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';

export function SignInPage({ mode }: { mode: 'signin' | 'signup' }) {
  const { signIn, signUp } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  const [mailSentTo, setMailSentTo] = useState<string | null>(null);
  const signingUp = mode === 'signup';
  // D17.7: after the first account, sign-up is open only when the operator allows it.
  const [signUpOpen, setSignUpOpen] = useState<boolean | null>(null);
  // D24.7: "Sign in with SSO" only when the instance has single sign-on set up.
  const [sso, setSso] = useState(false);
  // Issue 34 (18): an instance with no account yet opens on "Create the first account".
  const [firstAccount, setFirstAccount] = useState(false);
  // D24.6: the password was right and the user has two-factor sign-in: the code is asked next.
  const [challenge, setChallenge] = useState<string | null>(null);
  // D24.7: single sign-on that failed comes back to /login?error=<code>.
  const [params] = useSearchParams();
  const redirected = params.get('error');
  useEffect(() => {
    session.signUpStatus()
      .then((status) => {
        setSignUpOpen(status.open);
        setSso(status.sso);
        setFirstAccount(status.first_account);
      })
      .catch(() => setSignUpOpen(true));
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await action.run(async () => {
      if (!signingUp) {
        const second = await signIn(email, password);
        if (second) setChallenge(second.challenge);
        return !second;
      }
      const pending = await signUp(email, password, accountName);
      if (pending) setMailSentTo(pending.mailSentTo);
      return !pending;
    });
    if (ok) navigate('/', { replace: true });
  }

  if (challenge) {
    return <TwoFactorStep challenge={challenge} onSignedIn={() => navigate('/', { replace: true })} onRestart={() => setChallenge(null)} />;
  }

  if (mailSentTo) {
    return (
      <AuthPanel title="Check your mail">
        <Text>
          We sent a link to <b>{mailSentTo}</b>. Open it within 24 hours to create your account and sign in.
        </Text>
        <Text size="sm" c="dimmed">
          No mail? Look in your spam folder, or{' '}
          <Anchor component="button" type="button" onClick={() => setMailSentTo(null)}>
            sign up again
          </Anchor>
          .
        </Text>
      </AuthPanel>
    );
  }

  // Until the instance says whether it has an account, neither form (no sign-in form flashes first).
  if (signUpOpen === null) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (firstAccount && !signingUp) return <Navigate to="/signup" replace />;

  if (signingUp && signUpOpen === false) {
    return (
      <AuthPanel title="Sign-up is closed">
        <Text>This Sendwell instance does not take new sign-ups. Ask the person who runs it to create an account for you.</Text>
        <Text size="sm" c="dimmed">
          Running it yourself? Add a user with <code>sendwell users create</code>, or start the server with <code>ALLOW_SIGNUP=true</code>.
        </Text>
        <Text size="sm">
          Already have an account?{' '}
          <Anchor component={Link} to="/signin">
            Sign in
          </Anchor>
          .
        </Text>
      </AuthPanel>
    );
  }

  return (
    <main className="auth-page">
      <Title order={1} ta="center" mb="xs">
        Sendwell
      </Title>
      {firstAccount ? (
        <>
          <Title order={2} ta="center" mb="xs">
            Create the first account
          </Title>
          <Text size="sm" c="dimmed" ta="center" mb="lg">
            This Sendwell instance has no account yet. The one you create now is its first, and you are its owner.
          </Text>
        </>
      ) : (
        <Text c="dimmed" ta="center" mb="lg">
          {signingUp ? 'Create your account (Free plan)' : 'Sign in to your account'}
        </Text>
      )}
      <Paper withBorder p="lg" radius="md" component="form" onSubmit={submit}>
        <Stack>
          {redirected && !signingUp && (
            <Alert color="red" role="alert" variant="light" title="Single sign-on did not sign you in">
              {signInErrorText(redirected)}
            </Alert>
          )}
          {signingUp && <TextInput label="Organisation name" placeholder="Acme Inc." value={accountName} onChange={(e) => setAccountName(e.currentTarget.value)} />}
          <TextInput label="E-mail" type="email" required autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <PasswordInput
            label="Password"
            required
            minLength={signingUp ? 8 : undefined}
            description={signingUp ? 'At least 8 characters' : undefined}
            autoComplete={signingUp ? 'new-password' : 'current-password'}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          {!signingUp && (
            <Text size="sm" ta="right" mt={-8}>
              <Anchor component={Link} to="/forgot-password">
                Forgot password?
              </Anchor>
            </Text>
          )}
          <ErrorText error={action.error} />
          <Button type="submit" loading={action.busy} fullWidth>
            {signingUp ? 'Create account' : 'Sign in'}
          </Button>
          {!signingUp && sso && (
            <>
              <Divider label="or" labelPosition="center" />
              {/* A plain link: the server answers with a redirect to the identity provider. */}
              <Button component="a" href="/api/v1/auth/oidc/start" variant="default" fullWidth>
                Sign in with SSO
              </Button>
            </>
          )}
          {!firstAccount && (signingUp || signUpOpen) && (
            <Text size="sm" ta="center">
              {signingUp ? 'Already have an account? ' : 'New to Sendwell? '}
              <Anchor component={Link} to={signingUp ? '/signin' : '/signup'}>
                {signingUp ? 'Sign in' : 'Create an account'}
              </Anchor>
            </Text>
          )}
          {!signingUp && signUpOpen === false && (
            <Text size="sm" c="dimmed" ta="center">
              No account yet? Sign-up is closed on this instance: ask the person who runs it to create one for you.
            </Text>
          )}
        </Stack>
      </Paper>
    </main>
  );
}
