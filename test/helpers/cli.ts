import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How long a CLI test may take: each command starts a Node process with tsx. */
export const CLI_TIMEOUT = 90_000;

/**
 * Runs `./bin/sendwell` as a child process, as an operator would, against a test server's data
 * (`server.env`: DATA_DIR, and DATABASE_URL on PostgreSQL). `stdin` is written and closed.
 */
export function sendwell(args: string[], env: Record<string, string>, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
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
