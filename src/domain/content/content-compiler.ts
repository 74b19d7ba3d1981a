import { Worker } from 'node:worker_threads';
import { RateLimitedError, ValidationError } from '../shared/errors.ts';
import { FairQueue } from '../shared/fair-queue.ts';
import type { ContentSource } from './compile-content.ts';
import type { ContentWarning } from './content-checks.ts';
import type { CompileRequest, CompileResponse } from './compile-worker.ts';

/** The thread's first message once its libraries are loaded (compile-worker.ts READY; not imported: that module is the thread's). */
const READY = 'ready';

/** How long one compile may take before it is refused (D22: MJML of 256 KB takes about 1.6 s). */
export const COMPILE_TIME_LIMIT_MS = 5_000;

/**
 * Issue 28 H1: the compile thread's turns. Accounts take turns, each charged the thread's time for
 * its requests (a 1.5 s draft sits its account out of the next turns, so another account's small
 * save waits for at most one request of each account ahead of it); an account may have this many
 * requests waiting at once, past which the next is refused with a 429 rather than queued.
 */
export const COMPILE_QUEUE_LIMITS = { quantumMs: 100, waitingPerAccount: 20 } as const;

type Result = string | ContentWarning[];

interface Job {
  request: CompileRequest;
  /** what the 400 of a request past the time limit names, and what it says took too long */
  field: string;
  doing: 'compile' | 'check';
  resolve: (result: Result) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | null;
}

interface CompileThread {
  worker: Worker;
  /** set once the thread has loaded mjml and the rest (loading takes seconds on a busy machine) */
  ready: boolean;
}

/**
 * D22's compile step (compileContent) and the content checks on a thread of their own: MJML of a
 * large draft takes over a second of CPU, and checks read tenant HTML of up to a message part's
 * size; on the HTTP thread either would stall every account's requests (issue 28 C1). The thread
 * starts on first use and again if it dies. It takes one request at a time, in the accounts' turns
 * (FairQueue, issue 28 H1). A request that passes the time limit is refused with a 400, its thread
 * is ended (the only way to stop it), and the requests waiting go to a new one. The limit counts
 * from when the thread is ready and the request is handed to it: loading its libraries and waiting
 * for other requests are not the content's cost.
 */
export class ContentCompiler {
  private thread: CompileThread | null = null;
  private readonly queue = new FairQueue<Job>({ quantum: COMPILE_QUEUE_LIMITS.quantumMs, maxWaitingPerAccount: COMPILE_QUEUE_LIMITS.waitingPerAccount });
  /** The one request the thread is working on: requests go one at a time, so each one's time limit counts its own work, not the queue before it. */
  private inFlight: Job | null = null;
  private nextId = 1;

  constructor(private readonly timeLimitMs = COMPILE_TIME_LIMIT_MS) {}

  /** compileContent's result for `accountId`, or its ValidationError (400 naming `field` and the MJML line). */
  compile(accountId: number, content: ContentSource, layout: ContentSource | null, field: string): Promise<string> {
    return this.enqueue(accountId, { id: this.nextId++, kind: 'compile', content, layout, field }, field, 'compile') as Promise<string>;
  }

  /** The content warnings of a campaign's compiled HTMLs (campaignWarnings), in `accountId`'s turn and within the time limit. */
  checks(accountId: number, htmls: (string | null)[], text: string | null): Promise<ContentWarning[]> {
    return this.enqueue(accountId, { id: this.nextId++, kind: 'checks', htmls, text }, 'checks', 'check') as Promise<ContentWarning[]>;
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.worker.terminate();
  }

  private enqueue(accountId: number, request: CompileRequest, field: string, doing: Job['doing']): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const job: Job = { request, field, doing, resolve, reject, timer: null };
      if (!this.queue.push(accountId, job)) {
        const retryAfter = Math.ceil(this.timeLimitMs / 1000);
        reject(
          new RateLimitedError(
            `${field}: this account already has ${COMPILE_QUEUE_LIMITS.waitingPerAccount} compiles and checks waiting, the most it may queue; retry after the number of seconds in Retry-After`,
            retryAfter,
          ),
        );
        return;
      }
      this.pump();
    });
  }

  /** Hands the next request in the accounts' turns to the thread (starting one if needed) when it is ready and idle. */
  private pump(): void {
    if (this.inFlight !== null || this.queue.waitingCount() === 0) return;
    const thread = this.thread ?? this.start();
    if (!thread.ready) return;
    const job = this.queue.take();
    if (!job) return;
    this.inFlight = job;
    job.timer = setTimeout(() => this.timedOut(job), this.timeLimitMs);
    job.timer.unref();
    thread.worker.postMessage(job.request);
  }

  /** `job` ended: its account is charged `ms` of the thread, and the next request goes. */
  private finish(job: Job, ms: number): void {
    if (job.timer) clearTimeout(job.timer);
    if (this.inFlight === job) this.inFlight = null;
    this.queue.done(job, ms);
  }

  private timedOut(job: Job): void {
    if (this.inFlight !== job) return;
    this.finish(job, this.timeLimitMs);
    job.reject(new ValidationError(`${job.field}: the content took too long to ${job.doing} (over ${this.timeLimitMs / 1000} s); make it smaller`));
    const stuck = this.thread;
    this.thread = null;
    void stuck?.worker.terminate();
    // The others were only waiting behind it: they go to a fresh thread once it is ready.
    this.pump();
  }

  private start(): CompileThread {
    // From the sources (tests, tsx) the thread needs TypeScript loaded; from the bundle, its entry is plain JavaScript beside this code.
    const entry = import.meta.url.endsWith('.ts') ? './compile-worker-from-source.mjs' : './compile-worker.js';
    const worker = new Worker(new URL(entry, import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    const thread: CompileThread = { worker, ready: false };
    worker.on('message', (response: CompileResponse | typeof READY) => {
      if (response === READY) {
        thread.ready = true;
        if (this.thread === thread) this.pump();
        return;
      }
      const job = this.inFlight;
      if (this.thread !== thread || job === null || job.request.id !== response.id) return; // a late answer of an ended thread
      this.finish(job, response.ms);
      if ('html' in response) job.resolve(response.html);
      else if ('warnings' in response) job.resolve(response.warnings);
      else if ('invalid' in response) job.reject(new ValidationError(response.invalid));
      else job.reject(new Error(`compiling the content failed: ${response.failed}`));
      this.pump();
    });
    const fail = (err: unknown) => {
      if (this.thread !== thread) return; // ended on purpose (timedOut, close)
      this.thread = null;
      const failed: Job[] = [];
      if (this.inFlight) {
        failed.push(this.inFlight);
        this.finish(this.inFlight, 0);
      }
      for (let job = this.queue.take(); job !== null; job = this.queue.take()) {
        failed.push(job);
        this.queue.done(job, 0);
      }
      for (const job of failed) job.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the compile thread exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }
}
