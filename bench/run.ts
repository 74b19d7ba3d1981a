/**
 * `npm run bench`: the one entry for every benchmark. Each benchmark is a module exporting a
 * function (see lib/context.ts); it starts what it needs as separate processes (servers, and the
 * autocannon load generator in bench/load.ts), measures against a baseline in the same run, and
 * returns its section of bench/RESULTS.md, which this script rewrites in place.
 *
 *   npm run bench                          all benchmarks, results recorded
 *   npm run bench -- --only api            one benchmark
 *   BENCH_SEND_DKIM=1 npm run bench -- --only sending   the sending benchmark with DKIM signing on (D23)
 *   npm run bench -- --duration 10 --rounds 5 --warmup 3 --connections 50   (the defaults)
 *   npm run bench -- --only api --profile  server under --cpu-prof; prints hot spots, records nothing
 *   npm run bench -- --no-record           print the section instead of writing RESULTS.md
 *   npm run bench -- --wait-idle 600       first wait (up to 600 s) until the machine is idle
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { apiBench } from './api.ts';
import { audiencesBench } from './audiences.ts';
import { bulkBench } from './bulk.ts';
import { idempotencyBench } from './idempotency.ts';
import { noisyNeighbourBench } from './noisy-neighbour.ts';
import { pacingBench } from './pacing.ts';
import { runnerHealthBench } from './runner-health.ts';
import { scaleBench } from './scale.ts';
import { sendingBench } from './sending.ts';
import { transactionalBench } from './transactional.ts';
import { serversBench } from './servers.ts';
import { writePathBench } from './write-path.ts';
import { submissionBench } from './submission.ts';
import type { Benchmark } from './lib/context.ts';
import { updateSection } from './lib/results.ts';

/** Every benchmark, in the order they run. Add new ones here. */
const BENCHMARKS: Record<string, Benchmark> = {
  api: apiBench,
  idempotency: idempotencyBench,
  scale: scaleBench,
  sending: sendingBench,
  servers: serversBench,
  bulk: bulkBench,
  'runner-health': runnerHealthBench,
  audiences: audiencesBench,
  pacing: pacingBench,
  'noisy-neighbour': noisyNeighbourBench,
  transactional: transactionalBench,
  submission: submissionBench,
  'write-path': writePathBench,
};

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(benchDir, '..');
const resultsFile = join(benchDir, 'RESULTS.md');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    profile: { type: 'boolean', default: false },
    'no-record': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'wait-idle': { type: 'string', default: '0' },
  },
});

/** Share of all cores idle over the next `ms` milliseconds, from /proc/stat (Linux). */
async function idleShare(ms: number): Promise<number> {
  const read = () => {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: cpu[3] + (cpu[4] ?? 0), total: cpu.reduce((t, x) => t + x, 0) };
  };
  const before = read();
  await new Promise((r) => setTimeout(r, ms));
  const after = read();
  return (after.idle - before.idle) / Math.max(1, after.total - before.total);
}

/** Other work on a shared machine skews every figure: optionally wait until it is at least 90% idle. */
async function waitIdle(maxSec: number): Promise<void> {
  if (maxSec <= 0) return;
  const deadline = Date.now() + maxSec * 1000;
  let lastNote = 0;
  for (;;) {
    const idle = await idleShare(3000);
    if (idle >= 0.9) return;
    if (Date.now() > deadline) {
      console.log(`[bench] machine still busy (${Math.round(idle * 100)}% idle) after ${maxSec} s; running anyway`);
      return;
    }
    if (Date.now() - lastNote > 30_000) {
      lastNote = Date.now();
      console.log(`[bench] waiting for an idle machine: ${Math.round(idle * 100)}% idle`);
    }
  }
}

const names = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(BENCHMARKS);
for (const name of names) {
  if (!BENCHMARKS[name]) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    process.exit(2);
  }
}
const record = !values.profile && !values['no-record'] && !process.env.BENCH_API_ONLY;
const keep = values.keep || values.profile;

let failed = false;
for (const name of names) {
  await waitIdle(Number(values['wait-idle']));
  const workDir = mkdtempSync(join(tmpdir(), `sendwell-bench-${name}-`));
  const started = Date.now();
  const log = (message: string) => console.log(`[${name} ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${message}`);
  try {
    const report = await BENCHMARKS[name]({
      repoDir,
      workDir,
      durationSec: Number(values.duration),
      rounds: Math.max(1, Number(values.rounds)),
      warmupSec: Number(values.warmup),
      connections: Number(values.connections),
      profile: values.profile,
      log,
    });
    if (record) {
      updateSection(resultsFile, report.id, report.markdown);
      log(`recorded in bench/RESULTS.md; target ${report.targetMet ? 'met' : 'NOT met'}`);
    } else {
      console.log('\n' + report.markdown + '\n');
    }
  } catch (err) {
    failed = true;
    console.error(`[${name}] failed:`, err);
  } finally {
    if (keep) log(`work files kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
