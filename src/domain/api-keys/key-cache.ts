import { LRUCache } from 'lru-cache';
import type { Plan } from '../accounts/plans.ts';

/** What an authenticated request carries about its key; cached by key hash. */
export interface AuthenticatedKey {
  keyId: number;
  /** the key's name, the audit log's label for it (D24.8) */
  name: string;
  accountId: number;
  plan: Plan;
  permissions: ReadonlySet<string>;
  status: string;
  expiresAtMs: number | null;
}

/**
 * Key lookups are cached so an authenticated read does no database work for the key.
 * A missing key is cached as `null` too (a new key always has a new hash, so that is safe).
 * The key service invalidates an entry whenever the key changes; `onInvalidate` listeners let
 * other processes be told (the scale-out setup broadcasts through Redis). The TTL bounds how
 * stale an entry can be if a broadcast is ever missed.
 */
export class KeyCache {
  private readonly entries = new LRUCache<string, { value: AuthenticatedKey | null }>({ max: 50_000, ttl: 60_000 });
  private readonly listeners: ((hash: string) => void)[] = [];

  get(hash: string): AuthenticatedKey | null | undefined {
    return this.entries.get(hash)?.value;
  }

  set(hash: string, value: AuthenticatedKey | null): void {
    this.entries.set(hash, { value });
  }

  /** Drops the entry here and tells every listener (which may tell other processes). */
  invalidate(hash: string): void {
    this.entries.delete(hash);
    for (const listener of this.listeners) listener(hash);
  }

  /** Drops the entry here only: for invalidations that arrive from another process. */
  forget(hash: string): void {
    this.entries.delete(hash);
  }

  onInvalidate(listener: (hash: string) => void): void {
    this.listeners.push(listener);
  }
}
