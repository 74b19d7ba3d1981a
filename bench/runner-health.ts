/**
 * Issue 14 H1's target: `/health` p99 under 50 ms while the automation runner works through
 * 10,000 due runs. Against a real `./bin/sendwell serve` on SQLite (operator defaults,
 * LOG_LEVEL=info), with one active workflow (TAG_ADDED "bench" -> ADD_TAG, UPDATE_LEAD_SCORE,
 * REMOVE_TAG, ADD_TAG: four steps a run):
 *   1. idle: /health latency with nothing due, for the measured duration (the baseline);
 *   2. backlog: 10,000 contacts with the tag through POST /v1/contacts/bulk (10 requests of
 *      1000), each starting a run; /health latency from the first import request until the last
 *      run has ended, and separately from the end of the import (the runner alone);
 *   3. SIGTERM in the middle of a second backlog of 10,000: how long the process takes to exit,
 *      and how many runs it left for the next start.
 * Latency is measured by bench/health-poller.ts, a process of its own (2 connections, a 5 ms pause
 * after each answer). Progress is read from the database file directly, never through the API,
 * so the measuring adds no work to the server's event loop.
 * BENCH_RUNNER_CONTACTS changes the backlog size.
 */
import SQLite from 'better-sqlite3';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { healthLatencyOf, startHealthProbe } from './lib/health-probe.ts';
import { cpuSeconds, freePort, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';

const BACKLOG = Number(process.env.BENCH_RUNNER_CONTACTS ?? 10_000);
const PER_REQUEST = 1000;
const TARGET_P99_MS = 50;
const POLLER_CONNECTIONS = 2;
const POLLER_PAUSE_MS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** Run counts by status, read from the database file (WAL: a reader never blocks the server). */
function runCounter(dataDir: string) {
  const db = new SQLite(join(dataDir, 'sendwell.db'), { readonly: true });
  const statement = db.prepare('select status, count(*) as n from automation_runs group by status');
  return {
    counts(): Record<string, number> {
      return Object.fromEntries((statement.all() as { status: string; n: number }[]).map((r) => [r.status, r.n]));
    },
    close: () => db.close(),
  };
}

interface Server {
  proc: Proc;
  url: string;
  key: string;
}

async function call(server: Server, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** `BACKLOG` new contacts with the trigger's tag, a request of PER_REQUEST at a time. */
async function importTagged(server: Server, prefix: string): Promise<void> {
  for (let i = 0; i < BACKLOG; i += PER_REQUEST) {
    const contacts = Array.from({ length: Math.min(PER_REQUEST, BACKLOG - i) }, (_, j) => ({ email: `${prefix}-${i + j}@runner.bench`, tags: ['bench'] }));
    const result = await call(server, 'POST', '/v1/contacts/bulk', { contacts });
    if (result.created !== contacts.length) throw new Error(`bulk import created ${result.created} of ${contacts.length}`);
  }
}

/** Waits until no run is ACTIVE (and `total` runs exist); polls the file every 50 ms. */
async function backlogDone(counter: ReturnType<typeof runCounter>, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = counter.counts();
    const all = Object.values(c).reduce((a, b) => a + b, 0);
    if (all >= total && !c.ACTIVE) return;
    if (Date.now() > deadline) throw new Error(`the backlog was not done within ${timeoutMs / 1000} s: ${JSON.stringify(c)}`);
    await sleep(50);
  }
}

export async function runnerHealthBench(ctx: BenchContext): Promise<BenchReport> {
  const date = new Date().toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
  const loadStart = loads();
  const dataDir = join(ctx.workDir, 'data');
  const env = sendwellEnv(dataDir);
  const account = await createBenchAccount(ctx.repoDir, env);
  const port = await freePort();
  const proc = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env: { ...env, PORT: String(port) }, logFile: join(ctx.workDir, 'serve.log') });
  const server: Server = { proc, url: `http://127.0.0.1:${port}`, key: account.key };
  const counter = runCounter(dataDir);
  try {
    await waitForHttp(`${server.url}/health`, proc);
    const workflow = await call(server, 'POST', '/api/v1/automations', {
      name: 'runner bench',
      trigger: { type: 'TAG_ADDED', tag: 'bench' },
      steps: [
        { type: 'ADD_TAG', tag: 'bench-step' },
        { type: 'UPDATE_LEAD_SCORE', delta: 1 },
        { type: 'REMOVE_TAG', tag: 'bench-step' },
        { type: 'ADD_TAG', tag: 'bench-done' },
      ],
    });
    await call(server, 'POST', `/api/v1/automations/${workflow.data.id}/activate`);

    ctx.log(`idle: /health for ${ctx.durationSec} s after ${ctx.warmupSec} s of warm-up`);
    const idlePoller = startHealthProbe(ctx, server.url, 'idle', POLLER_CONNECTIONS, POLLER_PAUSE_MS);
    await sleep(ctx.warmupSec * 1000);
    const idleFrom = Date.now();
    await sleep(ctx.durationSec * 1000);
    // A request the stop cut short (-1) says nothing about the idle server.
    const idle = healthLatencyOf((await idlePoller.stop()).filter((s) => s[0] >= idleFrom && s[2] !== -1));
    ctx.log(`  p50 ${ms(idle.p50)} ms, p99 ${ms(idle.p99)} ms, max ${ms(idle.max)} ms (${fmt(idle.count)} requests)`);

    ctx.log(`backlog: ${fmt(BACKLOG)} contacts with the tag through POST /v1/contacts/bulk, /health until every run has ended`);
    const loadBacklog = loads();
    const poller = startHealthProbe(ctx, server.url, 'backlog', POLLER_CONNECTIONS, POLLER_PAUSE_MS);
    await sleep(ctx.warmupSec * 1000);
    const importStart = Date.now();
    const cpuBefore = cpuSeconds(proc.pid);
    await importTagged(server, 'first');
    const importEnd = Date.now();
    await backlogDone(counter, BACKLOG, 600_000);
    const doneAt = Date.now();
    const cpuAfter = cpuSeconds(proc.pid);
    const samples = await poller.stop();
    // Requests sent before the backlog was done and still unanswered when the prober stopped count
    // as failed once they had waited the target or longer; one the stop cut short sooner (sent a
    // millisecond before the backlog's end was seen) says nothing about the server.
    const measured = samples.filter((s) => s[2] !== -1 || s[1] >= TARGET_P99_MS);
    const whole = healthLatencyOf(measured.filter((s) => s[0] >= importStart && s[0] <= doneAt));
    const runnerOnly = healthLatencyOf(measured.filter((s) => s[0] >= importEnd && s[0] <= doneAt));
    const counts = counter.counts();
    ctx.log(`  import ${((importEnd - importStart) / 1000).toFixed(1)} s, every run ended ${((doneAt - importStart) / 1000).toFixed(1)} s after the first request`);
    ctx.log(`  /health p50 ${ms(whole.p50)} ms, p99 ${ms(whole.p99)} ms, max ${ms(whole.max)} ms (${fmt(whole.count)} requests, ${whole.failed} failed)`);

    ctx.log('SIGTERM 2 s into a second backlog');
    await importTagged(server, 'second');
    await sleep(2000);
    const signalled = performance.now();
    const exitCode = await proc.stop(60_000);
    const exitMs = performance.now() - signalled;
    const left = counter.counts().ACTIVE ?? 0;
    ctx.log(`  exited ${exitCode} after ${fmt(exitMs)} ms, ${fmt(left)} runs left for the next start`);

    const met = whole.p99 < TARGET_P99_MS && whole.failed === 0;
    const cpu = cpus();
    const seconds = (doneAt - importStart) / 1000;
    const markdown = [
      '## /health while the automation runner works through a backlog (issue 14 H1)',
      '',
      `- Date: ${date}`,
      '- Command: `npm run bench -- --only runner-health`',
      `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. Load average (1, 5, 15 min) at the start: ${loadStart}; before the backlog: ${loadBacklog}; at the end: ${loads()} (the machine is shared with other work: figures are noisy).`,
      `- Server: \`./bin/sendwell serve\` on SQLite, operator defaults (LOG_LEVEL=info, SEND_CONCURRENCY=10, SEND_BATCH_SIZE=200); one active workflow, TAG_ADDED "bench" -> ADD_TAG, UPDATE_LEAD_SCORE, REMOVE_TAG, ADD_TAG.`,
      `- Backlog: ${fmt(BACKLOG)} new contacts with the tag through \`POST /v1/contacts/bulk\` (${fmt(BACKLOG / PER_REQUEST)} requests of ${fmt(PER_REQUEST)}), each starting a run: ${fmt(BACKLOG * 4)} steps. Imported in ${((importEnd - importStart) / 1000).toFixed(1)} s; every run had ended **${seconds.toFixed(1)} s** after the first import request (${fmt((BACKLOG * 4) / seconds)} steps/s; server CPU ${cpuAfter !== null && cpuBefore !== null ? `${(cpuAfter - cpuBefore).toFixed(1)} s` : 'n/a'}). Runs at the end: ${JSON.stringify(counts)}.`,
      `- /health measured by bench/health-poller.ts, a process of its own: ${POLLER_CONNECTIONS} keep-alive connections, each sending the next request ${POLLER_PAUSE_MS} ms after an answer. "Idle": the same server, workflow active, nothing due, ${ctx.durationSec} s. "Backlog": requests sent from the first import request until the last run ended; "runner only": from the end of the import.`,
      '',
      table(
        ['/health', 'requests', 'failed', 'p50 ms', 'p99 ms', 'max ms', 'p99 vs idle'],
        [
          ['idle (baseline)', fmt(idle.count), idle.failed, ms(idle.p50), ms(idle.p99), ms(idle.max), '1.0'],
          ['backlog (import + runner)', fmt(whole.count), whole.failed, ms(whole.p50), `**${ms(whole.p99)}**`, ms(whole.max), (whole.p99 / idle.p99).toFixed(1)],
          ['runner only (after the import)', fmt(runnerOnly.count), runnerOnly.failed, ms(runnerOnly.p50), ms(runnerOnly.p99), ms(runnerOnly.max), (runnerOnly.p99 / idle.p99).toFixed(1)],
        ],
      ),
      '',
      `Target /health p99 < ${TARGET_P99_MS} ms while the runner works through ${fmt(BACKLOG)} due runs: **${met ? 'met' : 'NOT met'}**.`,
      '',
      `- SIGTERM 2 s into a second backlog of ${fmt(BACKLOG)} runs: the process exited ${exitCode} after ${fmt(exitMs)} ms, leaving ${fmt(left)} runs ACTIVE for the next start.`,
    ].join('\n');
    return { id: 'runner-health', markdown, targetMet: met };
  } finally {
    counter.close();
    await proc.stop();
  }
}
