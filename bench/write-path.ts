/**
 * Issue 35: a contact's create, step by step, on SQLite and on PostgreSQL, in this process (no
 * HTTP: the API bench's (c) against these gives what the HTTP layer adds). Each step is CPU time
 * of this process per create, over the same number of creates, 20 at a time as concurrent
 * requests would be:
 *   service                          ContactService.create with a key's acting context, as a request's handler runs it
 *   raw statements                   the create's SQL (the texts Sendwell sends), prepared once, on the
 *                                    driver alone (better-sqlite3; pg with named statements), one
 *                                    transaction per create: the floor of the database work
 *   raw begin + commit               an empty write transaction on the same driver
 *   each statement raw               one statement in a loop inside one transaction (SQLite)
 * On PostgreSQL the server's own backends work on the same two cores: their CPU is not in these
 * figures (the API bench's req/s ratio shows it), the round trips are (a socket write and read each).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { table } from './lib/results.ts';
import { CREATE_SQL } from './lib/create-sql.ts';
import { createCore, type Core } from '../src/core.ts';
import { loadConfig } from '../src/config.ts';
import { createAccount } from '../src/domain/accounts/accounts.service.ts';
import type { ActingContext } from '../src/domain/shared/actor.ts';
import { sqliteFile } from '../src/db/connect.ts';

const CREATES = Number(process.env.BENCH_WRITE_CREATES ?? 4000);
const IN_FLIGHT = 20;
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ACTING: ActingContext = { actor: { type: 'api_key' as const, id: '1', label: 'bench' }, ip: '127.0.0.1', userAgent: 'bench' };

/** CPU µs of this process per unit of `work` (called `count` times, IN_FLIGHT at once). */
async function cpuPer(count: number, work: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i += IN_FLIGHT) {
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count - i) }, (_, j) => work(i + j)));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

interface Step {
  name: string;
  sqlite: number | null;
  postgres: number | null;
}

async function serviceStep(core: Core, prefix: string): Promise<number> {
  const { id } = await createAccount(core.handle.db, { name: 'Bench', plan: 'enterprise' });
  const create = (tag: string) => (i: number) => core.contacts.create(ACTING, id, { email: `${prefix}-${tag}-${i}@bench.example`, first_name: 'Bench', tags: ['bench'] });
  await cpuPer(CREATES / 4, create('warm'));
  return cpuPer(CREATES, create('measured'));
}

function sqliteRaw(file: string, accountId: number): { statements: number; empty: number; each: Record<string, number> } {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  const insert = db.prepare(CREATE_SQL.insertContact);
  const erased = db.prepare(CREATE_SQL.erased);
  const listening = db.prepare(CREATE_SQL.listening);
  const audit = db.prepare(CREATE_SQL.audit);
  const fanOut = db.prepare(CREATE_SQL.webhookFanOut('text'));
  let n = 0;
  const steps = {
    'insert contact (returning *)': () => insert.get(accountId, `raw-${++n}@bench.example`, 'Bench', null, null, '["bench"]', '{}', 'SUBSCRIBED', 0, new Date().toISOString(), new Date().toISOString()) as { id: number },
    'erased-address check': () => erased.all(accountId, 'ERASURE', `sha256:${n}`),
    'listening workflows': () => listening.all(accountId, 1, 'CONTACT_CREATED', 'TAG_ADDED'),
    'audit entry': () => audit.run(accountId, new Date().toISOString(), 'api_key', '1', 'bench', 'contact.created', 'contact', String(n), '127.0.0.1', 'bench'),
    'webhook fan-out': () => fanOut.run(accountId, `evt_${n}`, 'contact.created', '{"id":1}', new Date().toISOString()),
  };
  const create = db.transaction(() => {
    for (const step of Object.values(steps)) step();
  });
  const timeSync = (count: number, fn: () => unknown) => {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) fn();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / count;
  };
  timeSync(CREATES / 4, () => create.immediate());
  const statements = timeSync(CREATES, () => create.immediate());
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const empty = timeSync(CREATES, () => {
    begin.run();
    commit.run();
  });
  const each: Record<string, number> = {};
  db.prepare('begin immediate').run();
  for (const [name, step] of Object.entries(steps)) each[name] = timeSync(CREATES, step);
  db.prepare('rollback').run();
  db.close();
  return { statements, empty, each };
}

async function pgRaw(databaseUrl: string, accountId: number): Promise<{ statements: number; empty: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', () => undefined);
  let n = 0;
  const q = (client: pg.PoolClient, name: string, text: string, values: unknown[]) => client.query({ name, text: numbered(text), values });
  const create = async () => {
    const client = await pool.connect();
    try {
      const i = ++n;
      const now = new Date().toISOString();
      await client.query('begin');
      const { rows } = await q(client, 'raw_insert', CREATE_SQL.insertContact, [accountId, `raw-${i}-${randomBytes(3).toString('hex')}@bench.example`, 'Bench', null, null, '["bench"]', '{}', 'SUBSCRIBED', 0, now, now]);
      await q(client, 'raw_erased', CREATE_SQL.erased, [accountId, 'ERASURE', `sha256:${i}`]);
      await q(client, 'raw_listening', CREATE_SQL.listening, [accountId, 1, 'CONTACT_CREATED', 'TAG_ADDED']);
      await q(client, 'raw_fan_out', CREATE_SQL.webhookFanOut('timestamptz'), [accountId, `evt_${i}`, 'contact.created', '{"id":1}', now]);
      await q(client, 'raw_audit', CREATE_SQL.audit, [accountId, now, 'api_key', '1', 'bench', 'contact.created', 'contact', String(rows[0].id), '127.0.0.1', 'bench']);
      await client.query('commit');
    } finally {
      client.release();
    }
  };
  const empty = async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('commit');
    } finally {
      client.release();
    }
  };
  await cpuPer(CREATES / 4, create);
  const statements = await cpuPer(CREATES, create);
  const emptyCost = await cpuPer(CREATES, empty);
  await pool.end();
  return { statements, empty: emptyCost };
}

export async function writePathBench(ctx: BenchContext): Promise<BenchReport> {
  const steps: Step[] = [];
  const round = (x: number | null) => (x === null ? '' : Math.round(x));

  // SQLite: a data folder of its own.
  const dataDir = join(ctx.workDir, 'sqlite');
  mkdirSync(dataDir, { recursive: true });
  const sqliteCore = await createCore(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' }));
  const onSqlite = await serviceStep(sqliteCore, 'sqlite');
  const { id: rawAccount } = await createAccount(sqliteCore.handle.db, { name: 'Raw', plan: 'enterprise' });
  await sqliteCore.close();
  const raw = sqliteRaw(sqliteFile(dataDir), rawAccount);
  ctx.log(`SQLite: service ${Math.round(onSqlite)} µs; raw ${Math.round(raw.statements)} µs`);

  // PostgreSQL: a database made for the run.
  const dbName = `sendwell_write_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const databaseUrl = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${dbName}` }).toString();
  let onPg: number;
  let pgRawCost: { statements: number; empty: number };
  try {
    const pgCore = await createCore(loadConfig({ DATA_DIR: join(ctx.workDir, 'pg'), DATABASE_URL: databaseUrl, REDIS_URL: '', LOG_LEVEL: 'warn' }));
    onPg = await serviceStep(pgCore, 'pg');
    const { id } = await createAccount(pgCore.handle.db, { name: 'Raw', plan: 'enterprise' });
    await pgCore.close();
    pgRawCost = await pgRaw(databaseUrl, id);
  } finally {
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    await admin.end();
  }
  ctx.log(`PostgreSQL: service ${Math.round(onPg)} µs; raw ${Math.round(pgRawCost.statements)} µs`);

  steps.push({ name: 'ContactService.create (what a request runs)', sqlite: onSqlite, postgres: onPg });
  steps.push({ name: "the create's SQL raw, one transaction per create (the driver alone)", sqlite: raw.statements, postgres: pgRawCost.statements });
  steps.push({ name: 'an empty write transaction raw (begin immediate + commit; begin + commit)', sqlite: raw.empty, postgres: pgRawCost.empty });
  for (const [name, cost] of Object.entries(raw.each)) steps.push({ name: `one statement raw, inside a transaction: ${name}`, sqlite: cost, postgres: null });

  const markdown = [
    '## The write path: a contact create step by step, in-process (issue 35)',
    '',
    `- Date: ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '- Command: `npm run bench -- --only write-path` (bench/write-path.ts)',
    `- What: CPU time of the process per create (process.cpuUsage), ${CREATES.toLocaleString('en-US')} creates per step, ${IN_FLIGHT} at a time, after a warm-up of a quarter as many. No HTTP: the API section's (c) minus the first row is what the HTTP layer adds. On PostgreSQL the server's backends share the cores and are not counted here.`,
    '',
    table(['step', 'SQLite µs per create', 'PostgreSQL µs per create (this process)'], steps.map((s) => [s.name, round(s.sqlite), round(s.postgres)])),
  ].join('\n');
  return { id: 'write-path', markdown, targetMet: true };
}
