import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiFailure, get, onSignedOut, post, setCsrfToken } from './api.ts';

export interface SessionInfo {
  user: { id: number; email: string; account_id: number };
  account: { id: number; name: string; plan: string };
  csrf_token: string;
}

interface SessionState {
  session: SessionInfo | null;
  checking: boolean;
  signIn(email: string, password: string): Promise<void>;
  signUp(email: string, password: string, accountName: string): Promise<void>;
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
    get<SessionInfo>('/api/v1/auth/me')
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
    signIn: async (email, password) => adopt(await post<SessionInfo>('/api/v1/auth/login', { email, password })),
    signUp: async (email, password, accountName) => adopt(await post<SessionInfo>('/api/v1/auth/signup', { email, password, account_name: accountName || null })),
    signOut: async () => {
      try {
        await post('/api/v1/auth/logout');
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
