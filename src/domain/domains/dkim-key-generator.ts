import { generateKeyPair } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { FairScheduler, type AccountKey } from '../shared/fair-queue.ts';
import { RateLimitedError } from '../shared/errors.ts';

const generateRsaKeyPair = promisify(generateKeyPair);

export interface DkimKeyPair {
  /** SPKI, DER: what the DKIM record publishes (base64) */
  publicKey: Buffer;
  /** PKCS#8, PEM: what signs */
  privateKey: string;
}

/** Issue 28 M1: the keys one account may have waiting for the generator; past it, 429 with Retry-After. */
export const DKIM_KEYS_WAITING_PER_ACCOUNT = 10;

/** The account already has DKIM_KEYS_WAITING_PER_ACCOUNT keys waiting: the shared queues' one refusal (429 with Retry-After). */
export class KeyQueueFullError extends RateLimitedError {
  constructor(retryAfterSeconds: number) {
    super(`this account already has ${DKIM_KEYS_WAITING_PER_ACCOUNT} sending domains waiting for their DKIM key; retry after the number of seconds in Retry-After`, retryAfterSeconds);
  }
}

export const makeRsa2048 = (): Promise<DkimKeyPair> =>
  generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

/**
 * Issue 28 M1: every DKIM key of the process is made here, one at a time. Node makes an RSA key
 * on libuv's thread pool (4 threads), which static files, argon2 sign-ins and image work share:
 * keys made as fast as requests came took all four. Made one at a time they hold at most one
 * thread, and the accounts waiting take turns (FairQueue, one key a turn), so one account adding
 * many domains at once delays another's by about two keys (the one being made and one more), not all of them.
 */
export class DkimKeyGenerator {
  private readonly keys = new FairScheduler({ quantum: 1, slots: 1, charge: 'turn', maxWaitingPerAccount: DKIM_KEYS_WAITING_PER_ACCOUNT });
  /** a running estimate of one key's time, for Retry-After */
  private averageMs = 250;

  constructor(private readonly make: () => Promise<DkimKeyPair> = makeRsa2048) {}

  /** The account's next key, when its turn comes; KeyQueueFullError at once when it has too many waiting. */
  generate(account: AccountKey): Promise<DkimKeyPair> {
    const key = this.keys.schedule(account, () => this.timed());
    if (key) return key;
    const seconds = Math.ceil(((this.keys.waiting + 1) * this.averageMs) / 1000);
    return Promise.reject(new KeyQueueFullError(Math.max(1, seconds)));
  }

  private async timed(): Promise<DkimKeyPair> {
    const started = performance.now();
    try {
      return await this.make();
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
    }
  }
}

/** The one generator of the process (see the class). */
export const dkimKeys = new DkimKeyGenerator();
