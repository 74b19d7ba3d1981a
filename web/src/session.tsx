import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiFailure, onSignedOut, session as sessionApi, setCsrfToken, type Schemas } from './api.ts';
import { setDisplayZone } from './format.ts';

export type SessionInfo = Schemas['SessionInfo'];

interface SessionState {
  session: SessionInfo | null;
  checking: boolean;
  /** Signed in (null), or D24.6's challenge when the user has two-factor sign-in. */
  signIn(email: string, password: string): Promise<{ challenge: string } | null>;
  /** D24.6: the second step, with a code from the app or a recovery code. */
  signInWithCode(challenge: string, code: { code: string } | { recovery_code: string }): Promise<void>;
  /** D24.3: sets the invited member's password; the invitation signs it in. */
  acceptInvitation(token: string, password: string): Promise<void>;
  /** Signed in at once (null), or the address the confirmation link went to. */
  signUp(email: string, password: string, accountName: string): Promise<{ mailSentTo: string } | null>;
  /** Follows a sign-up's mailed link: the account is created and signed in. */
  confirmSignUp(token: string): Promise<void>;
  signOut(): Promise<void>;
  /** Reads the session again: after a change to the account (its time zone, issue 34). */
  refresh(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [checking, setChecking] = useState(true);

  const adopt = useCallback((info: SessionInfo | null) => {
    setCsrfToken(info?.csrf_token ?? null);
    // Issue 34: every date from here on is shown in the account's zone.
    setDisplayZone(info?.account.time_zone);
    setSession(info);
  }, []);

  useEffect(() => {
    // Issue 34: a probe that answers 200 signed out too (a 401 would be a console error on every signed-out load).
    sessionApi.probe()
      .then((answer) => adopt(answer.session), (err) => {
        if (!(err instanceof ApiFailure) || err.status !== 401) console.warn(err);
        adopt(null);
      })
      .finally(() => setChecking(false));
    return onSignedOut(() => adopt(null));
  }, [adopt]);

  const value: SessionState = {
    session,
    checking,
    signIn: async (email, password) => {
      const answer = await sessionApi.signIn({ email, password });
      if ('two_factor_required' in answer) return { challenge: answer.challenge };
      adopt(answer);
      return null;
    },
    signInWithCode: async (challenge, code) => adopt(await sessionApi.signInWithCode({ challenge, ...code })),
    acceptInvitation: async (token, password) => adopt(await sessionApi.acceptInvitation({ token, password })),
    signUp: async (email, password, accountName) => {
      const answer = await sessionApi.signUp({ email, password, account_name: accountName || null });
      if ('confirmation' in answer) return { mailSentTo: answer.email };
      adopt(answer);
      return null;
    },
    confirmSignUp: async (token) => adopt(await sessionApi.confirmSignUp(token)),
    refresh: async () => adopt(await sessionApi.me()),
    signOut: async () => {
      try {
        await sessionApi.signOut();
      } finally {
        adopt(null);
      }
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
