import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiFailure, onSignedOut, session as sessionApi, setCsrfToken, type Schemas } from './api.ts';

export type SessionInfo = Schemas['SessionInfo'];

interface SessionState {
  session: SessionInfo | null;
  checking: boolean;
  signIn(email: string, password: string): Promise<void>;
  /** Signed in at once (null), or the address the confirmation link went to. */
  signUp(email: string, password: string, accountName: string): Promise<{ mailSentTo: string } | null>;
  /** Follows a sign-up's mailed link: the account is created and signed in. */
  confirmSignUp(token: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [checking, setChecking] = useState(true);

  const adopt = useCallback((info: SessionInfo | null) => {
    setCsrfToken(info?.csrf_token ?? null);
    setSession(info);
  }, []);

  useEffect(() => {
    sessionApi.me()
      .then(adopt, (err) => {
        if (!(err instanceof ApiFailure) || err.status !== 401) console.warn(err);
        adopt(null);
      })
      .finally(() => setChecking(false));
    return onSignedOut(() => adopt(null));
  }, [adopt]);

  const value: SessionState = {
    session,
    checking,
    signIn: async (email, password) => adopt(await sessionApi.signIn({ email, password })),
    signUp: async (email, password, accountName) => {
      const answer = await sessionApi.signUp({ email, password, account_name: accountName || null });
      if ('confirmation' in answer) return { mailSentTo: answer.email };
      adopt(answer);
      return null;
    },
    confirmSignUp: async (token) => adopt(await sessionApi.confirmSignUp(token)),
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
