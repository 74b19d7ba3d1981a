/**
 * The API hot path (issue "The API hot path"). Scenarios:
 *   (a) bare Fastify, one constant route, no logger (bench/bare-server.ts);
 *   (e) reference: the (a) process with one raw better-sqlite3 lookup route;
 *   (d) GET /health through our app (public: no key, no database);
 *   (b) GET /api/v1/contacts/{email} with a valid key, random e-mails among the seeded contacts;
 *   (c) POST /api/v1/contacts with a new e-mail per request;
 *   (b) and (c) again on PostgreSQL (same data, a database made for the run).
 * (b), (c) and (d) run against `./bin/sendwell serve` with the operator default LOG_LEVEL=info
 * (one access-log line per request, stdout to a file) and with LOG_LEVEL=warn.
 *
 * Targets, by server CPU per request (the figure least moved by the load generator sharing the
 * cores): (d) <= 1.25 x (a), (b) <= 1.5 x (e), (c) <= 4 x (e), all at LOG_LEVEL=info; and by req/s,
 * PostgreSQL's (b) >= 0.7 and (c) >= 0.5 of SQLite's.
 *
 * Every server runs as its own process from the start (an idle one costs nothing), and the
 * measured time of each scenario is cut into rounds that take turns: a, d, b, c, ... then the next
 * round in a rotated order. Background load on the machine then falls on every scenario alike
 * instead of on whichever block it happened to hit, so the ratio stays a same-run comparison.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { profilesIn, summariseProfile } from './lib/cpuprofile.ts';
import { runLoad, type LoadResult, type LoadSpec } from './lib/load-client.ts';
import { freePort, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { compareWithRecorded, CREEP_TOLERANCE, creepLine, recordedCpu, type CpuByScenario } from './lib/creep-guard.ts';
import pg from 'pg';
import { seedDataDir, seededEmail, seedPostgres, sendwellEnv, storedRequestCount, storedRequestCountPg, type Seed } from './lib/seed.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
/** Distinct e-mails (b) cycles through, drawn at random from the seeded contacts. */
const READ_SAMPLE = 1000;
/** Server CPU per request, at most this many times the reference's (issue "The API hot path"). */
const TARGET_HEALTH_VS_BARE = 1.25;
const TARGET_READ_VS_RAW = 1.5;
const TARGET_WRITE_VS_RAW = 4;
/** req/s on PostgreSQL over req/s on SQLite, at least. */
const TARGET_PG_READ = 0.7;
const TARGET_PG_WRITE = 0.5;
/** A database on this server is created for the run and dropped after it. */
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LOG_LEVELS = ['info', 'warn'] as const;
const onlyScenarios = process.env.BENCH_API_ONLY?.split(',').map((x) => x.trim()) ?? null;
type LogLevel = (typeof LOG_LEVELS)[number];

/** Requests the load generator completed and sent to one server (warm-ups included). */
interface Tally {
  completed: number;
  sent: number;
}

interface Server {
  name: string;
  proc: Proc;
  url: string;
  tally: Tally;
  logLevel: LogLevel | null;
  dataDir: string | null;
  /** set for the PostgreSQL servers, whose key counter is read from there */
  databaseUrl: string | null;
  keyId: number | null;
  logFile: string | null;
  profileDir: string | null;
}

interface Scenario {
  id: 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'j' | 'k' | 'b-pg' | 'c-pg';
  label: string;
  server: Server;
  logLevel: LogLevel | null;
  spec: (durationSec: number) => LoadSpec;
  rounds: LoadResult[];
}

/** One scenario's rounds taken together. */
interface Combined {
  reqPerSec: number;
  p50: number;
  p99: number;
  p99Worst: number;
  max: number;
  completed: number;
  durationSec: number;
  non2xx: number;
  errors: number;
  serverCpuSeconds: number | null;
  loadCpuSeconds: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);

function combine(rounds: LoadResult[]): Combined {
  const durationSec = sum(rounds.map((r) => r.durationSec));
  const completed = sum(rounds.map((r) => r.completed));
  const cpu = rounds.map((r) => r.serverCpuSeconds);
  return {
    reqPerSec: completed / durationSec,
    // Percentiles of separate runs cannot be merged exactly: the median round's, and the worst round's.
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    p99Worst: Math.max(...rounds.map((r) => r.p99)),
    max: Math.max(...rounds.map((r) => r.max)),
    completed,
    durationSec,
    non2xx: sum(rounds.map((r) => r.non2xx)),
    errors: sum(rounds.map((r) => r.errors + r.timeouts)),
    serverCpuSeconds: cpu.every((c) => c !== null) ? sum(cpu as number[]) : null,
    loadCpuSeconds: sum(rounds.map((r) => r.loadCpuSeconds)),
  };
}

const perReq = (c: Combined) => Math.round(((c.serverCpuSeconds ?? NaN) / c.completed) * 1e6);
const valid = (c: Combined) => c.non2xx === 0 && c.errors === 0;
const pct = (cpuSec: number | null, wallSec: number) => (cpuSec === null ? 'n/a' : `${Math.round((cpuSec / wallSec) * 100)}%`);
const n = (x: number) => Math.round(x).toLocaleString('en-US');

function randomPaths(count: number, of: number): string[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, of)) picked.add(1 + Math.floor(Math.random() * of));
  return [...picked].map((i) => `/api/v1/contacts/${encodeURIComponent(seededEmail(i))}`);
}

/**
 * Baselines (a) and (e), and the floors (g) and, with `accessLog`, (f) (bench/bare-server.ts);
 * (e) reads its own copy of the seeded database, (g) writes another.
 */
async function startBare(ctx: BenchContext, seed: Seed, name: string, accessLog = false): Promise<Server> {
  const dataDir = join(ctx.workDir, `data-${name}`);
  const writeDir = join(ctx.workDir, `data-${name}-write`);
  cpSync(seed.dataDir, dataDir, { recursive: true });
  cpSync(seed.dataDir, writeDir, { recursive: true });
  const port = await freePort();
  const logFile = join(ctx.workDir, `server-${name}.log`);
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DB_FILE: join(dataDir, 'sendwell.db'),
    WRITE_DB_FILE: join(writeDir, 'sendwell.db'),
    ACCOUNT_ID: String(seed.accountId),
    ACCESS_LOG: accessLog ? '1' : '',
  };
  const proc = startProcess(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], { cwd: ctx.repoDir, env, logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/contacts/${encodeURIComponent(seededEmail(1))}`, proc);
  return { name, proc, url, tally: { completed: 0, sent: 0 }, logLevel: null, dataDir: null, databaseUrl: null, keyId: null, logFile, profileDir: null };
}

/**
 * A load that creates a new contact per request (the same body each time, a new e-mail): each run
 * of it (warm-up, every round) gets an e-mail prefix of its own, so no create meets a duplicate.
 */
function createSpec(ctx: BenchContext, url: string, path: string, prefix: string, headers: Record<string, string> = {}): Scenario['spec'] {
  let run = 0;
  return (durationSec) => ({
    url,
    connections: ctx.connections,
    durationSec,
    headers: { ...headers, 'content-type': 'application/json' },
    post: { path, emailPrefix: `${prefix}-${run++}`, extra: { first_name: 'Bench', tags: ['bench'] } },
  });
}

/** The floor (j) (bench/bare-server.ts): the read with its libraries, on the PostgreSQL database the PostgreSQL pair uses. */
async function startBarePg(ctx: BenchContext, accountId: number, databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const logFile = join(ctx.workDir, 'server-bare-pg.log');
  const env = { PORT: String(port), HOST: '127.0.0.1', PG_URL: databaseUrl, ACCOUNT_ID: String(accountId) };
  const proc = startProcess(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], { cwd: ctx.repoDir, env, logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, proc);
  return { name: 'bare-pg', proc, url, tally: { completed: 0, sent: 0 }, logLevel: null, dataDir: null, databaseUrl: null, keyId: null, logFile, profileDir: null };
}

/** `./bin/sendwell serve` on its own copy of the seeded SQLite database, or on PostgreSQL. */
async function startSendwell(ctx: BenchContext, seed: Omit<Seed, 'dataDir'> & { dataDir?: string; databaseUrl?: string }, name: string, logLevel: LogLevel): Promise<Server> {
  const dataDir = join(ctx.workDir, `data-${name}`);
  if (seed.dataDir) cpSync(seed.dataDir, dataDir, { recursive: true });
  const port = await freePort();
  const logFile = join(ctx.workDir, `server-${name}.log`);
  const profileDir = ctx.profile ? join(ctx.workDir, `profile-${name}`) : null;
  if (profileDir) mkdirSync(profileDir);
  const env = sendwellEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: logLevel, DATABASE_URL: seed.databaseUrl ?? '' });
  // Through node explicitly only when profiling: --cpu-prof is refused in NODE_OPTIONS.
  const proc = profileDir
    ? startProcess(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, 'bin/sendwell.mjs', 'serve'], { cwd: ctx.repoDir, env, logFile })
    : startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env, logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc);
  // One checked request first: a wrong key or e-mail would otherwise benchmark a 401 or 404.
  const probe = await fetch(`${url}/api/v1/contacts/${encodeURIComponent(seededEmail(1))}`, { headers: { 'x-api-key': seed.key } });
  const body = (await probe.json()) as { data?: { email?: string } };
  if (probe.status !== 200 || body.data?.email !== seededEmail(1)) throw new Error(`probe read on ${name} answered ${probe.status}: ${JSON.stringify(body)}`);
  const databaseUrl = seed.databaseUrl ?? null;
  return { name, proc, url, tally: { completed: 1, sent: 1 }, logLevel, dataDir: databaseUrl ? null : dataDir, databaseUrl, keyId: seed.keyId, logFile, profileDir };
}

async function run(ctx: BenchContext, s: Scenario, durationSec: number): Promise<LoadResult> {
  const { exitCode, signalCode } = s.server.proc.child;
  if (exitCode !== null || signalCode !== null) throw new Error(`the ${s.server.name} server ended during the run (exit code ${exitCode}, signal ${signalCode}); see ${s.server.logFile ?? 'its output'}`);
  const r = await runLoad(ctx.repoDir, s.spec(durationSec), s.server.proc.pid);
  // Only keyed requests count towards the key's usage (D9); /health is public.
  if (s.id !== 'a' && s.id !== 'd' && s.id !== 'e' && s.id !== 'f' && s.id !== 'g' && s.id !== 'h' && s.id !== 'i' && s.id !== 'j' && s.id !== 'k') {
    s.server.tally.completed += r.completed;
    s.server.tally.sent += r.sent;
  }
  return r;
}

function profileReport(server: Server): string {
  // The main thread's profile is the big one; tsx's module-loader thread writes a small one too.
  const files = (server.profileDir ? profilesIn(server.profileDir) : []).sort((x, y) => statSync(y).size - statSync(x).size);
  if (files.length === 0) return `No profile was written for ${server.name}.`;
  const { totalMs, functions, packages } = summariseProfile(files[0]);
  return [
    `### CPU profile of the ${server.name} server, LOG_LEVEL=${server.logLevel} (${totalMs} ms on CPU in samples, start-up included; ${files[0]})`,
    '',
    table(['package', 'self ms', '%'], packages.map((p) => [p.name, p.selfMs, p.percent])),
    '',
    table(['function', 'where', 'self ms', '%'], functions.map((f) => [f.name, f.where, f.selfMs, f.percent])),
  ].join('\n');
}

export async function apiBench(ctx: BenchContext): Promise<BenchReport> {
  const rounds = ctx.rounds ?? 1;
  const roundSec = ctx.durationSec / rounds;
  // The creep guard's reference: the run recorded before this one (read now, before it is rewritten).
  const recorded = recordedCpu(readFileSync(join(ctx.repoDir, 'bench', 'RESULTS.md'), 'utf8'));
  const loadBefore = loadavg();
  const seedStart = Date.now();
  const seed = await seedDataDir(ctx.repoDir, join(ctx.workDir, 'seed'), CONTACTS);
  ctx.log(`seeded ${n(CONTACTS)} contacts in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

  const servers: Server[] = [];
  const scenarios: Scenario[] = [];
  const readPaths = randomPaths(READ_SAMPLE, seed.contacts);
  const keyed = { 'x-api-key': seed.key };
  const dbName = `sendwell_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const databaseUrl = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${dbName}` }).toString();
  try {
    if (!ctx.profile) {
      const bare = await startBare(ctx, seed, 'bare');
      servers.push(bare);
      scenarios.push({ id: 'a', label: '(a) bare Fastify, constant route', server: bare, logLevel: null, spec: (d) => ({ url: bare.url, connections: ctx.connections, durationSec: d }), rounds: [] });
      const rawPaths = readPaths.map((p) => p.replace('/api/v1/contacts/', '/contacts/'));
      scenarios.push({
        id: 'e',
        label: '(e) reference: bare Fastify + one raw better-sqlite3 lookup (no key, schema or log)',
        server: bare,
        logLevel: null,
        spec: (d) => ({ url: bare.url, connections: ctx.connections, durationSec: d, paths: rawPaths }),
        rounds: [],
      });
      // Issue 35's floors: what the libraries and the statements cost with nothing of ours around them.
      const logged = await startBare(ctx, seed, 'bare-logged', true);
      servers.push(logged);
      scenarios.push({
        id: 'f',
        label: '(f) floor: (a) with pino writing one access-log line per request, as Sendwell does',
        server: logged,
        logLevel: null,
        spec: (d) => ({ url: logged.url, connections: ctx.connections, durationSec: d }),
        rounds: [],
      });
      scenarios.push({
        id: 'g',
        label: "(g) floor: bare Fastify + the create's statements raw (better-sqlite3, one transaction per request; no key, validation, serialiser or log)",
        server: bare,
        logLevel: null,
        spec: createSpec(ctx, bare.url, '/contacts', 'raw'),
        rounds: [],
      });
      scenarios.push({
        id: 'h',
        label: "(h) floor: (g) with the key's hash looked up in a map, the route's body schema (ajv) and answer schema (fast-json-stringify), a pino access-log line and a prom-client observation",
        server: bare,
        logLevel: null,
        spec: createSpec(ctx, bare.url, '/floor/contacts', 'floor', keyed),
        rounds: [],
      });
      const floorPaths = readPaths.map((p) => p.replace('/api/v1/contacts/', '/floor/contacts/'));
      scenarios.push({
        id: 'i',
        label: "(i) floor: (e)'s lookup with the contact's memberships, the key's hash looked up in a map, the answer's schema (fast-json-stringify), a pino access-log line and a prom-client observation",
        server: bare,
        logLevel: null,
        spec: (d) => ({ url: bare.url, connections: ctx.connections, durationSec: d, headers: keyed, paths: floorPaths }),
        rounds: [],
      });
    }
    // Profiled: the default level only (the access log's cost is the info/warn pair of a full run).
    for (const level of ctx.profile ? (['info'] as const) : LOG_LEVELS) {
      // Reads and writes get separate servers and database copies, so (b) always reads the seeded 100k.
      const reader = await startSendwell(ctx, seed, `${level}-read`, level);
      servers.push(reader);
      if (!ctx.profile) {
        scenarios.push({
          id: 'd',
          label: `(d) diagnostic: GET /health (public, no database), LOG_LEVEL=${level}`,
          server: reader,
          logLevel: level,
          spec: (d) => ({ url: reader.url, connections: ctx.connections, durationSec: d, paths: ['/health'] }),
          rounds: [],
        });
      }
      scenarios.push({
        id: 'b',
        label: `(b) GET /api/v1/contacts/{email}, LOG_LEVEL=${level}`,
        server: reader,
        logLevel: level,
        spec: (d) => ({ url: reader.url, connections: ctx.connections, durationSec: d, headers: keyed, paths: readPaths }),
        rounds: [],
      });
      const writer = await startSendwell(ctx, seed, `${level}-write`, level);
      servers.push(writer);
      scenarios.push({
        id: 'c',
        label: `(c) POST /api/v1/contacts, LOG_LEVEL=${level}`,
        server: writer,
        logLevel: level,
        spec: createSpec(ctx, writer.url, '/api/v1/contacts', `new-${level}`, keyed),
        rounds: [],
      });
    }
    // The PostgreSQL pair: the same requests, at the default LOG_LEVEL, on the same data.
    const pgSeed = { ...(await seedPostgres(ctx.repoDir, join(ctx.workDir, 'pg-cli'), databaseUrl, CONTACTS)), databaseUrl };
    ctx.log(`seeded ${n(CONTACTS)} contacts in PostgreSQL (${dbName})`);
    const pgKeyed = { 'x-api-key': pgSeed.key };
    const pgReader = await startSendwell(ctx, pgSeed, 'pg-read', 'info');
    servers.push(pgReader);
    if (!ctx.profile) {
      const barePg = await startBarePg(ctx, pgSeed.accountId, databaseUrl);
      servers.push(barePg);
      const pgFloorPaths = readPaths.map((p) => p.replace('/api/v1/contacts/', '/floor/pg/contacts/'));
      scenarios.push({
        id: 'j',
        label: "(j) floor: (i) on PostgreSQL, the same statement sent by name through a pg pool of 10",
        server: barePg,
        logLevel: null,
        spec: (d) => ({ url: barePg.url, connections: ctx.connections, durationSec: d, headers: pgKeyed, paths: pgFloorPaths }),
        rounds: [],
      });
      scenarios.push({
        id: 'k',
        label: "(k) floor: (h) on PostgreSQL, the create's work as one statement (one round trip, its own transaction) through a pg pool of 10",
        server: barePg,
        logLevel: null,
        spec: createSpec(ctx, barePg.url, '/floor/pg/contacts', 'floor-pg', pgKeyed),
        rounds: [],
      });
    }
    scenarios.push({
      id: 'b-pg',
      label: '(b) GET /api/v1/contacts/{email} on PostgreSQL, LOG_LEVEL=info',
      server: pgReader,
      logLevel: 'info',
      spec: (d) => ({ url: pgReader.url, connections: ctx.connections, durationSec: d, headers: pgKeyed, paths: readPaths }),
      rounds: [],
    });
    {
      const pgWriter = await startSendwell(ctx, pgSeed, 'pg-write', 'info');
      servers.push(pgWriter);
      scenarios.push({
        id: 'c-pg',
        label: '(c) POST /api/v1/contacts on PostgreSQL, LOG_LEVEL=info',
        server: pgWriter,
        logLevel: 'info',
        spec: createSpec(ctx, pgWriter.url, '/api/v1/contacts', 'pg', pgKeyed),
        rounds: [],
      });
    }
    ctx.log(`started ${servers.length} servers: ${servers.map((s) => s.name).join(', ')}`);
    // While working on one path: BENCH_API_ONLY=a,e,d/info,b/info runs just those (nothing is recorded then).
    if (onlyScenarios) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => onlyScenarios.some((o) => o === s.id || o === `${s.id}/${s.logLevel}`)));

    for (const s of scenarios) if (ctx.warmupSec > 0) await run(ctx, s, ctx.warmupSec);
    ctx.log(`warmed up (${ctx.warmupSec} s each)`);
    for (let round = 0; round < rounds; round++) {
      // Rotated each round, so no scenario always follows the same one.
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      for (const s of order) s.rounds.push(await run(ctx, s, roundSec));
      ctx.log(`round ${round + 1}/${rounds}: ` + scenarios.map((s) => `${s.id}${s.logLevel ? '/' + s.logLevel : ''} ${n(s.rounds[round].completed / s.rounds[round].durationSec)}`).join(', ') + ' req/s');
    }
  } finally {
    for (const s of servers) await s.proc.stop();
  }
  const loadAfter = loadavg();
  // D9: usage is counted in memory and flushed on clean shutdown, so after a server stops its
  // key's request_count must cover every keyed request it answered: at least those the load
  // generator saw completed, at most those it sent (it drops in-flight requests when a run ends).
  const stored = new Map<Server, number>();
  try {
    for (const s of servers) {
      if (s.dataDir) stored.set(s, storedRequestCount(s.dataDir, seed.keyId));
      else if (s.databaseUrl && s.keyId !== null) stored.set(s, await storedRequestCountPg(s.databaseUrl, s.keyId));
    }
  } finally {
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    await admin.end();
  }

  // Issue 35: each scenario's CPU per request over its reference's, against the recorded run's.
  const measuredCpu: CpuByScenario = new Map(scenarios.filter((sc) => sc.rounds.length > 0).map((sc) => [sc.label, perReq(combine(sc.rounds))]));
  const creep = compareWithRecorded(measuredCpu, recorded);
  for (const check of creep) ctx.log(creepLine(check));
  if (ctx.profile || onlyScenarios) {
    if (onlyScenarios) {
      const lines = scenarios.map((sc) => {
        const c = combine(sc.rounds);
        return `${sc.label}: ${n(c.reqPerSec)} req/s, p99 ${c.p99} ms, server CPU ${perReq(c)} µs/req`;
      });
      return { id: 'api', markdown: [...lines, '', ...creep.map(creepLine)].join('\n'), targetMet: false };
    }
    return { id: 'api', markdown: servers.map(profileReport).join('\n\n'), targetMet: false };
  }

  const bare = scenarios.find((s) => s.id === 'a')!;
  const a = combine(bare.rounds);
  const rate = (r: LoadResult) => r.completed / r.durationSec;
  const roundRatios = (s: Scenario) => s.rounds.map((r, i) => rate(r) / rate(bare.rounds[i]));
  const rows = scenarios.map((s) => {
    const c = combine(s.rounds);
    const ratios = roundRatios(s);
    return [
      s.label,
      n(c.reqPerSec),
      c.p50,
      c.p99Worst === c.p99 ? c.p99 : `${c.p99} (worst ${c.p99Worst})`,
      c.max,
      s.id === 'a' ? '' : `${(c.reqPerSec / a.reqPerSec).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
      `${c.non2xx} / ${c.errors}`,
      pct(c.serverCpuSeconds, c.durationSec),
      c.serverCpuSeconds === null ? 'n/a' : perReq(c),
      pct(c.loadCpuSeconds, c.durationSec),
    ];
  });

  const find = (id: Scenario['id'], level: LogLevel | null) => scenarios.find((x) => x.id === id && x.logLevel === level);
  const e = combine(find('e', null)!.rounds);
  const cpuVerdict = (name: string, id: Scenario['id'], level: LogLevel, base: Combined, baseName: string, target: number) => {
    const x = combine(find(id, level)!.rounds);
    const times = perReq(x) / perReq(base);
    const ok = times <= target && valid(x) && valid(base);
    return { ok, text: `${name}, LOG_LEVEL=${level}: ${perReq(x)} µs against ${baseName} ${perReq(base)} µs = **${times.toFixed(2)} x** (target ≤ ${target} x: ${ok ? 'met' : 'NOT met'})` };
  };
  const rateVerdict = (name: string, id: Scenario['id'], sqliteId: Scenario['id'], target: number) => {
    const onPg = combine(find(id, 'info')!.rounds);
    const onSqlite = combine(find(sqliteId, 'info')!.rounds);
    const ratio = onPg.reqPerSec / onSqlite.reqPerSec;
    const ok = ratio >= target && valid(onPg);
    return {
      ok,
      text: `${name}: PostgreSQL ${n(onPg.reqPerSec)} req/s against SQLite ${n(onSqlite.reqPerSec)} = **${ratio.toFixed(2)}** (target ≥ ${target}: ${ok ? 'met' : 'NOT met'}); API CPU per request ${perReq(onPg)} µs against ${perReq(onSqlite)} µs`,
    };
  };
  const verdicts = [
    cpuVerdict('(d) GET /health', 'd', 'info', a, '(a)', TARGET_HEALTH_VS_BARE),
    cpuVerdict('(b) authenticated read', 'b', 'info', e, '(e)', TARGET_READ_VS_RAW),
    cpuVerdict('(c) create', 'c', 'info', e, '(e)', TARGET_WRITE_VS_RAW),
    rateVerdict('(b) read on PostgreSQL', 'b-pg', 'b', TARGET_PG_READ),
    rateVerdict('(c) create on PostgreSQL', 'c-pg', 'c', TARGET_PG_WRITE),
  ];
  const withoutAccessLog = [
    cpuVerdict('(d) GET /health', 'd', 'warn', a, '(a)', TARGET_HEALTH_VS_BARE),
    cpuVerdict('(b) authenticated read', 'b', 'warn', e, '(e)', TARGET_READ_VS_RAW),
    cpuVerdict('(c) create', 'c', 'warn', e, '(e)', TARGET_WRITE_VS_RAW),
  ];
  const invalid = scenarios.filter((s) => !valid(combine(s.rounds))).map((s) => s.label);
  const f = combine(find('f', null)!.rounds);
  const g = combine(find('g', null)!.rounds);
  const h = combine(find('h', null)!.rounds);
  const floorRead = combine(find('i', null)!.rounds);
  const floorReadPg = combine(find('j', null)!.rounds);
  const floorCreatePg = combine(find('k', null)!.rounds);
  const times = (x: Combined, y: Combined) => (perReq(x) / perReq(y)).toFixed(2);
  const floors = [
    `(f) the access log alone: ${perReq(f)} µs against (a) ${perReq(a)} µs = **${times(f, a)} x**; (d) GET /health at info is ${times(combine(find('d', 'info')!.rounds), f)} x (f)`,
    `(g) the create's statements alone: ${perReq(g)} µs against (e) ${perReq(e)} µs = **${times(g, e)} x** (the target for (c) is 4 x); (c) at info is ${times(combine(find('c', 'info')!.rounds), g)} x (g)`,
    `(i) the read's statement with the libraries every read also runs (key hash, answer schema, access log, histogram): ${perReq(floorRead)} µs against (e) ${perReq(e)} µs = **${times(floorRead, e)} x** (the target for (b) is 1.5 x); (b) at info is ${times(combine(find('b', 'info')!.rounds), floorRead)} x (i)`,
    `(j) the read's floor on PostgreSQL: ${n(floorReadPg.reqPerSec)} req/s against (i) on SQLite ${n(floorRead.reqPerSec)} = **${(floorReadPg.reqPerSec / floorRead.reqPerSec).toFixed(2)}** (the target for the PostgreSQL read is 0.7 of the SQLite read's rate; (b) on SQLite runs at ${(combine(find('b', 'info')!.rounds).reqPerSec / floorRead.reqPerSec).toFixed(2)} of (i)'s rate, (b) on PostgreSQL at ${(combine(find('b-pg', 'info')!.rounds).reqPerSec / floorReadPg.reqPerSec).toFixed(2)} of (j)'s)`,
    `(h) the create's statements with the libraries every create also runs (key hash, both schemas, access log, histogram): ${perReq(h)} µs against (e) ${perReq(e)} µs = **${times(h, e)} x**; (c) at info is ${times(combine(find('c', 'info')!.rounds), h)} x (h)`,
    `(k) the create's floor on PostgreSQL, its work in one round trip: ${n(floorCreatePg.reqPerSec)} req/s against (h) on SQLite ${n(h.reqPerSec)} = **${(floorCreatePg.reqPerSec / h.reqPerSec).toFixed(2)}** (the target for the PostgreSQL create is 0.5 of the SQLite create's rate; (c) on SQLite runs at ${(combine(find('c', 'info')!.rounds).reqPerSec / h.reqPerSec).toFixed(2)} of (h)'s rate, (c) on PostgreSQL at ${(combine(find('c-pg', 'info')!.rounds).reqPerSec / floorCreatePg.reqPerSec).toFixed(2)} of (k)'s)`,
  ];

  const checks = servers
    .filter((s) => stored.has(s))
    .map((s) => {
      const count = stored.get(s)!;
      // The PostgreSQL reader and writer share one database and key: their tallies add up.
      const sharing = s.databaseUrl ? servers.filter((x) => x.databaseUrl === s.databaseUrl) : [s];
      const completed = sum(sharing.map((x) => x.tally.completed));
      const sent = sum(sharing.map((x) => x.tally.sent));
      const ok = s.proc.child.exitCode === 0 && count >= completed && count <= sent;
      const log = s.logFile ? readFileSync(s.logFile, 'utf8') : '';
      const accessLines = log.split('\n').filter((l) => l.includes('"msg":"request"')).length;
      return (
        `${s.name} server${sharing.length > 1 ? ` (with ${sharing.filter((x) => x !== s).map((x) => x.name).join(', ')}, same key)` : ''}: exit code ${s.proc.child.exitCode}; key request_count stored after shutdown ${n(count)}, keyed requests completed ${n(completed)} / sent ${n(sent)} ` +
        `→ usage flushed on shutdown: ${ok ? 'yes' : 'NO'}; access-log lines ${n(accessLines)}, stdout ${(statSync(s.logFile!).size / 1e6).toFixed(1)} MB`
      );
    });

  const cpu = cpus();
  const markdown = [
    '## API hot path: the app against bare Fastify and a raw lookup, SQLite and PostgreSQL',
    '',
    `- Date: ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    `- Command: \`npm run bench\` (this section alone: \`npm run bench -- --only api\`), on ${sourceVersion(ctx.repoDir)}`,
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, Fastify ${packageVersion(ctx.repoDir, 'fastify')}, autocannon ${packageVersion(ctx.repoDir, 'autocannon')}. ` +
      'The load generator (autocannon in its own process, bench/load.ts) shares the cores with the server, so absolute figures are lower than with a separate client machine; the targets are ratios. ' +
      `Load average (1, 5, 15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${loadAfter.map((l) => l.toFixed(2)).join(', ')}. Anything above ~0.5 means other work shared the cores and every figure is depressed.`,
    `- Load: ${ctx.connections} connections, no pipelining. Each scenario: ${ctx.warmupSec} s warm-up (discarded), then ${ctx.durationSec} s measured as ${rounds} rounds of ${roundSec} s; the scenarios take turns round by round, so background load hits them alike.`,
    `- Data: ${n(CONTACTS)} contacts in one enterprise-plan account (no rate limit), embedded SQLite in a temporary DATA_DIR, one \`*\` key; the same rows in a PostgreSQL database made for the run (${PG_ADMIN_URL.replace(/\/\/[^@]*@/, '//')}, same machine, pool of 10) for the PostgreSQL pair. ` +
      `(b) cycles through ${READ_SAMPLE} e-mails drawn at random from the ${n(CONTACTS)}; (c) posts a new e-mail per request to a separate server and database copy, so (b) always reads the seeded table. ` +
      'Sendwell runs as `./bin/sendwell serve` with LOG_LEVEL=info (the default: one access-log line per request; stdout to a file) and with LOG_LEVEL=warn. (a) has no logger. ' +
      '(d): the public GET /health of the same server as (b) (same hooks and access log, no key, no database): what the app costs every request. ' +
      '(e): the (a) process with one more route doing a raw better-sqlite3 lookup of the same e-mails (statement prepared once; no key, schema or log): the cheapest database-backed read, the reference for (b) and (c). ' +
      "(f) and (g), issue 35's floors: (f) is (a) in a process of its own whose pino logger writes Sendwell's one access-log line per request in 4 KiB blocks; (g) is a route of the (a) process running the SQL a create runs (the same texts, prepared once, on a copy of the seeded database with the same pragmas) in one BEGIN IMMEDIATE ... COMMIT per request, on Fastify's body parser, nothing else; (h) is (g) in a scope of the same process that also checks the key (its SHA-256 in a map, as Sendwell's key cache does), validates the body against the route's own schema and writes the answer from its own (Fastify's default ajv and fast-json-stringify), and per request writes the access-log line through pino and observes a prom-client histogram: the work no create can skip, by the libraries alone; (i) is the same scope's read: (e)'s lookup with the memberships gathered as Sendwell's statement does, the key, the answer's schema, the log line and the histogram; (j) is (i) on the PostgreSQL pair's database, in a process of its own, the same statement sent by name through a pg pool of 10, and (k), in that process, is (h) with the create's work sent as one PostgreSQL statement (data-modifying CTEs: one round trip and its own transaction, bench/lib/create-sql.ts).",
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'max ms', '÷ (a)', 'non-2xx / errors', 'server CPU', 'server CPU µs/req', 'load-gen CPU'], rows),
    '',
    'req/s is responses over measured time, all rounds together; ÷ (a) also gives the range of the per-round ratios (each round measures (a) and the scenario minutes apart at most). ' +
      'p50/p99 are the median round\'s (the worst round\'s p99 in brackets when different); autocannon\'s histogram has whole milliseconds, so "p99 1" means under 2 ms. ' +
      `max for (b) and (e) includes each connection's first request, which waits while autocannon builds its ${READ_SAMPLE}-path list for every connection (about 0.5 s). ` +
      'CPU is CPU time over wall time (100% = one core); server CPU µs/req is the server process\'s CPU time during the rounds divided by the responses completed (the most load-independent figure here). ' +
      'Other work on the machine depresses (a) more than (b) (the bare route is limited by how much CPU the server and the load generator get, the API by its own cost per request), so a busy machine flatters a req/s ratio; that is why the SQLite targets compare CPU per request. ' +
      'The PostgreSQL rows\' server CPU is the Sendwell process only; PostgreSQL\'s own backends run beside it on the same two cores.',
    '',
    '### Targets',
    '',
    ...verdicts.map((v) => `- ${v.text}`),
    '',
    'Floors (issue 35): the same libraries and statements with nothing of ours around them, in the same run:',
    '',
    ...floors.map((l) => `- ${l}`),
    '',
    'The same with LOG_LEVEL=warn (no access-log line), for comparison:',
    '',
    ...withoutAccessLog.map((v) => `- ${v.text}`),
    ...(invalid.length > 0 ? [`- Not trustworthy (non-2xx responses or errors): ${invalid.join('; ')}`] : []),
    '',
    '### Creep guard',
    '',
    `Each scenario's server CPU per request over its reference's, against the same ratio in the run recorded here before this one; the reference is the floor of the same work where both runs have it ((f) for (d), (i) for (b) and (h) for (c), at LOG_LEVEL=info on SQLite), else (a) for (d) and (e) for the rest; more than ${CREEP_TOLERANCE * 100}% worse prints a REGRESSION line (bench/lib/creep-guard.ts). docs/TESTING.md asks for this run before resolving any issue that touches a request path.`,
    '',
    ...(creep.length > 0 ? creep.map((c) => `- ${creepLine(c)}`) : ['- No recorded run to compare with.']),
    '',
    '### Checks',
    '',
    ...checks.map((l) => `- ${l}`),
  ].join('\n');

  return { id: 'api', markdown, targetMet: verdicts.every((v) => v.ok) && invalid.length === 0 && !creep.some((c) => c.regression) };
}

/** The commit measured, and whether src/ had changes not yet committed. */
function sourceVersion(repoDir: string): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('--no-optional-locks', 'status', '--porcelain', '--', 'src') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' plus uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown commit';
  }
}

function packageVersion(repoDir: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(join(repoDir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
