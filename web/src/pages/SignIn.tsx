import { Alert, Anchor, Button, Divider, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { SSO_ERRORS } from '../../../src/domain/users/sso-errors.ts';
import { session } from '../api.ts';
import { AuthPanel } from '../components/AuthPanel.tsx';
import { ErrorText } from '../components/PageState.tsx';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';

export function SignInPage({ mode }: { mode: 'signin' | 'signup' }) {
  const { signIn, signUp, signInWithCode } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  const [mailSentTo, setMailSentTo] = useState<string | null>(null);
  // D24.6: a right password of a user with two-factor: the code comes next.
  const [challenge, setChallenge] = useState<string | null>(null);
  const signingUp = mode === 'signup';
  // D17.7: after the first account, sign-up is open only when the operator allows it.
  const [signUpOpen, setSignUpOpen] = useState<boolean | null>(null);
  // D24.7: "Sign in with SSO" only when the server has an OpenID provider.
  const [sso, setSso] = useState(false);
  useEffect(() => {
    session.signUpStatus()
      .then((status) => {
        setSignUpOpen(status.open);
        setSso(status.sso);
      })
      .catch(() => setSignUpOpen(true));
  }, []);
  // D24.7: a refused SSO sign-in comes back as /login?error=<code>.
  const [params] = useSearchParams();
  const ssoErrorCode = params.get('error');
  const ssoError = ssoErrorCode && Object.hasOwn(SSO_ERRORS, ssoErrorCode) ? SSO_ERRORS[ssoErrorCode as keyof typeof SSO_ERRORS] : null;

  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await action.run(async () => {
      if (!signingUp) {
        const twoFactor = await signIn(email, password);
        if (twoFactor) setChallenge(twoFactor.challenge);
        return !twoFactor;
      }
      const pending = await signUp(email, password, accountName);
      if (pending) setMailSentTo(pending.mailSentTo);
      return !pending;
    });
    if (ok) navigate('/', { replace: true });
  }

  if (challenge) return <TwoFactorStep challenge={challenge} signInWithCode={signInWithCode} onDone={() => navigate('/', { replace: true })} onRestart={() => setChallenge(null)} />;

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
      <Text c="dimmed" ta="center" mb="lg">
        {signingUp ? 'Create your account (Free plan)' : 'Sign in to your account'}
      </Text>
      <Paper withBorder p="lg" radius="md" component="form" onSubmit={submit}>
        <Stack>
          {!signingUp && ssoError && (
            <Alert color="red" title="Single sign-on did not sign you in">
              {ssoError[0].toUpperCase() + ssoError.slice(1)}.
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
              {/* A full page load: the server answers with a redirect to the provider. */}
              <Button component="a" href="/api/v1/auth/oidc/start" variant="default" fullWidth>
                Sign in with SSO
              </Button>
            </>
          )}
          {(signingUp || signUpOpen) && (
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

/** D24.6: the code of the authenticator app, or one of the recovery codes. */
function TwoFactorStep(props: { challenge: string; signInWithCode: ReturnType<typeof useSession>['signInWithCode']; onDone(): void; onRestart(): void }) {
  const action = useAction();
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await action.run(async () => {
      await props.signInWithCode(props.challenge, recovery ? { recovery_code: code.trim() } : { code: code.replace(/\s+/g, '') });
      return true;
    });
    if (ok) props.onDone();
  }

  return (
    <AuthPanel title="Two-factor sign-in">
      <Stack component="form" onSubmit={submit}>
        <TextInput
          label={recovery ? 'Recovery code' : 'Code from your authenticator app'}
          required
          autoFocus
          autoComplete="one-time-code"
          inputMode={recovery ? 'text' : 'numeric'}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
        />
        <ErrorText error={action.error} />
        <Button type="submit" loading={action.busy} fullWidth>
          Sign in
        </Button>
        <Text size="sm" ta="center">
          <Anchor component="button" type="button" onClick={() => setRecovery(!recovery)}>
            {recovery ? 'Use a code from the app' : 'Use a recovery code'}
          </Anchor>
          {' · '}
          <Anchor component="button" type="button" onClick={props.onRestart}>
            Start again
          </Anchor>
        </Text>
      </Stack>
    </AuthPanel>
  );
}
