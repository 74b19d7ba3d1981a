import { generateKeyPair } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { FairQueue, type AccountKey } from '../shared/fair-queue.ts';
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

interface Job {
  resolve(pair: DkimKeyPair): void;
  reject(err: unknown): void;
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
  private readonly queue = new FairQueue<Job>({ quantum: 1, maxWaitingPerAccount: DKIM_KEYS_WAITING_PER_ACCOUNT });
  private busy = false;
  /** a running estimate of one key's time, for Retry-After */
  private averageMs = 250;

  constructor(private readonly make: () => Promise<DkimKeyPair> = makeRsa2048) {}

  /** The account's next key, when its turn comes; KeyQueueFullError at once when it has too many waiting. */
  generate(account: AccountKey): Promise<DkimKeyPair> {
    return new Promise((resolve, reject) => {
      if (!this.queue.push(account, { resolve, reject })) {
        const seconds = Math.ceil(((this.queue.waitingCount() + 1) * this.averageMs) / 1000);
        reject(new KeyQueueFullError(Math.max(1, seconds)));
        return;
      }
      this.next();
    });
  }

  private next(): void {
    if (this.busy) return;
    const job = this.queue.take();
    if (!job) return;
    this.busy = true;
    const started = performance.now();
    this.make()
      .then(job.resolve, job.reject)
      .finally(() => {
        this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
        this.queue.done(job, 1);
        this.busy = false;
        this.next();
      });
  }
}

/** The one generator of the process (see the class). */
export const dkimKeys = new DkimKeyGenerator();
