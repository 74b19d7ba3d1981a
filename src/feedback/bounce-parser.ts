import { MessageChannel } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import { FairScheduler } from '../domain/shared/fair-queue.ts';
import { WARM, type BounceParseTask } from './bounce-parse-thread.ts';
import type { BounceMessage } from './bounce-report.ts';

/** Messages parsed at once: bounces come in a trickle, and a hostile one may use a thread for its whole time limit. */
export const BOUNCE_PARSE_THREADS = 2;
/** Messages of one sender waiting for a thread; past it the sender is told to try again later. */
export const BOUNCE_PARSE_QUEUE_PER_SENDER = 2;

/** What reading a message came to: its report, stopped at the time limit, or refused with one sender's queue full. */
export type ParseResult = { kind: 'parsed'; message: BounceMessage } | { kind: 'stopped'; reason: string } | { kind: 'busy'; reason: string };

/**
 * Issue 28: received bounce messages (the SMTP receiver's and the mailbox's) are parsed on a small
 * pool of threads, never on the main thread, where a message crafted to parse slowly would stall
 * every request. Each parse has `timeLimitMs` from when its thread begins it; past that the
 * thread is ended (piscina terminates the worker on abort), so the limit really stops the work,
 * and a fresh thread takes the next message. Messages wait in the one fair scheduler, keyed by
 * sender (the connecting address, or the mailbox): senders take turns, one sender has at most one
 * message in parse, so the other thread stays free for everyone else, and at most
 * BOUNCE_PARSE_QUEUE_PER_SENDER waiting.
 */
export class BounceParser {
  private pool: Piscina | null = null;
  private starting: Promise<Piscina> | null = null;
  private readonly parses = new FairScheduler({ quantum: 1, slots: BOUNCE_PARSE_THREADS, charge: 'turn', maxInFlightPerAccount: 1, maxWaitingPerAccount: BOUNCE_PARSE_QUEUE_PER_SENDER });
  private closed = false;

  constructor(
    readonly timeLimitMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts the threads, resolving once each has loaded mailparser and parsed a sample: processes
   * that receive no bounces never start them, and the first message does not wait for them.
   */
  start(): Promise<Piscina> {
    this.starting ??= this.open().catch((err: unknown) => {
      this.starting = null; // the next message tries again
      throw err;
    });
    return this.starting;
  }

  /** Reads `source`, a message received from `sender`, on a parse thread. */
  parse(source: Buffer, sender: string): Promise<ParseResult> {
    const parsed = this.parses.schedule(sender, () => this.run(source));
    return parsed ?? Promise.resolve({ kind: 'busy', reason: `${BOUNCE_PARSE_QUEUE_PER_SENDER} messages from ${sender} already wait to be read` });
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    this.starting = null;
    await pool?.destroy();
  }

  private async run(source: Buffer): Promise<ParseResult> {
    if (this.closed) throw new Error('the bounce parser is closed');
    const pool = await this.start();
    const abort = new AbortController();
    // The limit counts from when the thread begins the parse: starting a thread (after one was
    // ended) and loading mailparser are not the message's cost.
    const { port1, port2 } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      timer = setTimeout(() => abort.abort(), this.timeLimitMs);
    });
    // Its own copy of the bytes, handed over rather than copied again.
    const bytes = new Uint8Array(source);
    const task: BounceParseTask = { source: bytes, started: port2 };
    try {
      const message: BounceMessage = await pool.run(task, { signal: abort.signal, transferList: [bytes.buffer, port2] });
      return { kind: 'parsed', message };
    } catch (err) {
      if (abort.signal.aborted) return { kind: 'stopped', reason: `not parsed within ${this.timeLimitMs} ms` };
      throw err;
    } finally {
      clearTimeout(timer);
      port1.close();
    }
  }

  private async open(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    // From the sources (tests, tsx) the thread needs TypeScript loaded; from the bundle, its entry is plain JavaScript beside this code.
    const entry = import.meta.url.endsWith('.ts') ? './bounce-parse-worker-from-source.mjs' : './bounce-parse-worker.js';
    const pool = new Piscina({
      filename: new URL(entry, import.meta.url).href,
      // Both kept, and a thread ended at the limit replaced at once, so a message never waits for one to load.
      minThreads: BOUNCE_PARSE_THREADS,
      maxThreads: BOUNCE_PARSE_THREADS,
      // A 1 MB message parses in well under this; a message that needs more ends its thread, and is answered as a failure.
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    this.pool = pool;
    pool.on('error', (err: unknown) => this.logger.error({ err }, 'a bounce parse thread failed'));
    await new Promise<void>((resolve, reject) => {
      let warm = 0;
      const failed = (err: unknown) => reject(err);
      pool.once('error', failed);
      pool.on('message', (message: unknown) => {
        if (message === WARM && ++warm === BOUNCE_PARSE_THREADS) {
          pool.off('error', failed);
          resolve();
        }
      });
    }).catch(async (err: unknown) => {
      this.pool = null;
      await pool.destroy();
      throw err;
    });
    return pool;
  }
}
