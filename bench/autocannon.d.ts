// Minimal types for the parts of autocannon's programmatic API the load generator uses.
declare module 'autocannon' {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request | null;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    sent?: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9?: number;
  }
  export interface Result {
    duration: number;
    start: Date | string;
    finish: Date | string;
    connections: number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  /** Without a callback: an event emitter ('start', 'tick', 'done') that is also a promise of the result. */
  export interface Instance extends PromiseLike<Result> {
    on(event: 'start', listener: () => void): this;
    stop(): void;
  }
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
