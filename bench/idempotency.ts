/**
 * D25.6 (issue 31): what an Idempotency-Key costs. POST /api/v1/contacts with a new e-mail per
 * request, (c) without a key and (k) with a new Idempotency-Key on each, against two servers on
 * copies of one seeded SQLite database, at the default LOG_LEVEL=info. With a key, a request
 * also looks the key up, takes the in-flight hold, runs its transactions as savepoints of one,
 * and writes the kept answer.
 *
 * Target, by server CPU per request: (k) <= 1.10 x (c). The measured time is cut into rounds that
 * take turns (c, k, then k, c, ...), so background load falls on both alike.
 */
import { cpSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { runLoad, type LoadResult } from './lib/load-client.ts';
import { freePort, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { seedDataDir, sendwellEnv } from './lib/seed.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const TARGET_KEYED_VS_PLAIN = 1.1;

interface Scenario {
  id: 'c' | 'k' | 'p';
  label: string;
  proc: Proc;
  url: string;
  keyed: boolean;
  rounds: LoadResult[];
}

const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const n = (x: number) => Math.round(x).toLocaleString('en-US');

function cpuPerRequestUs(rounds: LoadResult[]): number {
  return Math.round((sum(rounds.map((r) => r.serverCpuSeconds ?? NaN)) / sum(rounds.map((r) => r.completed))) * 1e6);
}

export async function idempotencyBench(ctx: BenchContext): Promise<BenchReport> {
  const rounds = ctx.rounds ?? 1;
  const roundSec = ctx.durationSec / rounds;
  const loadBefore = loadavg();
  const seed = await seedDataDir(ctx.repoDir, join(ctx.workDir, 'seed'), CONTACTS);
  ctx.log(`seeded ${n(CONTACTS)} contacts`);
  const headers = { 'x-api-key': seed.key, 'content-type': 'application/json' };
  const scenarios: Scenario[] = [];
  try {
    for (const id of ['c', 'k', 'p'] as const) {
      const keyed = id === 'k';
      const dataDir = join(ctx.workDir, `data-${id}`);
      cpSync(seed.dataDir, dataDir, { recursive: true });
      const port = await freePort();
      const env = sendwellEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
      const proc = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env, logFile: join(ctx.workDir, `server-${id}.log`) });
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(`${url}/health`, proc);
      if (id === 'p') {
        // What keyed requests cost the others: this server has answered one before its load.
        const primed = await fetch(`${url}/api/v1/contacts`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'prime' }, body: JSON.stringify({ email: 'prime@bench.example' }) });
        if (primed.status !== 200) throw new Error(`the priming request answered ${primed.status}`);
      }
      scenarios.push({
        id,
        label: { c: '(c) POST /api/v1/contacts without a key', k: '(k) POST /api/v1/contacts with a new Idempotency-Key per request', p: '(p) POST /api/v1/contacts without a key, on a server that has answered one keyed request' }[id],
        proc,
        url,
        keyed,
        rounds: [],
      });
    }
    let batch = 0;
    const run = (s: Scenario, durationSec: number) => {
      const prefix = `${s.id}-${batch++}`;
      return runLoad(
        ctx.repoDir,
        {
          url: s.url,
          connections: ctx.connections,
          durationSec,
          headers,
          post: { path: '/api/v1/contacts', emailPrefix: prefix, extra: { first_name: 'Bench', tags: ['bench'] }, ...(s.keyed ? { idempotencyKeyPrefix: prefix } : {}) },
        },
        s.proc.pid,
      );
    };
    for (const s of scenarios) if (ctx.warmupSec > 0) await run(s, ctx.warmupSec);
    for (let round = 0; round < rounds; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      for (const s of order) s.rounds.push(await run(s, roundSec));
      ctx.log(`round ${round + 1}/${rounds}: ` + scenarios.map((s) => `${s.id} ${n(s.rounds[round].completed / s.rounds[round].durationSec)} req/s`).join(', '));
    }
  } finally {
    for (const s of scenarios) await s.proc.stop();
  }
  const loadAfter = loadavg();

  const rows = scenarios.map((s) => {
    const completed = sum(s.rounds.map((r) => r.completed));
    const seconds = sum(s.rounds.map((r) => r.durationSec));
    const errors = sum(s.rounds.map((r) => r.non2xx + r.errors + r.timeouts));
    return [s.label, n(completed / seconds), median(s.rounds.map((r) => r.p50)), median(s.rounds.map((r) => r.p99)), errors, cpuPerRequestUs(s.rounds)];
  });
  const [plain, keyed, primed] = scenarios;
  const valid = scenarios.every((s) => sum(s.rounds.map((r) => r.non2xx + r.errors + r.timeouts)) === 0);
  const ratio = cpuPerRequestUs(keyed.rounds) / cpuPerRequestUs(plain.rounds);
  const perRound = keyed.rounds.map((r, i) => (r.serverCpuSeconds! / r.completed) / (plain.rounds[i].serverCpuSeconds! / plain.rounds[i].completed));
  const ok = valid && ratio <= TARGET_KEYED_VS_PLAIN;
  const cpu = cpus();
  const markdown = [
    '## Idempotency-Key: server CPU of POST /contacts with a key against without (issue 31, D25.6)',
    '',
    `- Date: ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '- Command: `npm run bench -- --only idempotency`',
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}; the load generator shares the cores. Load average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${loadAfter.map((l) => l.toFixed(2)).join(', ')}.`,
    `- Load: ${ctx.connections} connections; ${ctx.warmupSec} s warm-up each, then ${ctx.durationSec} s measured per scenario as ${rounds} rounds taking turns. Data: ${n(CONTACTS)} seeded contacts, embedded SQLite, one server per scenario on its own copy, LOG_LEVEL=info. Each request posts a new e-mail; (k) also sends a new Idempotency-Key, so every one of its requests runs and keeps its answer (no replays).`,
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx / errors', 'server CPU µs/req'], rows),
    '',
    `- Without a key, on a server that has answered keyed requests: (p) ${cpuPerRequestUs(primed.rounds)} µs against (c) ${cpuPerRequestUs(plain.rounds)} µs = ${(cpuPerRequestUs(primed.rounds) / cpuPerRequestUs(plain.rounds)).toFixed(2)} x`,
    `- Target: (k) ${cpuPerRequestUs(keyed.rounds)} µs against (c) ${cpuPerRequestUs(plain.rounds)} µs = **${ratio.toFixed(2)} x** (rounds ${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)}; target ≤ ${TARGET_KEYED_VS_PLAIN} x: ${ok ? 'met' : 'NOT met'})`,
  ].join('\n');
  return { id: 'idempotency', markdown, targetMet: ok };
}
