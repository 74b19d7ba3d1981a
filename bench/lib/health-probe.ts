import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context.ts';
import { startProcess } from './proc.ts';

/**
 * A client of bench/health-poller.ts (a /health prober in a process of its own, with sub-ms
 * latencies and every sample kept), for benchmarks that measure /health while a server works.
 */

/** [epoch ms when sent, latency ms, HTTP status (0: failed, -1: unanswered at the stop)] */
export type HealthSample = [sentAt: number, latencyMs: number, status: number];

export interface HealthLatency {
  count: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
}

export function healthLatencyOf(samples: HealthSample[]): HealthLatency {
  const sorted = samples.map((s) => s[1]).sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
  return { count: sorted.length, failed: samples.filter((s) => s[2] !== 200).length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

/** Starts the prober on `${url}/health` (`connections` keep-alive connections, `pauseMs` after each answer); `stop()` hands back its samples. */
export function startHealthProbe(ctx: BenchContext, url: string, name: string, connections: number, pauseMs: number): { stop(): Promise<HealthSample[]> } {
  const outFile = join(ctx.workDir, `${name}-samples.json`);
  const proc = startProcess(process.execPath, ['--import', 'tsx', 'bench/health-poller.ts', `${url}/health`, String(connections), String(pauseMs), outFile], {
    cwd: ctx.repoDir,
    logFile: join(ctx.workDir, `${name}-poller.log`),
  });
  return {
    async stop() {
      const code = await proc.stop();
      if (code !== 0) throw new Error(`the health poller exited with ${code}: see ${name}-poller.log`);
      return JSON.parse(readFileSync(outFile, 'utf8')) as HealthSample[];
    },
  };
}
