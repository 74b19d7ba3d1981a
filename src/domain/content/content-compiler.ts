import { Worker } from 'node:worker_threads';
import { ValidationError } from '../shared/errors.ts';
import type { ContentSource } from './compile-content.ts';
import type { CompileRequest, CompileResponse } from './compile-worker.ts';

/** How long one compile may take before it is refused (D22: MJML of 256 KB takes about 1.6 s). */
export const COMPILE_TIME_LIMIT_MS = 5_000;

interface Pending {
  request: CompileRequest;
  resolve: (html: string) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * D22's compile step (compileContent) on a thread of its own: MJML of a large draft takes over a
 * second of CPU, which on the HTTP thread would stall every account's requests. The thread starts
 * on first use and again if it dies. A compile that passes the time limit is refused with a 400,
 * its thread is ended (the only way to stop it), and the compiles queued behind it go to a new one.
 */
export class ContentCompiler {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly timeLimitMs = COMPILE_TIME_LIMIT_MS) {}

  /** compileContent's result, or its ValidationError (400 naming `field` and the MJML line). */
  compile(content: ContentSource, layout: ContentSource | null, field: string): Promise<string> {
    const request: CompileRequest = { id: this.nextId++, content, layout, field };
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => this.timedOut(request.id), this.timeLimitMs);
      timer.unref();
      this.pending.set(request.id, { request, resolve, reject, timer });
      (this.worker ?? this.start()).postMessage(request);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private timedOut(id: number): void {
    const late = this.pending.get(id);
    if (!late) return;
    this.pending.delete(id);
    late.reject(new ValidationError(`${late.request.field}: the content took too long to compile (over ${this.timeLimitMs / 1000} s); make it smaller`));
    const stuck = this.worker;
    this.worker = null;
    void stuck?.terminate();
    // The others were only waiting behind it: they start again on a fresh thread, timers restarted.
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.timer = setTimeout(() => this.timedOut(waiting.request.id), this.timeLimitMs);
      waiting.timer.unref();
      (this.worker ?? this.start()).postMessage(waiting.request);
    }
  }

  private start(): Worker {
    // From the sources (tests, tsx) the thread needs TypeScript loaded; from the bundle, its entry is plain JavaScript beside this code.
    const entry = import.meta.url.endsWith('.ts') ? './compile-worker-from-source.mjs' : './compile-worker.js';
    const worker = new Worker(new URL(entry, import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    worker.on('message', (response: CompileResponse) => {
      const waiting = this.pending.get(response.id);
      if (!waiting) return;
      this.pending.delete(response.id);
      clearTimeout(waiting.timer);
      if ('html' in response) waiting.resolve(response.html);
      else if ('invalid' in response) waiting.reject(new ValidationError(response.invalid));
      else waiting.reject(new Error(`compiling the content failed: ${response.failed}`));
    });
    const fail = (err: unknown) => {
      if (this.worker !== worker) return; // ended on purpose (timedOut, close)
      this.worker = null;
      for (const waiting of this.pending.values()) {
        clearTimeout(waiting.timer);
        waiting.reject(err);
      }
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the compile thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
