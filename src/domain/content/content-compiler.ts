import { Worker } from 'node:worker_threads';
import { RateLimitedError, ValidationError } from '../shared/errors.ts';
import { FairQueue } from '../shared/fair-queue.ts';
import type { ContentSource } from './content.ts';
import type { CompileRequest, CompileResponse, ContentChecks } from './compile-worker.ts';

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

type Result = string | ContentChecks;

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
  /** the one request the thread is working on: one at a time, so each one's time limit counts its own work, not the queue before it */
  inFlight: Job | null;
}

/**
 * Compile threads at most (started as the queue needs them). Two, so an account's compile never
 * waits for another account's compile in progress (a 170 KB draft held a neighbour's small save
 * for 0.3-0.6 s on one thread: bench/RESULTS.md, noisy neighbour): with one request in flight per
 * account, whatever one account sends leaves the other thread to the rest.
 */
export const COMPILE_THREADS = 2;

/**
 * D22's compile step (compileContent) and the content checks on threads of their own: MJML of a
 * large draft takes over a second of CPU, and checks read tenant HTML of up to a message part's
 * size; on the HTTP thread either would stall every account's requests (issue 28 C1). Threads
 * start on use and again if one dies. Each takes one request at a time, in the accounts' turns
 * (FairQueue, issue 28 H1), with one request of an account in flight at once. A request that
 * passes the time limit is refused with a 400, its thread is ended (the only way to stop it), and
 * the requests waiting go to the others or a new one. The limit counts from when a ready thread is
 * handed the request: loading its libraries and waiting for other requests are not its cost.
 */
export class ContentCompiler {
  private threads: CompileThread[] = [];
  private readonly queue: FairQueue<Job>;
  private nextId = 1;

  constructor(
    private readonly timeLimitMs = COMPILE_TIME_LIMIT_MS,
    private readonly maxThreads = COMPILE_THREADS,
  ) {
    this.queue = new FairQueue<Job>({
      quantum: COMPILE_QUEUE_LIMITS.quantumMs,
      maxWaitingPerAccount: COMPILE_QUEUE_LIMITS.waitingPerAccount,
      maxInFlightPerAccount: Math.max(1, maxThreads - 1),
    });
  }

  /**
   * compileContent's result for `accountId`, or its ValidationError (400 naming `field` and the
   * MJML line). With `liquidCheck`, the source must parse as Liquid (checkTemplateSyntax,
   * 400 naming `field`) before it compiles, and a result of at most that size after (naming the
   * field "compiled with its layout"): D17.4, off the HTTP thread (issue 28).
   */
  compile(accountId: number, content: ContentSource, layout: ContentSource | null, field: string, liquidCheck?: { resultUpToBytes: number }): Promise<string> {
    return this.enqueue(accountId, { id: this.nextId++, kind: 'compile', content, layout, field, liquidCheck }, field, 'compile') as Promise<string>;
  }

  /**
   * The content warnings of a campaign's compiled HTMLs (campaignWarnings), and the merge fields
   * they, the text and `mergeSources` use (D26.7), in `accountId`'s turn and within the time limit.
   */
  checks(accountId: number, htmls: (string | null)[], text: string | null, mergeSources: (string | null)[] = []): Promise<ContentChecks> {
    return this.enqueue(accountId, { id: this.nextId++, kind: 'checks', htmls, text, mergeSources }, 'checks', 'check') as Promise<ContentChecks>;
  }

  async close(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t.worker.terminate()));
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

  /** Hands the next requests in the accounts' turns to idle ready threads, starting threads while requests wait and fewer than the most run. */
  private pump(): void {
    for (const thread of this.threads) {
      if (!thread.ready || thread.inFlight !== null) continue;
      const job = this.queue.take();
      if (!job) return;
      thread.inFlight = job;
      job.timer = setTimeout(() => this.timedOut(thread, job), this.timeLimitMs);
      job.timer.unref();
      thread.worker.postMessage(job.request);
    }
    const starting = this.threads.filter((t) => !t.ready).length;
    if (this.queue.waitingCount() > starting && this.threads.length < this.maxThreads) this.start();
  }

  /** `job` ended on `thread`: its account is charged `ms` of the thread, and the next request goes. */
  private finish(thread: CompileThread, job: Job, ms: number): void {
    if (job.timer) clearTimeout(job.timer);
    if (thread.inFlight === job) thread.inFlight = null;
    this.queue.done(job, ms);
  }

  private timedOut(thread: CompileThread, job: Job): void {
    if (thread.inFlight !== job) return;
    this.finish(thread, job, this.timeLimitMs);
    job.reject(new ValidationError(`${job.field}: the content took too long to ${job.doing} (over ${this.timeLimitMs / 1000} s); make it smaller`));
    this.threads = this.threads.filter((t) => t !== thread);
    void thread.worker.terminate();
    // The others were only waiting behind it: they go to another thread, or a fresh one once it is ready.
    this.pump();
  }

  private start(): CompileThread {
    // From the sources (tests, tsx) the thread needs TypeScript loaded; from the bundle, its entry is plain JavaScript beside this code.
    const entry = import.meta.url.endsWith('.ts') ? './compile-worker-from-source.mjs' : './compile-worker.js';
    const worker = new Worker(new URL(entry, import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    const thread: CompileThread = { worker, ready: false, inFlight: null };
    const alive = () => this.threads.includes(thread);
    worker.on('message', (response: CompileResponse | typeof READY) => {
      if (response === READY) {
        thread.ready = true;
        if (alive()) this.pump();
        return;
      }
      const job = thread.inFlight;
      if (!alive() || job === null || job.request.id !== response.id) return; // a late answer of an ended thread
      this.finish(thread, job, response.ms);
      if ('html' in response) job.resolve(response.html);
      else if ('warnings' in response) job.resolve({ warnings: response.warnings, mergeFields: response.mergeFields });
      else if ('invalid' in response) job.reject(new ValidationError(response.invalid));
      else job.reject(new Error(`compiling the content failed: ${response.failed}`));
      this.pump();
    });
    // A thread that dies (out of memory, say) takes its request and every waiting one with it:
    // what killed it may be waiting too. Requests in flight on the other threads finish.
    const fail = (err: unknown) => {
      if (!alive()) return; // ended on purpose (timedOut, close)
      this.threads = this.threads.filter((t) => t !== thread);
      const failed: Job[] = [];
      if (thread.inFlight) {
        failed.push(thread.inFlight);
        this.finish(thread, thread.inFlight, 0);
      }
      failed.push(...this.queue.drainWaiting());
      for (const job of failed) job.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the compile thread exited (code ${code})`)));
    this.threads.push(thread);
    return thread;
  }
}
