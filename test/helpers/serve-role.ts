import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `./bin/sendwell serve --role <role>` as an operator would, over a test server's data
 * (`env`: its `server.env` and the settings under test); once its log matches `ready`, runs
 * `check` with the log so far, then stops it. For what only a real process shows: which role
 * starts which endpoint.
 */
export async function serveRole(role: 'api' | 'sender', env: Record<string, string>, ready: RegExp, check: (log: string) => Promise<void>): Promise<void> {
  const child = spawn('./bin/sendwell', ['serve', '--role', role], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SECRET: 'test-secret', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (ready.test(output)) resolve();
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`exited (${code}) before it ran: ${output.slice(-2000)}`)));
    });
    await check(output);
  } finally {
    child.kill('SIGTERM');
  }
}
