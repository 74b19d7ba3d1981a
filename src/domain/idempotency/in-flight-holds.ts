import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * D25.6: "the same key while the first request still runs: 409". A hold marks a key of an account
 * as running. It only decides who is answered 409 at once: what decides which of two requests
 * commits is the key's primary key in the database (idempotency.repo.ts keepAnswer).
 */
export interface InFlightHolds {
  /** The hold on the account's key, or null when a request holds it already. */
  take(accountId: number, key: string): Promise<Hold | null>;
}

export interface Hold {
  release(): Promise<void>;
}

/** One process (SQLite, or no REDIS_URL): the holds are this process's own. */
export class MemoryHolds implements InFlightHolds {
  private readonly held = new Set<string>();

  async take(accountId: number, key: string): Promise<Hold | null> {
    const id = `${accountId}\n${key}`;
    if (this.held.has(id)) return null;
    this.held.add(id);
    return { release: async () => void this.held.delete(id) };
  }
}

/** Deletes the hold only while it is still this request's (it may have expired and been taken again). */
const RELEASE_IF_OURS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Every instance sharing REDIS_URL sees the same holds: SET NX with an expiry, so a hold whose
 * process died (SIGKILL) lapses after `ttlMs` instead of refusing the key for good.
 */
export class RedisHolds implements InFlightHolds {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  async take(accountId: number, key: string): Promise<Hold | null> {
    // Hashed: the key is the client's text, up to 255 characters; the Redis key stays short and plain.
    const redisKey = `${this.prefix}idempotency:${accountId}:${createHash('sha256').update(key).digest('hex')}`;
    const token = randomBytes(12).toString('hex');
    const taken = await this.client.set(redisKey, token, 'PX', this.ttlMs, 'NX');
    if (taken !== 'OK') return null;
    return { release: async () => void (await this.client.eval(RELEASE_IF_OURS, 1, redisKey, token)) };
  }
}
