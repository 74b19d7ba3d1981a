/**
 * Scale-out (issue "Scale-out"): the API benchmark's requests on PostgreSQL against embedded
 * SQLite, and two API processes on one PostgreSQL and Redis against one. Same data everywhere:
 * one enterprise account (no rate limit) with CONTACTS contacts and one `*` key.
 *
 * Configurations, each its own `./bin/sendwell serve --role api` process(es), all started first:
 *   sqlite      embedded SQLite, no Redis (the one-machine default)
 *   pg          PostgreSQL, no Redis: against `sqlite`, the database alone changes
 *   pg+redis ×1 PostgreSQL and Redis (shared rate limits and key invalidation), one process
 *   pg+redis ×2 the same, two processes on one database and one Redis prefix
 * Requests: (b) GET /api/v1/contacts/{email} with random seeded e-mails, (c) POST /api/v1/contacts
 * with a new e-mail each. The load always comes from two autocannon processes with half the
 * connections each: against one server both hit it; against two, one each. So the load generator
 * is the same in every configuration, and its CPU share is reported beside the figures.
 * Scenarios take turns round by round, as in bench/api.ts.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { runLoad, type LoadResult, type LoadSpec } from './lib/load-client.ts';
import { cpuSeconds, freePort, runCommand, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { seedDataDir, seededEmail, seedPostgres, sendwellEnv } from './lib/seed.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const READ_SAMPLE = 1000;
/** A database on this server is created for the run and dropped after it. */
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Config {
  id: 'sqlite' | 'pg' | 'pg+redis x1' | 'pg+redis x2';
  servers: { proc: Proc; url: string }[];
}

interface Scenario {
  config: Config;
  kind: 'read' | 'write';
  rounds: Round[];
}

interface Round {
  completed: number;
  durationSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  apiCpu: number;
  storeCpu: number;
  loadCpu: number;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** PIDs of the PostgreSQL and Redis server processes, whose CPU the API's requests also cost. */
async function storePids(): Promise<number[]> {
  const out = await runCommand('pgrep', ['-x', 'postgres|redis-server'], { cwd: '/' }).catch(() => '');
  return out.split('\n').filter(Boolean).map(Number);
}

function cpuOf(pids: number[]): number {
  return sum(pids.map((pid) => cpuSeconds(pid) ?? 0));
}

/** CPU seconds each process used since `before`, over the processes alive at both readings. */
function cpuSince(before: Map<number, number | null>): number {
  let total = 0;
  for (const [pid, then] of before) {
    const now = cpuSeconds(pid);
    if (then !== null && now !== null) total += now - then;
  }
  return total;
}

async function startApi(ctx: BenchContext, name: string, env: NodeJS.ProcessEnv, key: string) {
  const port = await freePort();
  const proc = startProcess('./bin/sendwell', ['serve', '--role', 'api'], {
    cwd: ctx.repoDir,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    logFile: join(ctx.workDir, `server-${name}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc);
  const probe = await fetch(`${url}/api/v1/contacts/${encodeURIComponent(seededEmail(1))}`, { headers: { 'x-api-key': key } });
  if (probe.status !== 200) throw new Error(`probe read on ${name} answered ${probe.status}: ${await probe.text()}`);
  return { proc, url };
}

export async function scaleBench(ctx: BenchContext): Promise<BenchReport> {
  const rounds = ctx.rounds ?? 1;
  const roundSec = ctx.durationSec / rounds;
  const loadBefore = loadavg();
  const seed = await seedDataDir(ctx.repoDir, join(ctx.workDir, 'seed'), CONTACTS);
  const dbName = `sendwell_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const databaseUrl = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${dbName}` }).toString();
  const configs: Config[] = [];
  const readPaths = Array.from({ length: READ_SAMPLE }, () => `/api/v1/contacts/${encodeURIComponent(seededEmail(1 + Math.floor(Math.random() * CONTACTS)))}`);
  let scenarios: Scenario[] = [];
  try {
    const pgKey = (await seedPostgres(ctx.repoDir, join(ctx.workDir, 'pg-cli'), databaseUrl, CONTACTS)).key;
    ctx.log(`seeded ${n(CONTACTS)} contacts in SQLite and in PostgreSQL (${dbName})`);
    const redis = { REDIS_URL, REDIS_PREFIX: `bench:${dbName}:` };
    const onPg = { ...sendwellEnv(join(ctx.workDir, 'data-pg')), DATABASE_URL: databaseUrl };
    const single = (id: Config['id'], servers: Config['servers']): Config => ({ id, servers });
    configs.push(single('sqlite', [await startApi(ctx, 'sqlite', sendwellEnv(seed.dataDir), seed.key)]));
    configs.push(single('pg', [await startApi(ctx, 'pg', onPg, pgKey)]));
    configs.push(single('pg+redis x1', [await startApi(ctx, 'pg-redis-1', { ...onPg, ...redis }, pgKey)]));
    configs.push(single('pg+redis x2', [await startApi(ctx, 'pg-redis-2a', { ...onPg, ...redis }, pgKey), await startApi(ctx, 'pg-redis-2b', { ...onPg, ...redis }, pgKey)]));
    const keyOf = (c: Config) => (c.id === 'sqlite' ? seed.key : pgKey);
    scenarios = configs.flatMap((config) => (['read', 'write'] as const).map((kind) => ({ config, kind, rounds: [] as Round[] })));

    let batch = 0;
    const run = async (s: Scenario, durationSec: number): Promise<Round> => {
      const connections = Math.max(1, Math.floor(ctx.connections / 2));
      const urls = s.config.servers.length === 2 ? s.config.servers.map((x) => x.url) : [s.config.servers[0].url, s.config.servers[0].url];
      const specs: LoadSpec[] = urls.map((url) => {
        const headers = { 'x-api-key': keyOf(s.config) };
        return s.kind === 'read'
          ? { url, connections, durationSec, headers, paths: readPaths }
          : { url, connections, durationSec, headers: { ...headers, 'content-type': 'application/json' }, post: { path: '/api/v1/contacts', emailPrefix: `new-${batch++}`, extra: { first_name: 'Bench', tags: ['bench'] } } };
      });
      const pids = s.config.servers.map((x) => x.proc.pid);
      // Looked up each time: PostgreSQL starts a backend per pooled connection (all open after the warm-up).
      const stores = await storePids();
      const apiBefore = cpuOf(pids);
      const storeBefore = new Map(stores.map((pid) => [pid, cpuSeconds(pid)]));
      const results: LoadResult[] = await Promise.all(specs.map((spec) => runLoad(ctx.repoDir, spec)));
      return {
        completed: sum(results.map((r) => r.completed)),
        durationSec: Math.max(...results.map((r) => r.durationSec)),
        p50: Math.max(...results.map((r) => r.p50)),
        p99: Math.max(...results.map((r) => r.p99)),
        non2xx: sum(results.map((r) => r.non2xx)),
        errors: sum(results.map((r) => r.errors + r.timeouts)),
        apiCpu: cpuOf(pids) - apiBefore,
        storeCpu: cpuSince(storeBefore),
        loadCpu: sum(results.map((r) => r.loadCpuSeconds)),
      };
    };

    for (const s of scenarios) if (ctx.warmupSec > 0) await run(s, ctx.warmupSec);
    ctx.log(`warmed up (${ctx.warmupSec} s each)`);
    for (let round = 0; round < rounds; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      for (const s of order) s.rounds.push(await run(s, roundSec));
      ctx.log(`round ${round + 1}/${rounds}: ` + scenarios.map((s) => `${s.config.id} ${s.kind} ${n(s.rounds[round].completed / s.rounds[round].durationSec)}`).join(', ') + ' req/s');
    }
  } finally {
    for (const c of configs) for (const s of c.servers) await s.proc.stop();
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    await admin.end();
  }
  const loadAfter = loadavg();

  const totals = (s: Scenario) => {
    const wall = sum(s.rounds.map((r) => r.durationSec));
    const completed = sum(s.rounds.map((r) => r.completed));
    return {
      rate: completed / wall,
      p50: median(s.rounds.map((r) => r.p50)),
      p99: median(s.rounds.map((r) => r.p99)),
      bad: sum(s.rounds.map((r) => r.non2xx + r.errors)),
      api: sum(s.rounds.map((r) => r.apiCpu)) / wall,
      store: sum(s.rounds.map((r) => r.storeCpu)) / wall,
      load: sum(s.rounds.map((r) => r.loadCpu)) / wall,
      apiUsPerReq: (sum(s.rounds.map((r) => r.apiCpu)) / completed) * 1e6,
    };
  };
  const find = (id: Config['id'], kind: Scenario['kind']) => totals(scenarios.find((s) => s.config.id === id && s.kind === kind)!);
  const pctCores = (x: number) => `${Math.round(x * 100)}%`;
  const rows = scenarios.map((s) => {
    const t = totals(s);
    return [`${s.config.id}`, s.kind === 'read' ? '(b) GET contact' : '(c) POST contact', n(t.rate), t.p50, t.p99, t.bad, pctCores(t.api), Math.round(t.apiUsPerReq), pctCores(t.store), pctCores(t.load)];
  });
  const ratio = (x: number, y: number) => (x / y).toFixed(2);
  const ratios = (['read', 'write'] as const).map((kind) => {
    const label = kind === 'read' ? '(b) read' : '(c) write';
    return (
      `- ${label}: PostgreSQL / SQLite = **${ratio(find('pg', kind).rate, find('sqlite', kind).rate)}**; ` +
      `two API processes / one (PostgreSQL + Redis) = **${ratio(find('pg+redis x2', kind).rate, find('pg+redis x1', kind).rate)}**; ` +
      `Redis on / off (one process on PostgreSQL) = ${ratio(find('pg+redis x1', kind).rate, find('pg', kind).rate)}.`
    );
  });
  const bad = scenarios.filter((s) => totals(s).bad > 0);
  const cpu = cpus();
  const markdown = [
    '## Scale-out: PostgreSQL against SQLite, two API processes against one',
    '',
    `- Date: ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '- Command: `npm run bench -- --only scale`',
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, PostgreSQL and Redis on the same machine (${PG_ADMIN_URL.replace(/\/\/[^@]*@/, '//')}, ${REDIS_URL}). ` +
      `Load average (1, 5, 15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${loadAfter.map((l) => l.toFixed(2)).join(', ')}.`,
    `- Data: ${n(CONTACTS)} contacts in one enterprise account (no rate limit), the same rows in SQLite and in a PostgreSQL database made for the run. (b) cycles through ${READ_SAMPLE} random seeded e-mails; (c) posts a new e-mail per request. Servers: \`./bin/sendwell serve --role api\`, LOG_LEVEL=info (the default), PostgreSQL pool of 10 per process.`,
    `- Load: ${ctx.connections} connections in all, from two autocannon processes of ${Math.floor(ctx.connections / 2)} each (against one server both hit it; against two, one each). ${ctx.warmupSec} s warm-up per scenario, then ${ctx.durationSec} s measured in ${rounds} rounds taking turns.`,
    '',
    table(['configuration', 'request', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx + errors', 'API CPU', 'API CPU µs/req', 'PostgreSQL + Redis CPU', 'load-generator CPU'], rows),
    '',
    'CPU columns are CPU time over wall time, 100% = one core of the two: "API" is the Sendwell process(es), "PostgreSQL + Redis" every postgres and redis-server process on the machine, "load generator" both autocannon processes. p50/p99 are the median round\'s, the higher of the two generators\'.',
    '',
    '### Ratios (same run)',
    '',
    ...ratios,
    ...(bad.length > 0 ? [`- Not trustworthy (non-2xx responses or errors): ${bad.map((s) => `${s.config.id} ${s.kind}`).join(', ')}`] : []),
    '',
    'How to read the two-process ratio on this machine: one API process is bound by its one core (API CPU near 100%), so a second one can only add what the second core has left after the load generator and PostgreSQL (see the CPU columns). On machines with cores to spare, and the load generator elsewhere, each API process adds about one process\'s rate until PostgreSQL saturates (docs/SCALING.md).',
  ].join('\n');
  return { id: 'scale', markdown, targetMet: bad.length === 0 };
}
