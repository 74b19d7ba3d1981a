import { execFile } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How long a CLI test may take: a command's own work, and a process start for `sendwellProcess`. */
export const CLI_TIMEOUT = 90_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it, as text. */
function collector(): Writable & { text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return Object.assign(stream, { text: () => Buffer.concat(chunks).toString('utf8') });
}

/**
 * Runs a `sendwell` command line in this process, through the same entry `bin/sendwell` calls
 * (runCli), against a test server's data (`server.env`: DATA_DIR, and DATABASE_URL on
 * PostgreSQL); `stdin` is its whole input. A process per command cost about two seconds each;
 * `sendwellProcess` keeps a few true runs of the script.
 */
export async function sendwell(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(['node', 'sendwell', ...args], {
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env },
    stdin: Readable.from([stdin ?? '']),
    stdout,
    stderr,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs `./bin/sendwell` as a child process, as an operator would; `stdin` is written and closed. */
export function sendwellProcess(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      './bin/sendwell',
      args,
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
    child.stdin?.end(stdin ?? '');
  });
}
