/**
 * Issue 5's speed targets:
 *   1. 1,000,000 contacts through POST /v1/contacts/bulk in 1000-contact requests against a real
 *      `./bin/sendwell serve`, in contacts/s, on SQLite and on PostgreSQL. Target: >= 50k/s on
 *      SQLite. Baseline in the same run: better-sqlite3 alone inserting the same rows (the same
 *      columns, JSON and unique index) with one prepared statement in one transaction.
 *   2. Events per second through POST /v1/events with one active automation listening (each event
 *      stored, its run started, and run by the same process's runner).
 * BENCH_BULK_CONTACTS and BENCH_EVENTS change the sizes; BENCH_PG_URL the PostgreSQL server
 * (default: the test database; the benchmark works in a schema of its own and drops it).
 */
import SQLite from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { freePort, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, seedDataDir, sendwellEnv } from './lib/seed.ts';

const CONTACTS = Number(process.env.BENCH_BULK_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const PER_REQUEST = 1000;
/** requests in flight: enough to keep the server busy while one response travels */
const IN_FLIGHT = 2;
const EVENT_CONNECTIONS = 8;
const TARGET = 50_000;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The i-th contact as the bulk body carries it (the baseline inserts the same values). */
const contactJson = (i: number) => `{"email":"c-${i}@bulk.bench","firstName":"First${i}","lastName":"Last${i}","tags":["bench"],"customFields":{"n":${i},"source":"bench"}}`;

interface Running {
  proc: Proc;
  url: string;
  key: string;
}

async function startServe(ctx: BenchContext, env: NodeJS.ProcessEnv, key: string, name: string): Promise<Running> {
  const port = await freePort();
  const proc = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env: { ...env, PORT: String(port) }, logFile: join(ctx.workDir, `${name}.log`) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc);
  return { proc, url, key };
}

async function post(server: Running, path: string, body: string): Promise<any> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': server.key }, body });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** All contacts through the API, IN_FLIGHT requests at a time; contacts/s over the whole run. */
async function bulkThroughApi(server: Running, ctx: BenchContext, label: string): Promise<{ perSec: number; seconds: number; created: number }> {
  const requests = Math.ceil(CONTACTS / PER_REQUEST);
  let next = 0;
  let created = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < requests) {
      const r = next++;
      const items: string[] = [];
      for (let i = r * PER_REQUEST + 1; i <= Math.min(CONTACTS, (r + 1) * PER_REQUEST); i++) items.push(contactJson(i));
      const result = await post(server, '/v1/contacts/bulk', `{"contacts":[${items.join(',')}]}`);
      created += result.created;
      if (r % 100 === 99) ctx.log(`  ${label}: ${fmt((r + 1) * PER_REQUEST)} contacts, ${fmt(((r + 1) * PER_REQUEST) / ((performance.now() - started) / 1000))}/s`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (created !== CONTACTS) throw new Error(`${label}: created ${created} of ${CONTACTS}`);
  return { perSec: CONTACTS / seconds, seconds, created };
}

/** better-sqlite3 alone: the same rows, one prepared INSERT, one transaction, into a migrated database. */
function sqliteBaseline(dataDir: string, accountId: number): { perSec: number; seconds: number } {
  const db = new SQLite(join(dataDir, 'sendwell.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const insert = db.prepare(
      `insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, lead_score, status, created_at, updated_at)
       values (?, ?, ?, ?, null, ?, ?, 0, 'SUBSCRIBED', ?, ?)`,
    );
    const started = performance.now();
    db.transaction(() => {
      const now = new Date().toISOString();
      for (let i = 1; i <= CONTACTS; i++) insert.run(accountId, `c-${i}@bulk.bench`, `First${i}`, `Last${i}`, '["bench"]', `{"n":${i},"source":"bench"}`, now, now);
    })();
    const seconds = (performance.now() - started) / 1000;
    return { perSec: CONTACTS / seconds, seconds };
  } finally {
    db.close();
  }
}

/** Events through POST /v1/events to existing contacts, one automation listening; events/s until the last is accepted. */
async function eventsThroughApi(server: Running, ctx: BenchContext): Promise<{ perSec: number; seconds: number; runsEndedAfter: number }> {
  const automation = await post(server, '/api/v1/automations', JSON.stringify({ name: 'bench', trigger: { type: 'EVENT', event: 'order_placed' }, steps: [{ type: 'ADD_TAG', tag: 'ordered' }], allow_reentry: true }));
  await post(server, `/api/v1/automations/${automation.data.id}/activate`, '');
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < EVENTS) {
      const i = next++;
      await post(server, '/v1/events', `{"email":"c-${(i % CONTACTS) + 1}@bulk.bench","event":"order_placed","data":{"order":${i},"total":${i % 500}}}`);
    }
  };
  await Promise.all(Array.from({ length: EVENT_CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  ctx.log(`  events: ${fmt(EVENTS)} in ${seconds.toFixed(1)} s`);
  // The runs themselves: how long until the runner has finished them all (reported, not the target).
  const deadline = Date.now() + 300_000;
  for (;;) {
    const res = await fetch(`${server.url}/api/v1/automations/${automation.data.id}/runs?size=1`, { headers: { 'x-api-key': server.key } });
    const page = (await res.json()).data;
    const latest = page.runs[0];
    if ((page.totalElements === EVENTS && latest?.status !== 'ACTIVE') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { perSec: EVENTS / seconds, seconds, runsEndedAfter: (performance.now() - started) / 1000 };
}

async function pgQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function bulkBench(ctx: BenchContext): Promise<BenchReport> {
  const loadStart = loads();
  const date = new Date().toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

  ctx.log(`baseline: better-sqlite3 inserting ${fmt(CONTACTS)} rows in one transaction`);
  const baseDir = join(ctx.workDir, 'baseline');
  const baseSeed = await seedDataDir(ctx.repoDir, baseDir, 0);
  const baseline = sqliteBaseline(baseDir, baseSeed.accountId);
  ctx.log(`  ${fmt(baseline.perSec)} rows/s`);

  ctx.log(`SQLite: ${fmt(CONTACTS)} contacts through POST /v1/contacts/bulk`);
  const sqliteDir = join(ctx.workDir, 'sqlite');
  const seed = await seedDataDir(ctx.repoDir, sqliteDir, 0);
  const sqliteServer = await startServe(ctx, sendwellEnv(sqliteDir), seed.key, 'sqlite');
  let sqlite;
  let events;
  const loadSqlite = loads();
  try {
    sqlite = await bulkThroughApi(sqliteServer, ctx, 'sqlite');
    ctx.log(`  ${fmt(sqlite.perSec)} contacts/s`);
    ctx.log(`SQLite: ${fmt(EVENTS)} events through POST /v1/events, one automation listening`);
    events = await eventsThroughApi(sqliteServer, ctx);
  } finally {
    await sqliteServer.proc.stop();
  }
  const loadAfterSqlite = loads();

  ctx.log(`PostgreSQL: ${fmt(CONTACTS)} contacts through POST /v1/contacts/bulk`);
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  await pgQuery(PG_URL, `create schema ${schema}`);
  let postgres;
  const loadPg = loads();
  try {
    const scoped = new URL(PG_URL);
    scoped.searchParams.set('options', `-c search_path=${schema}`);
    const env = sendwellEnv(join(ctx.workDir, 'pg'), { DATABASE_URL: scoped.toString() });
    const account = await createBenchAccount(ctx.repoDir, env);
    const pgServer = await startServe(ctx, env, account.key, 'postgres');
    try {
      postgres = await bulkThroughApi(pgServer, ctx, 'postgres');
      ctx.log(`  ${fmt(postgres.perSec)} contacts/s`);
    } finally {
      await pgServer.proc.stop();
    }
  } finally {
    await pgQuery(PG_URL, `drop schema if exists ${schema} cascade`);
  }
  const loadEnd = loads();

  const cpu = cpus();
  const met = sqlite.perSec >= TARGET;
  const markdown = [
    '## Bulk import and events (issue 5)',
    '',
    `- Date: ${date}`,
    '- Command: `npm run bench -- --only bulk`',
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. The server (\`./bin/sendwell serve\`, operator defaults, LOG_LEVEL=info) and this client share the cores; PostgreSQL runs on the same machine. Load average (1, 5, 15 min) at the start: ${loadStart}; before SQLite: ${loadSqlite}; after SQLite: ${loadAfterSqlite}; before PostgreSQL: ${loadPg}; at the end: ${loadEnd} (the machine is shared with other work: figures are noisy).`,
    `- Bulk: ${fmt(CONTACTS)} new contacts in ${fmt(CONTACTS / PER_REQUEST)} requests of ${PER_REQUEST} (email, first and last name, one tag, two custom fields), ${IN_FLIGHT} requests in flight, into an empty account. The baseline is better-sqlite3 alone inserting the same rows into the same migrated table (its unique (account, e-mail) index included) with one prepared statement in one transaction, in this process.`,
    '',
    table(
      ['', 'contacts/s', 'seconds', 'vs baseline'],
      [
        ['better-sqlite3 alone (baseline)', fmt(baseline.perSec), baseline.seconds.toFixed(1), '1.00'],
        ['POST /v1/contacts/bulk, SQLite', `**${fmt(sqlite.perSec)}**`, sqlite.seconds.toFixed(1), (sqlite.perSec / baseline.perSec).toFixed(2)],
        ['POST /v1/contacts/bulk, PostgreSQL', `**${fmt(postgres.perSec)}**`, postgres.seconds.toFixed(1), (postgres.perSec / baseline.perSec).toFixed(2)],
      ],
    ),
    '',
    `Target ≥ ${fmt(TARGET)} contacts/s on SQLite: **${met ? 'met' : 'NOT met'}**.`,
    '',
    `- Events: ${fmt(EVENTS)} \`POST /v1/events\` (existing contacts, small \`data\`), ${EVENT_CONNECTIONS} connections, against the SQLite server above after its import (1M contacts), with one active automation (EVENT trigger, re-entry allowed, one ADD_TAG step) listening: each event is stored and starts a run in its request's transaction; the same process's runner runs them meanwhile. **${fmt(events.perSec)} events/s** (${events.seconds.toFixed(1)} s); the runner had finished every run ${events.runsEndedAfter.toFixed(1)} s after the first event.`,
  ].join('\n');
  return { id: 'bulk', markdown, targetMet: met };
}
