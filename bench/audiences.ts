/**
 * Issue 16's speed targets, on SQLite and on PostgreSQL, through a real `./bin/sendwell serve
 * --role api` (HTTP only, so nothing is sent):
 *   - a five-condition segment (a tag, a custom-field comparison, a list, "opened campaign X" and
 *     "clicked no campaign within 30 days") over 1,000,000 contacts: its count (GET
 *     /segments/{id}), p50 under 500 ms;
 *   - the audience snapshot of a campaign that targets it (POST /campaigns/{id}/send answers once
 *     the recipients are written), under 10 s;
 *   - a filtered page of the recipient ledger of a 1,000,000-recipient campaign, p50 under 50 ms.
 * Baseline in the same run: the database alone counting the account's contacts (one indexed
 * COUNT, the least any segment count can cost), from this process.
 *
 * Data: CONTACTS contacts (tags, three custom fields, memberships of three lists) and ten SENT
 * campaigns, the first to everyone and the others to 30% each, with opens (25%), clicks (6%) and
 * bounces (1%): 3.7 million recipient rows at the default size. Seeded by set-based SQL straight
 * into the migrated tables (the API would take longer than the benchmark). BENCH_AUDIENCE_CONTACTS
 * changes the size; BENCH_PG_URL the PostgreSQL server (a schema of its own, dropped after).
 */
import SQLite from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { freePort, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';

const CONTACTS = Number(process.env.BENCH_AUDIENCE_CONTACTS ?? 1_000_000);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SAMPLES = 9;
const TARGET = { countMs: 500, snapshotMs: 10_000, ledgerMs: 50 };
const DAY = 86_400_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(1) : fmt(n));
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The seed as SQL for either dialect: `seq` is a table expression of 1..n in a column `i`.
 * Contact i: tag "vip" when i % 10 = 0 and "beta" when i % 3 = 0; custom fields plan (free, pro,
 * team), seats (i % 50) and trial (i % 7 = 0); in list 1 when i is even, list 2 when i % 5 = 0,
 * list 3 when i % 7 = 0. Campaign k (1-10) was sent 5k days ago, to everyone (k = 1) or to
 * i % 10 < 3; a recipient opened when (i / 10 + 3i + k) % 4 = 0 (integer division), clicked when
 * that is % 16 = 0, and
 * bounced (not opened) when (i + k) % 100 = 0.
 */
export function seedStatements(dialect: 'sqlite' | 'postgres', accountId: number, now: number) {
  const seq = dialect === 'postgres' ? `generate_series(1, ${CONTACTS}) as seq(i)` : `(with recursive s(i) as (select 1 union all select i + 1 from s where i < ${CONTACTS}) select i from s) as seq`;
  const ts = (expr: string) => (dialect === 'postgres' ? `(${expr})::timestamptz` : expr);
  // A contact's tags and custom fields are jsonb on PostgreSQL (migration 0013), JSON text on SQLite.
  const doc = (expr: string) => (dialect === 'postgres' ? `(${expr})::jsonb` : expr);
  const created = new Date(now - 400 * DAY).toISOString();
  const statements = [
    `insert into lists (account_id, name, name_key, is_active, contact_count, created_at, updated_at) values
       (${accountId}, 'Even', 'even', 1, 0, '${created}', '${created}'), (${accountId}, 'Fifth', 'fifth', 1, 0, '${created}', '${created}'), (${accountId}, 'Seventh', 'seventh', 1, 0, '${created}', '${created}')`,
    `insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, lead_score, status, created_at, updated_at)
     select ${accountId}, 'contact-' || i || '@audience.bench', 'First' || i, null, null,
            ${doc(`case when i % 30 = 0 then '["vip","beta"]' when i % 10 = 0 then '["vip"]' when i % 3 = 0 then '["beta"]' else '[]' end`)},
            ${doc(`'{"plan":"' || (case i % 3 when 0 then 'free' when 1 then 'pro' else 'team' end) || '","seats":' || (i % 50) || ',"trial":' || (case when i % 7 = 0 then 'true' else 'false' end) || '}'`)},
            i % 100, case when i % 50 = 0 then 'UNSUBSCRIBED' else 'SUBSCRIBED' end, ${ts(`'${created}'`)}, ${ts(`'${created}'`)}
     from ${seq}`,
  ];
  const byName = (name: string) => `(select id from lists where account_id = ${accountId} and name = '${name}')`;
  for (const [name, rule] of [['Even', 'c.id % 2 = 0'], ['Fifth', 'c.id % 5 = 0'], ['Seventh', 'c.id % 7 = 0']]) {
    statements.push(`insert into list_members (list_id, contact_id, created_at) select ${byName(name)}, c.id, c.created_at from contacts c where c.account_id = ${accountId} and ${rule}`);
    statements.push(`update lists set contact_count = (select count(*) from list_members m where m.list_id = lists.id) where id = ${byName(name)}`);
  }
  for (let k = 1; k <= 10; k++) {
    const sentAt = new Date(now - 5 * k * DAY).toISOString();
    const plus = (hours: number) => `'${new Date(now - 5 * k * DAY + hours * 3_600_000).toISOString()}'`;
    const key = `(c.id / 10 + c.id * 3 + ${k})`;
    statements.push(
      `insert into campaigns (account_id, name, subject, from_email, html, list_ids, tags, status, total_recipients, sent_at, links, created_at, updated_at)
       values (${accountId}, 'Newsletter ${k}', 'News ${k}', 'news@audience.bench', '<p>News</p>', '[]', '[]', 'SENT', 0, '${sentAt}', '[]', '${sentAt}', '${sentAt}')`,
      `insert into campaign_recipients (campaign_id, contact_id, email, status, attempts, sent_at, opened_at, clicked_at, bounced_at)
       select (select id from campaigns where account_id = ${accountId} and name = 'Newsletter ${k}'), c.id, c.email,
              case when (c.id + ${k}) % 100 = 0 then 'BOUNCED' else 'SENT' end, 1, ${ts(`'${sentAt}'`)},
              case when (c.id + ${k}) % 100 <> 0 and ${key} % 4 = 0 then ${ts(plus(1))} end,
              case when (c.id + ${k}) % 100 <> 0 and ${key} % 16 = 0 then ${ts(plus(2))} end,
              case when (c.id + ${k}) % 100 = 0 then ${ts(`'${sentAt}'`)} end
       from contacts c where c.account_id = ${accountId} ${k === 1 ? '' : 'and c.id % 10 < 3'}`,
    );
  }
  return statements;
}

interface Measured {
  baselineMs: number;
  countMs: number;
  previewMs: number;
  members: number;
  snapshotMs: number;
  recipients: number;
  ledger: { label: string; ms: number; total: number }[];
  seedSec: number;
}

interface Api {
  url: string;
  key: string;
}

async function call(api: Api, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(api.url + path, { method, headers: { 'x-api-key': api.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

/** One warm-up, then SAMPLES timed runs: the median. */
async function medianMs(run: () => Promise<unknown>): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push((await timed(run)).ms);
  return p50(samples);
}

/** The five conditions of the issue, over the seeded data. */
function fiveConditions(listId: number, openedCampaignId: number) {
  return {
    all: [
      { field: 'tags', op: 'contains', value: 'vip' },
      { field: 'custom_fields.seats', op: 'gte', value: 10 },
      { field: 'lists', op: 'contains', value: listId },
      { field: 'campaign.opened', op: 'eq', value: true, campaign_id: openedCampaignId },
      { field: 'campaign.clicked', op: 'eq', value: false, campaign_id: 'any', within_days: 30 },
    ],
  };
}

async function measure(ctx: BenchContext, api: Api, baseline: () => Promise<unknown>): Promise<Omit<Measured, 'seedSec'>> {
  const lists = (await call(api, 'GET', '/api/v1/lists?size=10')).lists as { id: number; name: string }[];
  const campaigns = (await call(api, 'GET', '/api/v1/campaigns?status=SENT&size=20')).campaigns as { id: number; name: string }[];
  const even = lists.find((l) => l.name === 'Even')!.id;
  const byName = (n: string) => campaigns.find((c) => c.name === n)!.id;
  const filter = fiveConditions(even, byName('Newsletter 3'));

  const baselineMs = await medianMs(baseline);
  const segment = await call(api, 'POST', '/api/v1/segments', { name: 'Five conditions', filter });
  ctx.log(`  segment of five conditions: ${fmt(segment.contact_count)} members`);
  const countMs = await medianMs(() => call(api, 'GET', `/api/v1/segments/${segment.id}`));
  const previewMs = await medianMs(() => call(api, 'POST', '/api/v1/segments/preview', { filter }));
  ctx.log(`  count p50 ${ms(countMs)} ms (baseline ${ms(baselineMs)} ms), preview p50 ${ms(previewMs)} ms`);

  const campaign = await call(api, 'POST', '/api/v1/campaigns', { name: 'To the segment', subject: 'Hi', from_email: 'news@audience.bench', html: '<p>Hi</p>', segment_ids: [segment.id] });
  const snapshot = await timed(() => call(api, 'POST', `/api/v1/campaigns/${campaign.id}/send`));
  ctx.log(`  snapshot of ${fmt(snapshot.value.total_recipients)} recipients: ${fmt(snapshot.ms)} ms`);

  const big = byName('Newsletter 1');
  const ledger = [];
  for (const [label, query] of [
    ['status=SENT&opened=false, page 100 of 50', 'status=SENT&opened=false&size=50&page=100'],
    ['clicked=true, page 10 of 50', 'clicked=true&size=50&page=10'],
    ['status=BOUNCED, first page', 'status=BOUNCED&size=50'],
    ['no filter, page 1,000 of 50 (no target: not filtered)', 'size=50&page=1000'],
  ] as const) {
    let total = 0;
    const taken = await medianMs(async () => (total = (await call(api, 'GET', `/api/v1/campaigns/${big}/recipients?${query}`)).totalElements));
    ledger.push({ label, ms: taken, total });
    ctx.log(`  ledger ${label}: p50 ${ms(taken)} ms (${fmt(total)} matching)`);
  }
  return { baselineMs, countMs, previewMs, members: segment.contact_count, snapshotMs: snapshot.ms, recipients: snapshot.value.total_recipients, ledger };
}

async function startApi(ctx: BenchContext, env: NodeJS.ProcessEnv, key: string, name: string): Promise<{ proc: Proc; api: Api }> {
  const port = await freePort();
  const proc = startProcess('./bin/sendwell', ['serve', '--role', 'api'], { cwd: ctx.repoDir, env: { ...env, PORT: String(port), LOG_LEVEL: 'warn' }, logFile: join(ctx.workDir, `${name}.log`) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc, 120_000);
  return { proc, api: { url, key } };
}

async function onSqlite(ctx: BenchContext): Promise<Measured> {
  const dir = join(ctx.workDir, 'sqlite');
  const env = sendwellEnv(dir);
  const account = await createBenchAccount(ctx.repoDir, env);
  const started = performance.now();
  const db = new SQLite(join(dir, 'sendwell.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      for (const statement of seedStatements('sqlite', account.accountId, Date.now())) db.exec(statement);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  const seedSec = (performance.now() - started) / 1000;
  ctx.log(`  seeded in ${seedSec.toFixed(0)} s`);
  const reader = new SQLite(join(dir, 'sendwell.db'), { readonly: true });
  const { proc, api } = await startApi(ctx, env, account.key, 'sqlite');
  try {
    const count = reader.prepare('select count(*) as n from contacts where account_id = ?');
    return { ...(await measure(ctx, api, async () => count.get(account.accountId))), seedSec };
  } finally {
    await proc.stop();
    reader.close();
  }
}

async function onPostgres(ctx: BenchContext): Promise<Measured> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    const scoped = new URL(PG_URL);
    scoped.searchParams.set('options', `-c search_path=${schema}`);
    const env = sendwellEnv(join(ctx.workDir, 'pg'), { DATABASE_URL: scoped.toString() });
    const account = await createBenchAccount(ctx.repoDir, env);
    const started = performance.now();
    const client = new pg.Client({ connectionString: scoped.toString() });
    await client.connect();
    try {
      for (const statement of seedStatements('postgres', account.accountId, Date.now())) await client.query(statement);
      // What autovacuum does after a bulk load, done now so the first query does not wait for it.
      await client.query('vacuum analyze');
      const seedSec = (performance.now() - started) / 1000;
      ctx.log(`  seeded in ${seedSec.toFixed(0)} s`);
      const { proc, api } = await startApi(ctx, env, account.key, 'postgres');
      try {
        return { ...(await measure(ctx, api, () => client.query('select count(*) from contacts where account_id = $1', [account.accountId]))), seedSec };
      } finally {
        await proc.stop();
      }
    } finally {
      await client.end();
    }
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

export async function audiencesBench(ctx: BenchContext): Promise<BenchReport> {
  const date = new Date().toISOString().slice(0, 10);
  const loadStart = loads();
  ctx.log(`SQLite: ${fmt(CONTACTS)} contacts, ten sent campaigns`);
  const sqlite = await onSqlite(ctx);
  const loadMid = loads();
  ctx.log(`PostgreSQL: the same data`);
  const postgres = await onPostgres(ctx);
  const loadEnd = loads();

  const filtered = (m: Measured) => m.ledger.filter((l) => !l.label.includes('no target'));
  const ok = (m: Measured) => m.countMs < TARGET.countMs && m.snapshotMs < TARGET.snapshotMs && filtered(m).every((l) => l.ms < TARGET.ledgerMs);
  const cpu = cpus();
  const rows = (m: Measured, name: string): (string | number)[][] => [
    [`${name}: segment count (GET /segments/{id})`, `${ms(m.countMs)} ms`, `< ${TARGET.countMs} ms`, `${(m.countMs / m.baselineMs).toFixed(1)}x the baseline (${ms(m.baselineMs)} ms)`],
    [`${name}: preview (count and ten members)`, `${ms(m.previewMs)} ms`, '-', `${(m.previewMs / m.baselineMs).toFixed(1)}x`],
    [`${name}: snapshot of ${fmt(m.recipients)} recipients (POST /send)`, `${fmt(m.snapshotMs)} ms`, `< ${fmt(TARGET.snapshotMs)} ms`, '-'],
    ...m.ledger.map((l) => [`${name}: ledger ${l.label} (${fmt(l.total)} match)`, `${ms(l.ms)} ms`, l.label.includes('no target') ? '-' : `< ${TARGET.ledgerMs} ms`, '-']),
  ];
  const markdown = [
    '## Audiences: segments and the recipient ledger (issue 16)',
    '',
    `- Date: ${date}`,
    '- Command: `npm run bench -- --only audiences`',
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}; \`./bin/sendwell serve --role api\`, PostgreSQL on the same machine. Load average (1, 5, 15 min) at the start: ${loadStart}; between the two: ${loadMid}; at the end: ${loadEnd}.`,
    `- Data: ${fmt(CONTACTS)} contacts (tags, three custom fields, three lists), ten SENT campaigns with opens, clicks and bounces (${fmt(CONTACTS + 9 * Math.floor(CONTACTS * 0.3))} recipient rows); seeded in ${sqlite.seedSec.toFixed(0)} s (SQLite) and ${postgres.seedSec.toFixed(0)} s (PostgreSQL).`,
    `- Segment: tag "vip", custom field seats >= 10, in list "Even", opened campaign 3, clicked no campaign within 30 days: ${fmt(sqlite.members)} members (SQLite), ${fmt(postgres.members)} (PostgreSQL). Times are p50 of ${SAMPLES} after one warm-up, over HTTP from this process; the snapshot is one run.`,
    '- Baseline: the database alone counting the account\'s contacts (`select count(*) from contacts where account_id = ?`), the floor of any segment count.',
    '',
    table(['', 'measured', 'target', 'against the baseline'], [...rows(sqlite, 'SQLite'), ...rows(postgres, 'PostgreSQL')]),
    '',
    `Targets ${ok(sqlite) && ok(postgres) ? 'met' : 'not all met'}.`,
  ].join('\n');
  return { id: 'audiences', markdown, targetMet: ok(sqlite) && ok(postgres) };
}
