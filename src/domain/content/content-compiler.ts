import { Worker } from 'node:worker_threads';
import { ValidationError } from '../shared/errors.ts';
import type { ContentSource } from './compile-content.ts';
import type { CompileRequest, CompileResponse } from './compile-worker.ts';

/** The thread's first message once its libraries are loaded (compile-worker.ts READY; not imported: that module is the thread's). */
const READY = 'ready';

/** How long one compile may take before it is refused (D22: MJML of 256 KB takes about 1.6 s). */
export const COMPILE_TIME_LIMIT_MS = 5_000;

interface Pending {
  request: CompileRequest;
  resolve: (html: string) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | null;
}

interface CompileThread {
  worker: Worker;
  /** set once the thread has loaded mjml and the rest (loading takes seconds on a busy machine) */
  ready: boolean;
}

/**
 * D22's compile step (compileContent) on a thread of its own: MJML of a large draft takes over a
 * second of CPU, which on the HTTP thread would stall every account's requests. The thread starts
 * on first use and again if it dies. A compile that passes the time limit is refused with a 400,
 * its thread is ended (the only way to stop it), and the compiles queued behind it go to a new one.
 * The limit counts from when the thread is ready: loading its libraries is not the content's cost.
 */
export class ContentCompiler {
  private thread: CompileThread | null = null;
  private readonly pending = new Map<number, Pending>();
  /** The one request the thread is working on: requests go one at a time, so each one's time limit counts its own compile, not the queue before it. */
  private inFlight: number | null = null;
  private nextId = 1;

  constructor(private readonly timeLimitMs = COMPILE_TIME_LIMIT_MS) {}

  /** compileContent's result, or its ValidationError (400 naming `field` and the MJML line). */
  compile(content: ContentSource, layout: ContentSource | null, field: string): Promise<string> {
    const request: CompileRequest = { id: this.nextId++, content, layout, field };
    return new Promise<string>((resolve, reject) => {
      const waiting: Pending = { request, resolve, reject, timer: null };
      this.pending.set(request.id, waiting);
      this.pump();
    });
  }

  /** Hands the oldest waiting request to the thread (starting one if needed) when it is ready and idle. */
  private pump(): void {
    const next = this.pending.values().next().value;
    if (!next) return;
    const thread = this.thread ?? this.start();
    if (!thread.ready || this.inFlight !== null) return;
    this.inFlight = next.request.id;
    this.post(thread, next);
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.worker.terminate();
  }

  private post(thread: CompileThread, waiting: Pending): void {
    if (waiting.timer) clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => this.timedOut(waiting.request.id), this.timeLimitMs);
    waiting.timer.unref();
    thread.worker.postMessage(waiting.request);
  }

  private timedOut(id: number): void {
    const late = this.pending.get(id);
    if (!late) return;
    this.pending.delete(id);
    late.reject(new ValidationError(`${late.request.field}: the content took too long to compile (over ${this.timeLimitMs / 1000} s); make it smaller`));
    const stuck = this.thread;
    this.thread = null;
    this.inFlight = null;
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
      const waiting = this.pending.get(response.id);
      if (this.inFlight === response.id) this.inFlight = null;
      if (waiting) {
        this.pending.delete(response.id);
        if (waiting.timer) clearTimeout(waiting.timer);
        if ('html' in response) waiting.resolve(response.html);
        else if ('invalid' in response) waiting.reject(new ValidationError(response.invalid));
        else waiting.reject(new Error(`compiling the content failed: ${response.failed}`));
      }
      if (this.thread === thread) this.pump();
    });
    const fail = (err: unknown) => {
      if (this.thread !== thread) return; // ended on purpose (timedOut, close)
      this.thread = null;
      this.inFlight = null;
      for (const waiting of this.pending.values()) {
        if (waiting.timer) clearTimeout(waiting.timer);
        waiting.reject(err);
      }
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the compile thread exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }
}
