import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads data when `deps` change; keeps the last data while reloading, so pages do not flash. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const run = useCallback(async () => {
    const id = ++latest.current;
    setLoading(true);
    try {
      const value = await load();
      if (id === latest.current) {
        setData(value);
        setError(null);
      }
    } catch (err) {
      if (id === latest.current) setError(errorText(err));
    } finally {
      if (id === latest.current) setLoading(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    void run();
  }, [run]);
  return { data, error, loading, reload: run };
}

/** Runs `tick` every `ms` while `active`. */
export function usePolling(active: boolean, ms: number, tick: () => void): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

/** An action's busy flag and error in words, for buttons and forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (err) {
      setError(errorText(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
