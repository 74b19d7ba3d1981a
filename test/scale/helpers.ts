import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How a spawned process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A real `./bin/sendwell serve` process. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Its stdout and stderr so far, for failure messages. */
  output(): string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<ProcessExit>;
  /** SIGKILL, then waits for it to exit. */
  kill(): Promise<ProcessExit>;
  exited: Promise<ProcessExit>;
}

const running = new Set<ServerProcess>();
const OUTPUT_KEPT = 200_000;

/**
 * Starts `./bin/sendwell serve` from the repository root on a free port, over the data of a
 * harness server (`server.env`: DATA_DIR, and in the scale-out run DATABASE_URL, REDIS_URL and
 * REDIS_PREFIX), and resolves once it logs that it is listening.
 */
export async function spawnServer(dataEnv: Record<string, string>, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  const child: ChildProcess = spawn('./bin/sendwell', ['serve'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      // Nothing of this test process's own configuration leaks in: only the harness server's data.
      DATABASE_URL: '',
      REDIS_URL: '',
      REDIS_PREFIX: '',
      ...dataEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SECRET: 'test-secret',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT);
  };
  // Both pipes are read to the end, so a chatty access log never blocks the process on a full pipe.
  child.stderr!.on('data', keep);

  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const url = await new Promise<string>((resolve, reject) => {
    let pending = '';
    let settled = false;
    const timer = setTimeout(() => fail(new Error('no "sendwell listening" line within 20 s')), 20_000);
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- output ---\n${output}`));
    };
    child.once('error', fail);
    void exited.then((exit) => fail(new Error(`sendwell serve exited before listening (${JSON.stringify(exit)})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (settled) return;
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (!settled && entry.msg === 'sendwell listening' && typeof entry.url === 'string') {
            settled = true;
            clearTimeout(timer);
            resolve(entry.url);
            return;
          }
        } catch {
          // not a JSON log line
        }
      }
    });
  });

  const signal = (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    return exited;
  };
  const proc: ServerProcess = {
    url,
    pid: child.pid!,
    output: () => output,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    exited,
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/** For afterAll: kills every process this file started that is still running. */
export async function killLeftovers(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** An HTTP failure without a response, with the Node error code (ECONNREFUSED, ECONNRESET, ...). */
export class NoResponseError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One request through node:http, so a failure keeps its exact error code. Keep-alive by default
 * (pass an agent), as a real client talking to the service would.
 */
export function httpRequest(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; agent?: http.Agent; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers['x-api-key'] = opts.key;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request(new URL(path, baseUrl), { method, headers, agent: opts.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err: NodeJS.ErrnoException) => reject(new NoResponseError(err.code ?? 'UNKNOWN', err.message)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => reject(new NoResponseError(err.code ?? 'UNKNOWN', err.message)));
    req.end(body);
  });
}
