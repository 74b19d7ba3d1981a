import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, runCommand } from './proc.ts';

/** What bench/load.ts is asked to do. */
export interface LoadSpec {
  url: string;
  connections: number;
  durationSec: number;
  headers?: Record<string, string>;
  /** GET these paths in turn (each connection cycles through the list). */
  paths?: string[];
  /**
   * POST a JSON body with a new e-mail `<emailPrefix>-<n>@bench.example` per request; with
   * `idempotencyKeyPrefix`, each request also carries a new Idempotency-Key `<prefix>-<n>` (D25.6).
   */
  post?: { path: string; emailPrefix: string; extra?: Record<string, unknown>; idempotencyKeyPrefix?: string };
}

export interface LoadResult {
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** responses completed and requests sent during the measured window */
  completed: number;
  sent: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** the measured window: from autocannon's 'start' (after it has built its requests) to its finish */
  durationSec: number;
  /** CPU seconds used during the window by the load generator and by the server (if its pid was given) */
  loadCpuSeconds: number;
  serverCpuSeconds: number | null;
}

/** Runs bench/load.ts as a child process and reads its figures. */
export async function runLoad(repoDir: string, spec: LoadSpec, serverPid?: number): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sendwell-load-'));
  const file = join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  try {
    const serverCpuBefore = serverPid ? cpuSeconds(serverPid) : null;
    const out = await runCommand(process.execPath, ['--import', 'tsx', 'bench/load.ts', file], { cwd: repoDir });
    const serverCpuAfter = serverPid ? cpuSeconds(serverPid) : null;
    const r = JSON.parse(out.trim().split('\n').pop()!);
    return {
      // Responses over the measured window (autocannon's own figure is a mean of per-second samples).
      reqPerSec: r.requests.total / r.measuredSec,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      completed: r.requests.total,
      sent: r.requests.sent,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      durationSec: r.measuredSec,
      loadCpuSeconds: r.loadCpuSeconds,
      serverCpuSeconds: serverCpuBefore !== null && serverCpuAfter !== null ? serverCpuAfter - serverCpuBefore : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
