/**
 * D23's pacing target (issue 19, "Speed and memory"): per-domain caps are met within 5% over a
 * 60 s run. One `./bin/sendwell serve` process (API and sender) sends a campaign to three
 * domains, two of them capped by SEND_DOMAIN_RATES, to the benchmark SMTP sink (its own process,
 * counting recipients per domain). Once sending is under way the sink's counts are read, then
 * again after the measured window: each capped domain's messages per second must be within 5% of
 * its cap (neither over it nor well under it), and the uncapped domain must not be held back.
 * Part of `npm run bench` (`npm run bench -- --only pacing`).
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_PACING_SECONDS [60]   the measured window
 *   BENCH_PACING_RATES [capped-a.test=50,capped-b.test=20]
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { freePort, startProcess, waitForHttp } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';
import { startSink } from './sending.ts';
import { parseDomainRates } from '../src/config-mail.ts';

const SECONDS = Number(process.env.BENCH_PACING_SECONDS ?? 60);
const RATES_ENV = process.env.BENCH_PACING_RATES ?? 'capped-a.test=50,capped-b.test=20';
const RATES = parseDomainRates(RATES_ENV);
const FREE_DOMAIN = 'free.test';
const FREE_COUNT = 3000;
/** the measured window starts this long after the send */
const WARMUP_SECONDS = 5;
const TOLERANCE = 0.05;
const NOTE =
  "The 5 s samples are read from the sink on this process's timer, not on the clock's seconds the caps count in, so one may hold a little more than 5 seconds' worth (256 for 250); no clock second exceeds its cap.";

const loads = () => loadavg().map((l) => l.toFixed(2)).join(', ');

export async function pacingBench(ctx: BenchContext): Promise<BenchReport> {
  const dataDir = join(ctx.workDir, 'data');
  const loadBefore = loads();
  const sink = await startSink(ctx);
  const port = await freePort();
  const env = sendwellEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', SECRET: 'bench-secret', PUBLIC_URL: 'https://mail.bench.example', LOG_LEVEL: 'warn', SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`, SEND_DOMAIN_RATES: RATES_ENV });
  const { key } = await createBenchAccount(ctx.repoDir, env);
  const serve = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env, logFile: join(ctx.workDir, 'serve.log') });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, serve);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as { data?: { id: number } };
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    // Enough recipients at each capped domain to outlast the window at its cap; the free domain's go at once.
    const emails: string[] = [];
    for (const [domain, rate] of RATES) for (let i = 0; i < Math.ceil(rate * (SECONDS + WARMUP_SECONDS + 15)); i++) emails.push(`r${i}@${domain}`);
    for (let i = 0; i < FREE_COUNT; i++) emails.push(`r${i}@${FREE_DOMAIN}`);
    const list = (await call('POST', '/api/v1/lists', { name: 'Pacing' })).data!.id;
    for (let i = 0; i < emails.length; i += 1000) await call('POST', '/v1/contacts/bulk', { listId: String(list), contacts: emails.slice(i, i + 1000).map((email) => ({ email })) });
    const campaign = (await call('POST', '/api/v1/campaigns', { name: 'Pacing', subject: 'Hello', from_email: 'news@bench.example', html: '<p>Hello</p>', list_ids: [list] })).data!.id;
    ctx.log(`${emails.length} recipients; sending with SEND_DOMAIN_RATES=${RATES_ENV}`);

    await sink.reset();
    await call('POST', `/api/v1/campaigns/${campaign}/send`);
    await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
    const before = await sink.stats();
    const startedAt = performance.now();
    // Every 5 s, each capped domain's messages: shows whether the cap held evenly or in bursts.
    const timeline: string[][] = [...RATES.keys()].map(() => []);
    let previous = before;
    for (let t = 5; t <= SECONDS; t += 5) {
      await new Promise((r) => setTimeout(r, startedAt + t * 1000 - performance.now()));
      const now = await sink.stats();
      [...RATES.keys()].forEach((domain, i) => timeline[i].push(String((now.byDomain[domain] ?? 0) - (previous.byDomain[domain] ?? 0))));
      previous = now;
    }
    const after = previous;
    const elapsed = (performance.now() - startedAt) / 1000;
    ctx.log(`per 5 s: ${[...RATES.keys()].map((d, i) => `${d} ${timeline[i].join(' ')}`).join('; ')}`);

    const rows: (string | number)[][] = [];
    let met = true;
    for (const [domain, cap] of RATES) {
      const sent = (after.byDomain[domain] ?? 0) - (before.byDomain[domain] ?? 0);
      const rate = sent / elapsed;
      const within = Math.abs(rate - cap) <= cap * TOLERANCE;
      met &&= within;
      rows.push([domain, cap, sent, rate.toFixed(2), `${((rate / cap - 1) * 100).toFixed(1)}%`, within ? 'yes' : 'NO', timeline[rows.length].join(', ')]);
    }
    const freeTotal = after.byDomain[FREE_DOMAIN] ?? 0;
    const freeAll = freeTotal === FREE_COUNT;
    rows.push([FREE_DOMAIN, 'none', `${freeTotal} of ${FREE_COUNT} in all (wanted: all, before the window closed)`, '', '', freeAll ? 'yes' : 'NO', '']);
    met &&= freeAll;
    const markdown = [
      '## Pacing: per-recipient-domain caps over a 60 s run (D23)',
      '',
      `- Date: 2026-11-26 (run at ${new Date().toISOString().slice(11, 19)} UTC)`,
      `- Command: \`npm run bench -- --only pacing\` (BENCH_PACING_SECONDS=${SECONDS})`,
      `- Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, **shared with other work during the run**: load average (1, 5, 15 min) before ${loadBefore}, after ${loads()}.`,
      `- Setup: one \`./bin/sendwell serve\` (API and sender, SQLite, no Redis: the in-process buckets; the Redis-backed ones are the same code with RateLimiterRedis, tested in the postgres+redis test run) sending one campaign of ${emails.length} recipients to bench/smtp-sink-server.ts, which counts recipients per domain. Operator defaults otherwise (SEND_CONCURRENCY 10, SEND_BATCH_SIZE 200, SEND_POLL_MS 1000). Measured: ${elapsed.toFixed(1)} s, from ${WARMUP_SECONDS} s after POST /send.`,
      '',
      table(['domain', 'cap /s', 'messages in the window', 'measured /s', 'off the cap', `within ${TOLERANCE * 100}%`, 'messages per 5 s'], rows),
      '',
      `${NOTE}`,
      '',
      `Target: each capped domain within ${TOLERANCE * 100}% of its cap, and the uncapped domain not held back: **${met ? 'met' : 'NOT met'}**.`,
    ].join('\n');
    return { id: 'pacing', markdown, targetMet: met };
  } finally {
    await serve.stop();
    await sink.proc.stop();
  }
}
