import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A child process the benchmark started; stopped with SIGTERM so it can shut down cleanly. */
export interface Proc {
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr go to this file (or are dropped when absent). */
  logFile?: string;
}

export function startProcess(command: string, args: string[], opts: StartOptions): Proc {
  const fd = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', fd, fd] });
  if (typeof fd === 'number') closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    pid: child.pid,
    exited,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs a command to completion and returns its stdout; throws with its output on failure. */
export function runCommand(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${err.trim() || out.trim()}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200, or fails after `timeoutMs` (or when the process dies). */
export async function waitForHttp(url: string, proc: Proc, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`process ${proc.pid} exited before ${url} answered`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may contain spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}
