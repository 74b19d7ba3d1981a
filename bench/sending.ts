/**
 * The sending targets (issue "Campaign sending", section "Speed and memory"), measured in one run:
 *
 *  1. Throughput: a campaign to 100k recipients sent by a real `./bin/sendwell serve --role sender`
 *     process to a local SMTP sink running as its own process (bench/smtp-sink-server.ts), versus
 *     a bare nodemailer pooled loop (bench/bare-mailer.ts: same pool size and concurrency, the same
 *     rendered message) to the same sink. Target: ratio ≥ 0.8 and ≥ 1,500 messages/s. Several
 *     SEND_CONCURRENCY / SMTP_MAX_CONNECTIONS settings are tried; each is compared with bare runs
 *     at the same setting right before and right after it (half the messages each), so a change
 *     in background load during the run affects both sides alike.
 *  2. Memory: the sender's peak RSS (VmHWM) stays under 200 MB while sending to 1M recipients.
 *  3. The snapshot of a 1M-contact audience (the POST /send call, which runs the INSERT ... SELECT)
 *     takes under 10 s.
 *  4. GET /statistics on a 1M-recipient SENT campaign: p50 under 20 ms.
 *  5. Issue 14 H3/H4: /health p99 while one `./bin/sendwell serve` process (API and sender in one,
 *     so /health shares the sending thread's event loop) sends a campaign whose every message
 *     takes about 80% of the per-message render budget (SEND_RENDER_BUDGET_MS, 300 ms), against the
 *     same process idle. Target: p99 under 50 ms. Also the process's RSS with no, one and two render
 *     threads (the sender's, and the one test sends start).
 *
 * The send is started through the API (`./bin/sendwell serve --role api`, its own process) and
 * timed at the sink. Part of `npm run bench` (bench/run.ts), or alone:
 *
 *   node --import tsx bench/sending.ts [--no-record] [--profile] [--keep]
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_SEND_COUNT [100000]           recipients of each throughput campaign
 *   BENCH_SEND_CONFIGS [10x10,20x20,50x50,50x10,100x20]
 *                                       SEND_CONCURRENCY x SMTP_MAX_CONNECTIONS settings to try
 *   BENCH_SEND_BATCH []                 SEND_BATCH_SIZE for the sender (empty: the operator default)
 *   BENCH_SEND_NODE_FLAGS []            node flags for the sender process only (experiments such as
 *                                       --trace-gc), run as `node <flags> bin/sendwell.mjs`, so without
 *                                       the memory settings bin/sendwell gives a sender; empty: the
 *                                       sender runs as `./bin/sendwell` (with them)
 *   BENCH_SEND_MEMORY_COUNT [1000000]   recipients of the memory campaign (0 skips phases 2-4)
 *   BENCH_SEND_MEMORY_SECONDS [300]     how long the 1M send may run; if it has not finished by then,
 *                                       RSS is reported over the messages sent so far, the sender is
 *                                       stopped and the rest of the rows are marked SENT directly
 *                                       (with their counters) so that /statistics can be measured
 *   BENCH_SEND_CAP_NODE_OPTIONS [--max-old-space-size=128]
 *   BENCH_SEND_CAP_SECONDS [120]        then a second sender, started with these NODE_OPTIONS, goes
 *                                       on with the same campaign for this long, to show the RSS
 *                                       with a V8 heap cap (empty or 0: skipped)
 *   BENCH_SEND_RENDER_COUNT [400]       recipients of the render-limit campaign (phase 5)
 *   BENCH_SEND_RENDER_SECONDS [20]      how long /health is measured, idle and while rendering
 *   BENCH_SEND_RENDER_FRACTION [0.8]    the share of the per-message budget each message's render takes
 *   BENCH_SEND_HEALTH_CONNECTIONS [2]   connections of the /health prober (bench/health-poller.ts, as
 *                                       bench/runner-health.ts measures; each waits 5 ms after an answer)
 *   BENCH_SEND_PHASES [throughput,memory,render-limit]
 *   BENCH_SEND_DKIM []                  1: the DKIM run (issue 19, D23) instead, recorded as its own
 *                                       section: the throughput phase only, the campaign's From domain
 *                                       a sending domain with a verified DKIM record (so Sendwell signs
 *                                       every message), the bare loop signing with the same key through
 *                                       nodemailer's `dkim` option. Target: ratio ≥ 0.9. The sink counts
 *                                       signed messages; a run in which any message arrived unsigned
 *                                       fails instead of being reported.
 *   BENCH_SEND_CONTENT []               1: the D22 content run instead, recorded as its own section:
 *                                       the throughput phase only, the campaign in `mjml` format with
 *                                       a layout: the built-in newsletter starter
 *                                       (src/domain/templates/builtin/newsletter.mjml) split into an
 *                                       MJML layout (its head and body frame, inserted as the
 *                                       account's layout) and MJML content (its sections). The bare
 *                                       loop sends the message Sendwell renders from the same
 *                                       compiled content, so the same size. Target: ratio ≥ 0.9: the
 *                                       content is compiled once per campaign (when sending starts),
 *                                       never per recipient (one MJML compile of it takes tens of ms).
 */
import SQLite from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BareMailerResult, BareMailerSpec } from './bare-mailer.ts';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { profilesIn, summariseProfile } from './lib/cpuprofile.ts';
import { healthLatencyOf, startHealthProbe, type HealthLatency } from './lib/health-probe.ts';
import { runLoad, type LoadResult } from './lib/load-client.ts';
import { cpuSeconds, freePort, runCommand, startProcess, waitForHttp, type Proc } from './lib/proc.ts';
import { table, updateSection } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';
import type { CampaignRow } from '../src/db/schema.ts';
import type { DkimSigningKey } from '../src/domain/domains/sending-domain.ts';
import { fromDomainOf } from '../src/domain/domains/sending-domain.ts';
import { buildMessage } from '../src/sending/message.ts';
import { CompiledCampaign, DEFAULT_RENDER_LIMITS } from '../src/sending/render.ts';
import { TokenSigner } from '../src/domain/shared/tokens.ts';

const SEND_COUNT = Number(process.env.BENCH_SEND_COUNT ?? 100_000);
const CONFIGS = (process.env.BENCH_SEND_CONFIGS ?? '10x10,20x20,50x50,50x10,100x20').split(',').map((s) => {
  const [c, m] = s.trim().split('x').map(Number);
  if (!Number.isInteger(c) || c < 1 || !Number.isInteger(m ?? c) || (m ?? c) < 1) throw new Error(`BENCH_SEND_CONFIGS: bad entry "${s}"`);
  return { concurrency: c, maxConnections: m ?? c };
});
const BATCH = process.env.BENCH_SEND_BATCH ?? '';
/** node flags for the sender process only (experiments, e.g. --trace-gc); empty: none */
const NODE_FLAGS = (process.env.BENCH_SEND_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const MEMORY_COUNT = Number(process.env.BENCH_SEND_MEMORY_COUNT ?? 1_000_000);
const MEMORY_SECONDS = Number(process.env.BENCH_SEND_MEMORY_SECONDS ?? 300);
const CAP_NODE_OPTIONS = process.env.BENCH_SEND_CAP_NODE_OPTIONS ?? '--max-old-space-size=128';
const CAP_SECONDS = Number(process.env.BENCH_SEND_CAP_SECONDS ?? 120);
/** D23: the DKIM run (see BENCH_SEND_DKIM above) */
const DKIM_RUN = process.env.BENCH_SEND_DKIM === '1';
/** D22: the content run (see BENCH_SEND_CONTENT above) */
const CONTENT_RUN = process.env.BENCH_SEND_CONTENT === '1';
const PHASES = (process.env.BENCH_SEND_PHASES ?? (DKIM_RUN || CONTENT_RUN ? 'throughput' : 'throughput,memory,render-limit')).split(',').map((p) => p.trim());
const RENDER_COUNT = Number(process.env.BENCH_SEND_RENDER_COUNT ?? 400);
const RENDER_SECONDS = Number(process.env.BENCH_SEND_RENDER_SECONDS ?? 20);
const RENDER_FRACTION = Number(process.env.BENCH_SEND_RENDER_FRACTION ?? 0.8);
const HEALTH_CONNECTIONS = Number(process.env.BENCH_SEND_HEALTH_CONNECTIONS ?? 2);
const HEALTH_PAUSE_MS = 5;

const TARGET_RATIO = 0.8;
/** issue 19: with DKIM signing on both sides, the ratio to the bare loop; D22: likewise for MJML content in a layout */
const TARGET_DKIM_RATIO = 0.9;
const TARGET_RATE = 1500;
const TARGET_RSS_MB = 200;
const TARGET_SNAPSHOT_S = 10;
const TARGET_STATS_P50_MS = 20;
const TARGET_HEALTH_P99_MS = 50;
/** SEND_RENDER_BUDGET_MS as an operator leaves it */
const RENDER_BUDGET_MS = DEFAULT_RENDER_LIMITS.budgetMs;
/** Fail a run when the sink has seen no new message for this long. */
const STALL_MS = 60_000;

const SECRET = 'bench-secret';
const PUBLIC_URL = 'https://mail.bench.example';

/** A typical newsletter: merge fields, a preheader, four links (rewritten for click tracking), a text part. */
const CAMPAIGN = {
  subject: 'Hello {{ first_name }}, your weekly digest',
  from_name: 'Bench Weekly',
  from_email: 'news@bench.example',
  preheader: 'What happened this week, in five minutes',
  html: `<!doctype html><html><body style="font-family:sans-serif">
<h1>Hello {{ first_name }} {{ last_name }}!</h1>
<p>Thanks for being subscriber #{{ n }} (you came from {{ source }}). Here is what happened this week.</p>
${Array.from({ length: 4 }, (_, i) => `<h2>Story ${i + 1}: something worth reading</h2>
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.
Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.</p>
<p><a href="https://www.example.com/stories/${i + 1}?utm_source=newsletter">Read story ${i + 1}</a></p>`).join('\n')}
<p>See you next week,<br>The Bench team</p>
</body></html>`,
  text: `Hello {{ first_name }} {{ last_name }}!

Thanks for being subscriber #{{ n }}. Here is what happened this week: four stories at https://www.example.com/stories

See you next week,
The Bench team`,
};

// ---------------------------------------------------------------------------------------------
// Small helpers

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (kb: number) => (kb / 1024).toFixed(1);
/** a latency in ms: two decimals under 10 */
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => performance.timeOrigin + performance.now();
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** VmRSS and VmHWM (peak RSS) of a process in kB, from /proc (Linux). */
function memoryOf(pid: number): { rssKb: number; hwmKb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------------------------
// The sink

export interface SinkStats {
  messages: number;
  recipients: number;
  distinctRecipients: number | null;
  /** messages with a DKIM-Signature header (null unless the sink counts them: the DKIM run) */
  dkimSigned: number | null;
  bytes: number;
  firstAt: number | null;
  lastAt: number | null;
  connectionsOpened: number;
  connectionsOpen: number;
  cpuSeconds: number;
  /** recipients per domain (bench/pacing.ts) */
  byDomain: Record<string, number>;
}

export interface Sink {
  proc: Proc;
  smtpPort: number;
  stats(): Promise<SinkStats>;
  reset(): Promise<SinkStats>;
  /** when each `tx-...` recipient arrived, epoch ms (bench/transactional.ts) */
  arrivals(): Promise<Record<string, number>>;
}

export async function startSink(ctx: BenchContext): Promise<Sink> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/smtp-sink-server.ts'], {
    cwd: ctx.repoDir,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SINK_COUNT_DKIM: DKIM_RUN ? '1' : '0' },
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const proc: Proc = {
    child,
    pid: child.pid!,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const ports = await new Promise<{ smtpPort: number; httpPort: number }>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('the SMTP sink did not start within 20 s')), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        resolve(JSON.parse(buf.slice(0, nl)));
      }
    });
    void exited.then((code) => reject(new Error(`the SMTP sink exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${ports.httpPort}`;
  const call = async (method: string, path: string) => (await (await fetch(base + path, { method })).json()) as SinkStats;
  return {
    proc,
    smtpPort: ports.smtpPort,
    stats: () => call('GET', '/stats'),
    reset: () => call('POST', '/reset'),
    arrivals: async () => (await (await fetch(`${base}/arrivals`)).json()) as Record<string, number>,
  };
}

// ---------------------------------------------------------------------------------------------
// Data

export interface Seeded {
  dataDir: string;
  accountId: number;
  key: string;
  listId: number;
  contacts: number;
  seconds: number;
}

/**
 * A migrated database with an enterprise account (no rate limit), a `*` key (both through the CLI,
 * as an operator makes them), and `contacts` SUBSCRIBED contacts in one list, inserted straight into
 * the tables in one transaction (through the API this would take longer than the benchmark).
 */
export async function seedAudience(repoDir: string, dataDir: string, contacts: number): Promise<Seeded> {
  const started = Date.now();
  const created = await createBenchAccount(repoDir, sendwellEnv(dataDir, { SECRET }), 'Bench sending');
  const account = { id: created.accountId };
  const key = { key: created.key };

  const db = new SQLite(join(dataDir, 'sendwell.db'));
  let listId = 0;
  try {
    db.pragma('synchronous = OFF');
    const at = new Date().toISOString();
    db.transaction(() => {
      listId = Number(
        db
          .prepare(`insert into lists (account_id, name, name_key, description, is_active, contact_count, created_at, updated_at) values (?, ?, ?, null, 1, 0, ?, ?)`)
          .run(account.id, 'Bench audience', 'bench audience', at, at).lastInsertRowid,
      );
      db.prepare(
        `with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ?)
         insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, lead_score, status, created_at, updated_at)
         select ?, printf('contact-%07d@bench.example', i), 'First' || i, 'Last' || i, null, '["bench"]',
                '{"n":' || i || ',"source":"seed"}', i % 100, 'SUBSCRIBED', ?, ?
         from seq`,
      ).run(contacts, account.id, at, at);
      const members = db.prepare(`insert into list_members (list_id, contact_id, created_at) select ?, id, ? from contacts where account_id = ?`).run(listId, at, account.id).changes;
      db.prepare(`update lists set contact_count = ? where id = ?`).run(members, listId);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return { dataDir, accountId: account.id, key: key.key, listId, contacts, seconds: (Date.now() - started) / 1000 };
}

/** The message Sendwell renders for one seeded contact: what the bare loop sends, so both have the same size. */
async function sampleMessage() {
  const html = CONTENT_RUN ? await newsletterCompiled() : CAMPAIGN.html;
  const at = new Date().toISOString();
  const campaign = {
    id: 1,
    account_id: 1,
    name: 'sample',
    subject: CAMPAIGN.subject,
    from_name: CAMPAIGN.from_name,
    from_email: CAMPAIGN.from_email,
    reply_to: null,
    preheader: CAMPAIGN.preheader,
    html,
    text: CAMPAIGN.text,
    list_ids: '[1]',
    tags: '[]',
    status: 'SENDING',
    scheduled_at: null,
    total_recipients: 1,
    sent_at: null,
    error: null,
    created_at: at,
    updated_at: at,
  } as unknown as CampaignRow;
  const compiled = new CompiledCampaign({ subject: CAMPAIGN.subject, html, text: CAMPAIGN.text, preheader: CAMPAIGN.preheader });
  const contact = { email: 'contact-0054321@bench.example', first_name: 'First54321', last_name: 'Last54321', phone: null, custom_fields: { n: 54321, source: 'seed' } };
  const m = buildMessage({ campaign, compiled, signer: new TokenSigner(SECRET), publicUrl: PUBLIC_URL, bounceDomain: null }, 54321, contact);
  return { from: m.from, subject: m.subject, html: m.html, text: m.text, headers: m.headers };
}

// ---------------------------------------------------------------------------------------------
// Sendwell processes

export interface Api {
  proc: Proc;
  url: string;
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export async function startApi(ctx: BenchContext, seed: Seeded, label: string): Promise<Api> {
  const port = await freePort();
  const env = sendwellEnv(seed.dataDir, { PORT: String(port), HOST: '127.0.0.1', SECRET, PUBLIC_URL, LOG_LEVEL: 'warn' });
  const proc = startProcess('./bin/sendwell', ['serve', '--role', 'api'], { cwd: ctx.repoDir, env, logFile: join(ctx.workDir, `api-${label}.log`) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc);
  return {
    proc,
    url,
    async call<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(url + path, {
        method,
        headers: { 'x-api-key': seed.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
  };
}

export interface SenderSetting {
  concurrency: number;
  maxConnections: number;
}

/** `./bin/sendwell serve --role sender` over the seeded data, sending to the sink; resolves once it runs. */
export async function startSender(
  ctx: BenchContext,
  seed: Seeded,
  sink: Sink,
  s: SenderSetting,
  label: string,
  profileDir: string | null,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Proc> {
  const logFile = join(ctx.workDir, `sender-${label}.log`);
  const env = sendwellEnv(seed.dataDir, {
    SECRET,
    PUBLIC_URL,
    SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`,
    SEND_CONCURRENCY: String(s.concurrency),
    SMTP_MAX_CONNECTIONS: String(s.maxConnections),
    ...(BATCH ? { SEND_BATCH_SIZE: BATCH } : {}),
    ...extraEnv,
  });
  const args = ['serve', '--role', 'sender'];
  // Through node explicitly only when profiling or given flags (--cpu-prof is refused in NODE_OPTIONS);
  // that way it runs without the memory settings bin/sendwell gives a sender, unless the flags say so.
  const flags = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...NODE_FLAGS];
  const proc =
    flags.length > 0
      ? startProcess(process.execPath, [...flags, 'bin/sendwell.mjs', ...args], { cwd: ctx.repoDir, env, logFile })
      : startProcess('./bin/sendwell', args, { cwd: ctx.repoDir, env, logFile });
  senderLogs.set(proc, logFile);
  const deadline = Date.now() + 30_000;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (!readFileSync(logFile, 'utf8').includes('sendwell sender running')) {
    if (exited) throw new Error(`the sender exited at start: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) throw new Error('the sender did not start within 30 s');
    await sleep(100);
  }
  return proc;
}

/** Each sender's log file, for the error when one dies. */
const senderLogs = new WeakMap<Proc, string>();

export interface CampaignBody {
  data: { id: number; status: string; total_recipients: number };
}

export async function createCampaign(api: Api, seed: Seeded, name: string): Promise<number> {
  const content = CONTENT_RUN ? { format: 'mjml', html: newsletterParts().sections, template_id: seedNewsletterLayout(seed) } : {};
  const res = await api.call<CampaignBody>('POST', '/api/v1/campaigns', { name, ...CAMPAIGN, ...content, list_ids: [seed.listId] });
  if (res.status !== 200) throw new Error(`creating the campaign answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

interface SendProgress {
  /** epoch ms just before POST /send was made, and how long it took (the audience snapshot) */
  sendAt: number;
  sendMs: number;
  totalRecipients: number;
  sink: SinkStats;
  /** epoch ms when the API first showed the campaign SENT (null: not waited for, or not reached) */
  sentAt: number | null;
  finished: boolean;
  /** every sample: seconds since the send, messages at the sink, sender VmRSS kB */
  samples: { t: number; messages: number; rssKb: number }[];
  peakRssKb: number;
  hwmKb: number;
  senderCpuSeconds: number;
  sinkCpuSeconds: number;
}

/**
 * Starts a send through the API (or, with `resume`, follows a campaign already SENDING) and follows
 * it at the sink until `expect` messages arrived (then until the campaign is SENT), or until
 * `budgetMs` passed. Samples the sender's RSS meanwhile.
 */
async function followSend(
  ctx: BenchContext,
  api: Api,
  sink: Sink,
  sender: Proc,
  campaignId: number,
  expect: number,
  budgetMs: number,
  resume = false,
): Promise<SendProgress> {
  // A resumed campaign is being sent already: the caller reset the sink before starting the sender.
  if (!resume) await sink.reset();
  const sinkCpuBefore = (await sink.stats()).cpuSeconds;
  const senderCpuBefore = cpuSeconds(sender.pid) ?? 0;
  let exited = false;
  void sender.exited.then(() => (exited = true));

  const sendAt = nowMs();
  let sendMs = 0;
  let totalRecipients = expect;
  if (!resume) {
    const res = await api.call<CampaignBody>('POST', `/api/v1/campaigns/${campaignId}/send`);
    sendMs = nowMs() - sendAt;
    if (res.status !== 200) throw new Error(`POST /send answered ${res.status}: ${JSON.stringify(res.body)}`);
    totalRecipients = res.body.data.total_recipients;
    if (totalRecipients !== expect) throw new Error(`the snapshot took ${totalRecipients} recipients, expected ${expect}`);
    ctx.log(`  POST /send took ${(sendMs / 1000).toFixed(2)} s (${fmt(totalRecipients)} recipients snapshotted)`);
  }

  const samples: SendProgress['samples'] = [];
  let peakRssKb = 0;
  let lastCount = -1;
  let lastChange = Date.now();
  let lastLog = Date.now();
  let st: SinkStats;
  for (;;) {
    st = await sink.stats();
    const mem = memoryOf(sender.pid);
    if (mem) {
      peakRssKb = Math.max(peakRssKb, mem.rssKb);
      samples.push({ t: (nowMs() - sendAt) / 1000, messages: st.messages, rssKb: mem.rssKb });
    }
    if (st.messages >= expect) break;
    if (st.messages !== lastCount) {
      lastCount = st.messages;
      lastChange = Date.now();
    }
    if (exited) {
      const log = senderLogs.get(sender);
      const tail = log ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`the sender exited during the send (${st.messages} messages at the sink; exit code ${sender.child.exitCode}, signal ${sender.child.signalCode}):\n${tail}`);
    }
    if (Date.now() - lastChange > STALL_MS) throw new Error(`no message reached the sink for ${STALL_MS / 1000} s (${st.messages} so far)`);
    if (nowMs() - sendAt > budgetMs) break;
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      ctx.log(`  ${fmt(st.messages)} messages at the sink, sender RSS ${mem ? mb(mem.rssKb) : '?'} MB, load ${loads()}`);
    }
    await sleep(250);
  }
  const finished = st.messages >= expect;
  let sentAt: number | null = null;
  if (finished) {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const c = await api.call<CampaignBody>('GET', `/api/v1/campaigns/${campaignId}`);
      if (c.body.data.status === 'SENT') {
        sentAt = nowMs();
        break;
      }
      await sleep(50);
    }
    // Anything still in flight when the count was reached has arrived by now.
    st = await sink.stats();
  }
  const mem = memoryOf(sender.pid);
  return {
    sendAt,
    sendMs,
    totalRecipients,
    sink: st,
    sentAt,
    finished,
    samples,
    peakRssKb: Math.max(peakRssKb, mem?.rssKb ?? 0),
    hwmKb: mem?.hwmKb ?? NaN,
    senderCpuSeconds: (cpuSeconds(sender.pid) ?? NaN) - senderCpuBefore,
    sinkCpuSeconds: st.cpuSeconds - sinkCpuBefore,
  };
}

interface Statistics {
  data: { sent: number; bounced: number; delivered: number };
}

export async function statisticsSent(api: Api, campaignId: number): Promise<number | null> {
  const res = await api.call<Statistics>('GET', `/api/v1/campaigns/${campaignId}/statistics`);
  return res.status === 200 ? res.body.data.sent : null;
}

// ---------------------------------------------------------------------------------------------
// Content (D22)

const NEWSLETTER = 'src/domain/templates/builtin/newsletter.mjml';

/** The newsletter starter split at its body: the layout keeps the head and the body's frame, the content its sections. */
function newsletterParts(): { layout: string; sections: string } {
  const mjml = readFileSync(NEWSLETTER, 'utf8');
  const body = /(<mj-body\b[^>]*>)([\s\S]*)(<\/mj-body>)/.exec(mjml);
  if (!body) throw new Error(`${NEWSLETTER} has no <mj-body>`);
  return { layout: mjml.slice(0, body.index) + body[1] + '\n{{ content }}\n' + body[3] + mjml.slice(body.index + body[0].length), sections: body[2] };
}

/** The newsletter compiled as Sendwell compiles it on save and when sending starts (D22): for the bare loop's message. */
async function newsletterCompiled(): Promise<string> {
  const { compileContent } = await import('../src/domain/content/compile-content.ts');
  const { layout, sections } = newsletterParts();
  return compileContent({ format: 'mjml', body: sections }, { format: 'mjml', body: layout });
}

/** The newsletter's frame as the account's MJML layout, inserted as the templates API stores one; once per data directory. */
const layoutIds = new Map<string, number>();
function seedNewsletterLayout(seed: Seeded): number {
  const known = layoutIds.get(seed.dataDir);
  if (known !== undefined) return known;
  const db = new SQLite(join(seed.dataDir, 'sendwell.db'));
  try {
    const at = new Date().toISOString();
    const { lastInsertRowid } = db
      .prepare(`insert into templates (account_id, builtin_key, name, kind, format, body, compiled_html, created_at, updated_at) values (?, null, 'Newsletter frame', 'layout', 'mjml', ?, null, ?, ?)`)
      .run(seed.accountId, newsletterParts().layout, at, at);
    layoutIds.set(seed.dataDir, Number(lastInsertRowid));
    return Number(lastInsertRowid);
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// DKIM (D23)

/**
 * The DKIM run's sending domain: the campaign's From domain added through the API (so its key is
 * made as an operator's is: 2048-bit RSA, a dated selector), then marked verified straight in the
 * database, as a passing DNS check would (the bench has no DNS server). Returns the key the bare loop
 * signs with: the same one the sender reads.
 */
async function seedSigningDomain(api: Api, seed: Seeded): Promise<DkimSigningKey> {
  const domainName = fromDomainOf(CAMPAIGN.from_email)!;
  const res = await api.call<{ data: { id: number } }>('POST', '/api/v1/domains', { domain: domainName });
  if (res.status !== 200) throw new Error(`adding the sending domain answered ${res.status}: ${JSON.stringify(res.body)}`);
  const db = new SQLite(join(seed.dataDir, 'sendwell.db'));
  try {
    db.prepare(`update sending_domains set dkim_verified = 1, checked_at = ? where id = ?`).run(new Date().toISOString(), res.body.data.id);
    const row = db.prepare(`select domain, selector, dkim_private_key from sending_domains where id = ?`).get(res.body.data.id) as {
      domain: string;
      selector: string;
      dkim_private_key: string;
    };
    return { domainName: row.domain, keySelector: row.selector, privateKey: row.dkim_private_key };
  } finally {
    db.close();
  }
}

/** The DKIM figure means nothing unless every message was signed: a run with an unsigned one fails, unreported. */
function requireAllSigned(side: string, st: SinkStats): void {
  if (st.dkimSigned !== st.messages) {
    throw new Error(`DKIM run: ${st.dkimSigned ?? 'uncounted'} of the ${st.messages} messages ${side} sent carried a DKIM-Signature; refusing to report an unsigned comparison`);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Throughput

interface BareRun {
  result: BareMailerResult;
  sink: SinkStats;
  sinkCpuSeconds: number;
}

async function runBare(ctx: BenchContext, sink: Sink, s: SenderSetting, count: number, profileDir: string | null, dkim: DkimSigningKey | null): Promise<BareRun> {
  const spec: BareMailerSpec = {
    host: '127.0.0.1',
    port: sink.smtpPort,
    count,
    concurrency: s.concurrency,
    maxConnections: s.maxConnections,
    message: await sampleMessage(),
    ...(dkim ? { dkim } : {}),
  };
  const file = join(ctx.workDir, 'bare-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const before = await sink.reset();
  const args = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), '--import', 'tsx', 'bench/bare-mailer.ts', file];
  const out = await runCommand(process.execPath, args, { cwd: ctx.repoDir });
  const result = JSON.parse(out.trim().split('\n').pop()!) as BareMailerResult;
  if (result.failed > 0) throw new Error(`the bare loop had ${result.failed} failures: ${result.firstError}`);
  const st = await sink.stats();
  if (dkim) requireAllSigned('the bare loop', st);
  return { result, sink: st, sinkCpuSeconds: st.cpuSeconds - before.cpuSeconds };
}

interface ThroughputRun {
  setting: SenderSetting;
  /** the bare loop right before and right after the Sendwell run, half the messages each */
  bare: [BareRun, BareRun];
  send: SendProgress;
  statsSent: number | null;
  loadBefore: string;
  loadAfter: string;
}

/** messages per second between the sink's first and last message */
const sinkRate = (st: SinkStats) => (st.messages - 1) / (((st.lastAt ?? 0) - (st.firstAt ?? 0)) / 1000);
/** Sendwell: messages over the time from POST /send until the sink had them all */
const sendwellRate = (r: ThroughputRun) => r.send.sink.messages / ((r.send.sink.lastAt! - r.send.sendAt) / 1000);
/** bare loop: messages over its own wall time (pool start to the last message answered) */
const bareRate = (b: BareRun) => b.result.sent / (b.result.wallMs / 1000);
/** the baseline of a setting: the mean of the bare runs before and after */
const baseline = (r: ThroughputRun) => (bareRate(r.bare[0]) + bareRate(r.bare[1])) / 2;
const bareSinkRate = (r: ThroughputRun) => (sinkRate(r.bare[0].sink) + sinkRate(r.bare[1].sink)) / 2;
const bareSum = (r: ThroughputRun, f: (b: BareRun) => number) => f(r.bare[0]) + f(r.bare[1]);
const ratioOf = (r: ThroughputRun) => sendwellRate(r) / baseline(r);
/** CPU per message, bare over Sendwell's sender: what the rate ratio tends to when the sender is CPU-bound; less disturbed by other load */
const cpuRatioOf = (r: ThroughputRun) => bareSum(r, (b) => b.result.cpuSeconds) / bareSum(r, (b) => b.result.sent) / (r.send.senderCpuSeconds / r.send.sink.messages);
const runValid = (r: ThroughputRun, n: number) =>
  r.send.finished && r.send.sink.messages === n && (r.send.sink.distinctRecipients ?? n) === n && r.statsSent === n && r.bare.every((b) => b.sink.messages === b.result.sent && b.result.sent > 0);

async function throughputPhase(ctx: BenchContext, sink: Sink): Promise<{ seed: Seeded; runs: ThroughputRun[]; profile: string | null }> {
  const seed = await seedAudience(ctx.repoDir, join(ctx.workDir, 'data-throughput'), SEND_COUNT);
  ctx.log(`seeded ${fmt(SEND_COUNT)} contacts in ${seed.seconds.toFixed(1)} s`);
  const api = await startApi(ctx, seed, 'throughput');
  const runs: ThroughputRun[] = [];
  let profile: string | null = null;
  try {
    const dkim = DKIM_RUN ? await seedSigningDomain(api, seed) : null;
    if (dkim) ctx.log(`DKIM: ${dkim.domainName} verified, selector ${dkim.keySelector}; both sides sign every message`);
    const settings = ctx.profile ? CONFIGS.slice(0, 1) : CONFIGS;
    for (const [i, setting] of settings.entries()) {
      const label = `c${setting.concurrency}-m${setting.maxConnections}`;
      const profileDir = ctx.profile ? join(ctx.workDir, `profile-${label}`) : null;
      const bareProfileDir = ctx.profile ? join(ctx.workDir, `profile-bare-${label}`) : null;
      if (profileDir) mkdirSync(profileDir);
      if (bareProfileDir) mkdirSync(bareProfileDir);
      const loadBefore = loads();
      const bareCount = Math.ceil(SEND_COUNT / 2);
      const bareRun = async (when: string, dir: string | null) => {
        const b = await runBare(ctx, sink, setting, bareCount, dir, dkim);
        ctx.log(`  bare ${when}: ${fmt(bareRate(b))} msgs/s (sink window ${fmt(sinkRate(b.sink))} msgs/s), CPU ${Math.round((b.result.cpuSeconds / bareCount) * 1e6)} µs/msg`);
        return b;
      };
      ctx.log(`SEND_CONCURRENCY=${setting.concurrency} SMTP_MAX_CONNECTIONS=${setting.maxConnections} (load ${loadBefore})`);
      const bareBefore = await bareRun(`before, ${fmt(bareCount)} messages`, bareProfileDir);

      const sender = await startSender(ctx, seed, sink, setting, label, profileDir);
      let send: SendProgress;
      let statsSent: number | null;
      try {
        const campaignId = await createCampaign(api, seed, `Throughput ${i + 1} (${label})`);
        ctx.log(`  sendwell: campaign ${campaignId} to ${fmt(SEND_COUNT)} recipients`);
        send = await followSend(ctx, api, sink, sender, campaignId, SEND_COUNT, 30 * 60_000);
        if (dkim) requireAllSigned('Sendwell', send.sink);
        statsSent = await statisticsSent(api, campaignId);
      } finally {
        await sender.stop(30_000);
      }
      ctx.log(
        `  sendwell: ${fmt(send.sink.messages / ((send.sink.lastAt! - send.sendAt) / 1000))} msgs/s from POST /send (sink window ${fmt(sinkRate(send.sink))} msgs/s), ` +
          `CPU ${Math.round((send.senderCpuSeconds / SEND_COUNT) * 1e6)} µs/msg, peak RSS ${mb(send.hwmKb)} MB, statistics.sent ${statsSent}`,
      );
      const bareAfter = await bareRun('after', null);
      const run: ThroughputRun = { setting, bare: [bareBefore, bareAfter], send, statsSent, loadBefore, loadAfter: loads() };
      runs.push(run);
      ctx.log(`  ratio ${ratioOf(run).toFixed(2)} (Sendwell ${fmt(sendwellRate(run))} / bare mean ${fmt(baseline(run))} msgs/s), load ${run.loadAfter}`);
      if (profileDir && bareProfileDir) profile = [profileReport('sender', profileDir), profileReport('bare nodemailer loop', bareProfileDir)].join('\n\n');
    }
  } finally {
    await api.proc.stop();
  }
  return { seed, runs, profile };
}

function profileReport(label: string, dir: string): string {
  // One profile per thread: the sender's main thread (SMTP and the database) and its render
  // thread; the bare loop has one. Largest first.
  const files = profilesIn(dir).sort((x, y) => statSync(y).size - statSync(x).size);
  if (files.length === 0) return `No profile was written for the ${label}.`;
  return files
    .map((file, i) => {
      const { totalMs, functions, packages } = summariseProfile(file, 30);
      return [
        `### CPU profile: ${label}, thread ${i + 1} of ${files.length} (${fmt(totalMs)} ms busy)`,
        '',
        table(['package', 'self ms', '%'], packages.map((p) => [p.name, p.selfMs, p.percent])),
        '',
        table(['function', 'where', 'self ms', '%'], functions.map((f) => [f.name, f.where, f.selfMs, f.percent])),
      ].join('\n');
    })
    .join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// 2-4. Memory, snapshot and statistics at 1M

interface CappedRun {
  nodeOptions: string;
  send: SendProgress;
  idleRssKb: number;
  loadBefore: string;
  loadAfter: string;
}

interface MemoryResult {
  seed: Seeded;
  setting: SenderSetting;
  send: SendProgress;
  idleRssKb: number;
  /** the same campaign continued by a sender started with NODE_OPTIONS (a V8 heap cap), if asked */
  capped: CappedRun | null;
  /** recipients marked SENT directly because the send did not finish within the budget */
  completedDirectly: number;
  statsSent: number | null;
  statsSequential: { n: number; p50: number; p90: number; p99: number; max: number; first: number };
  statsLoad: LoadResult;
  loadBefore: string;
  loadAfter: string;
}

/** The sender is stopped: the rows it did not send are marked SENT with their counters, and the campaign SENT. */
function completeDirectly(dataDir: string, campaignId: number): number {
  const db = new SQLite(join(dataDir, 'sendwell.db'));
  try {
    db.pragma('busy_timeout = 10000');
    const at = new Date().toISOString();
    let changed = 0;
    db.transaction(() => {
      const unfinished = `campaign_id = ? and status in ('PENDING', 'CLAIMED')`;
      // Counters first (the same shards as campaign-stats.repo.ts: recipient id modulo 8), then the rows.
      db.prepare(
        `insert into campaign_stats (campaign_id, shard, sent, bounced, opened, clicked, complained, unsubscribed)
         select campaign_id, id % 8, count(*), 0, 0, 0, 0, 0 from campaign_recipients where ${unfinished} group by id % 8
         on conflict (campaign_id, shard) do update set sent = campaign_stats.sent + excluded.sent`,
      ).run(campaignId);
      changed = db
        .prepare(`update campaign_recipients set status = 'SENT', sent_at = ?, claimed_until = null, attempts = attempts + 1 where ${unfinished}`)
        .run(at, campaignId).changes;
      db.prepare(`update campaigns set status = 'SENT', sent_at = ?, updated_at = ? where id = ? and status = 'SENDING'`).run(at, at, campaignId);
    })();
    return changed;
  } finally {
    db.close();
  }
}

/** Starts a sender and returns it with its RSS once started (after 2 s when it has nothing to send yet). */
async function idleSender(ctx: BenchContext, seed: Seeded, sink: Sink, setting: SenderSetting, label: string, extraEnv: NodeJS.ProcessEnv = {}, settle = true) {
  const sender = await startSender(ctx, seed, sink, setting, label, null, extraEnv);
  if (settle) await sleep(2000);
  return { sender, idleRssKb: memoryOf(sender.pid)?.rssKb ?? NaN };
}

async function memoryPhase(ctx: BenchContext, sink: Sink, setting: SenderSetting): Promise<MemoryResult> {
  const seed = await seedAudience(ctx.repoDir, join(ctx.workDir, 'data-memory'), MEMORY_COUNT);
  ctx.log(`seeded ${fmt(MEMORY_COUNT)} contacts in ${seed.seconds.toFixed(1)} s`);
  const api = await startApi(ctx, seed, 'memory');
  try {
    const label = `memory-c${setting.concurrency}-m${setting.maxConnections}`;
    const loadBefore = loads();
    const campaignId = await createCampaign(api, seed, `Memory (${fmt(MEMORY_COUNT)})`);
    let send: SendProgress;
    let idleRssKb: number;
    {
      const started = await idleSender(ctx, seed, sink, setting, label);
      idleRssKb = started.idleRssKb;
      ctx.log(`memory: campaign ${campaignId} to ${fmt(MEMORY_COUNT)} recipients, ${setting.concurrency}x${setting.maxConnections}, budget ${MEMORY_SECONDS} s, sender idle RSS ${mb(idleRssKb)} MB (load ${loadBefore})`);
      try {
        send = await followSend(ctx, api, sink, started.sender, campaignId, MEMORY_COUNT, MEMORY_SECONDS * 1000);
        ctx.log(`  ${fmt(send.sink.messages)} messages in ${((nowMs() - send.sendAt) / 1000).toFixed(0)} s; sender peak RSS ${mb(send.hwmKb)} MB (VmHWM)`);
      } finally {
        // A clean stop: messages in flight finish and are recorded, claimed rows are given back.
        await started.sender.stop(30_000);
      }
    }

    let capped: CappedRun | null = null;
    if (CAP_NODE_OPTIONS && CAP_SECONDS > 0 && !send.finished) {
      const unfinished = unfinishedCount(seed.dataDir, campaignId);
      const capLoadBefore = loads();
      await sink.reset();
      const started = await idleSender(ctx, seed, sink, setting, `${label}-capped`, { NODE_OPTIONS: CAP_NODE_OPTIONS }, false);
      ctx.log(`memory: the same campaign continued by a sender with NODE_OPTIONS=${CAP_NODE_OPTIONS} for ${CAP_SECONDS} s (RSS at start ${mb(started.idleRssKb)} MB)`);
      try {
        const progress = await followSend(ctx, api, sink, started.sender, campaignId, unfinished, CAP_SECONDS * 1000, true);
        capped = { nodeOptions: CAP_NODE_OPTIONS, send: progress, idleRssKb: started.idleRssKb, loadBefore: capLoadBefore, loadAfter: loads() };
        ctx.log(`  ${fmt(progress.sink.messages)} messages; sender peak RSS ${mb(progress.hwmKb)} MB (VmHWM)`);
      } finally {
        await started.sender.stop(30_000);
      }
    }

    const completedDirectly = completeDirectly(seed.dataDir, campaignId);
    if (completedDirectly > 0) ctx.log(`  the send was cut at the budget; ${fmt(completedDirectly)} remaining rows marked SENT directly`);
    const statsSent = await statisticsSent(api, campaignId);

    // /statistics: sequential requests (one at a time, kept-alive), then autocannon with 10 connections.
    const path = `/api/v1/campaigns/${campaignId}/statistics`;
    const timed = async () => {
      const t = performance.now();
      const res = await fetch(api.url + path, { headers: { 'x-api-key': seed.key } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/statistics answered ${res.status}`);
      return performance.now() - t;
    };
    const first = await timed();
    for (let i = 0; i < 20; i++) await timed();
    const times: number[] = [];
    for (let i = 0; i < 200; i++) times.push(await timed());
    times.sort((a, b) => a - b);
    const statsSequential = { n: times.length, p50: percentile(times, 50), p90: percentile(times, 90), p99: percentile(times, 99), max: times[times.length - 1], first };
    ctx.log(`  /statistics sequential: p50 ${statsSequential.p50.toFixed(2)} ms, p99 ${statsSequential.p99.toFixed(2)} ms (first ${first.toFixed(1)} ms)`);
    const statsLoad = await runLoad(ctx.repoDir, { url: api.url, connections: 10, durationSec: 5, headers: { 'x-api-key': seed.key }, paths: [path] }, api.proc.pid);
    ctx.log(`  /statistics autocannon, 10 connections: ${fmt(statsLoad.reqPerSec)} req/s, p50 ${statsLoad.p50} ms, p99 ${statsLoad.p99} ms`);
    return { seed, setting, send, idleRssKb, capped, completedDirectly, statsSent, statsSequential, statsLoad, loadBefore, loadAfter: loads() };
  } finally {
    await api.proc.stop();
  }
}

/** Recipients of the campaign not yet final (PENDING or CLAIMED). */
function unfinishedCount(dataDir: string, campaignId: number): number {
  const db = new SQLite(join(dataDir, 'sendwell.db'), { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from campaign_recipients where campaign_id = ? and status in ('PENDING', 'CLAIMED')`).get(campaignId) as { n: number }).n;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 5. /health while a sender renders at its per-message limit (issue 14 H3, H4)

/**
 * Liquid that loops `outer` x 1,000 times writing nothing: its render time grows with `outer`, and
 * nothing else about the message does.
 */
const loopTemplate = (outer: number) =>
  `{% assign xs = "${'x'.repeat(outer)}" | split: "" %}{% assign ys = "${'y'.repeat(1000)}" | split: "" %}{% for a in xs %}{% for b in ys %}{% endfor %}{% endfor %}`;

/**
 * The loop size whose render takes `fraction` of the budget on this machine, measured here with
 * the same code the render thread runs (the median of seven renders per size tried).
 */
function calibrateLoop(fraction: number): { outer: number; renderMs: number } {
  const urls = { open: 'o', unsubscribe: 'u', preferences: 'p', trap: 't', webview: 'w', click: () => 'c' };
  const contact = { email: 'a@bench.example', first_name: 'A', last_name: 'B', phone: null, custom_fields: { n: 1, source: 'seed' } };
  const timeOf = (outer: number) => {
    const compiled = new CompiledCampaign({ subject: 's', html: CAMPAIGN.html + loopTemplate(outer), text: CAMPAIGN.text, preheader: null }, { ...DEFAULT_RENDER_LIMITS, budgetMs: 10_000 });
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      compiled.render(contact, urls);
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[3];
  };
  // Scaled three times from a small trial: the first renders run before the JIT has warmed up.
  const target = fraction * RENDER_BUDGET_MS;
  let outer = 20;
  let renderMs = timeOf(outer);
  for (let i = 0; i < 3; i++) {
    outer = Math.max(1, Math.round((outer * target) / renderMs));
    renderMs = timeOf(outer);
  }
  return { outer, renderMs };
}

interface RenderLimitResult {
  count: number;
  outer: number;
  renderMs: number;
  idle: HealthLatency;
  rendering: HealthLatency;
  /** messages at the sink during the rendering window, and recipients FAILED over the limit by the end of it */
  windowMessages: number;
  failedOverLimit: number;
  /** VmRSS, kB: idle; with the test-send render thread started; while sending (both threads) */
  rssIdleKb: number;
  rssOneThreadKb: number;
  rssTwoThreadsKb: number;
  hwmKb: number;
  cpuSecondsInWindow: number | null;
  loadBefore: string;
  loadAfter: string;
}

async function renderLimitPhase(ctx: BenchContext, sink: Sink): Promise<RenderLimitResult> {
  const { outer, renderMs } = calibrateLoop(RENDER_FRACTION);
  ctx.log(`render limit: a message loop of ${outer} x 1,000 renders in ${renderMs.toFixed(0)} ms here (budget ${RENDER_BUDGET_MS} ms)`);
  const seed = await seedAudience(ctx.repoDir, join(ctx.workDir, 'data-render-limit'), RENDER_COUNT);
  const port = await freePort();
  const env = sendwellEnv(seed.dataDir, { PORT: String(port), HOST: '127.0.0.1', SECRET, PUBLIC_URL, LOG_LEVEL: 'warn', SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}` });
  const proc = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env, logFile: join(ctx.workDir, 'serve-render-limit.log') });
  const url = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: { 'x-api-key': seed.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { data: Record<string, any> } };
  };
  const rss = () => memoryOf(proc.pid)?.rssKb ?? NaN;
  try {
    await waitForHttp(`${url}/health`, proc);
    const loadBefore = loads();
    const health = async (name: string) => {
      const cpuBefore = cpuSeconds(proc.pid);
      const probe = startHealthProbe(ctx, url, name, HEALTH_CONNECTIONS, HEALTH_PAUSE_MS);
      await sleep(RENDER_SECONDS * 1000);
      const samples = await probe.stop();
      return { latency: healthLatencyOf(samples), cpuSeconds: (cpuSeconds(proc.pid) ?? NaN) - (cpuBefore ?? NaN) };
    };
    await sleep(2000);
    const rssIdleKb = rss();
    const idle = (await health('render-limit-idle')).latency;
    ctx.log(`  /health idle: p50 ${ms(idle.p50)} ms, p99 ${ms(idle.p99)} ms, max ${ms(idle.max)} ms (${fmt(idle.count)} requests); RSS ${mb(rssIdleKb)} MB`);

    const created = await call('POST', '/api/v1/campaigns', { name: 'At the render limit', ...CAMPAIGN, html: CAMPAIGN.html + loopTemplate(outer), list_ids: [seed.listId] });
    if (created.status !== 200) throw new Error(`creating the campaign answered ${created.status}: ${JSON.stringify(created.body)}`);
    const campaignId = created.body.data.id as number;
    // A test send starts the render thread test sends use: the cost of one render thread. (Its
    // message may go over the budget on a loaded machine, a 400: the thread is started either way.)
    const test = await call('POST', `/api/v1/campaigns/${campaignId}/test`, { emails: ['render-limit-test@bench.example'] });
    if (test.status !== 200 && test.status !== 400) throw new Error(`the test send answered ${test.status}: ${JSON.stringify(test.body)}`);
    await sleep(2000);
    const rssOneThreadKb = rss();

    await sink.reset();
    const sent = await call('POST', `/api/v1/campaigns/${campaignId}/send`);
    if (sent.status !== 200) throw new Error(`POST /send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
    for (const deadline = Date.now() + 30_000; (await sink.stats()).messages === 0; await sleep(100)) {
      if (Date.now() > deadline) {
        const c = await call('GET', `/api/v1/campaigns/${campaignId}`);
        throw new Error(`no message of the render-limit campaign reached the sink within 30 s: ${JSON.stringify(c.body.data)}`);
      }
    }
    const before = (await sink.stats()).messages;
    const { latency: rendering, cpuSeconds: cpuSecondsInWindow } = await health('render-limit-rendering');
    const windowMessages = (await sink.stats()).messages - before;
    const rssTwoThreadsKb = rss();
    const db = new SQLite(join(seed.dataDir, 'sendwell.db'), { readonly: true });
    let failedOverLimit: number;
    try {
      failedOverLimit = (db.prepare(`select count(*) as n from campaign_recipients where campaign_id = ? and status = 'FAILED'`).get(campaignId) as { n: number }).n;
    } finally {
      db.close();
    }
    ctx.log(
      `  /health while rendering: p50 ${ms(rendering.p50)} ms, p99 ${ms(rendering.p99)} ms, max ${ms(rendering.max)} ms (${fmt(rendering.count)} requests); ` +
        `${windowMessages} messages sent meanwhile, ${failedOverLimit} recipients over the limit; RSS ${mb(rssTwoThreadsKb)} MB`,
    );
    return {
      count: RENDER_COUNT,
      outer,
      renderMs,
      idle,
      rendering,
      windowMessages,
      failedOverLimit,
      rssIdleKb,
      rssOneThreadKb,
      rssTwoThreadsKb,
      hwmKb: memoryOf(proc.pid)?.hwmKb ?? NaN,
      cpuSecondsInWindow,
      loadBefore,
      loadAfter: loads(),
    };
  } finally {
    await proc.stop();
  }
}

/** Adds the section of phase 5 to `lines`; returns whether its target was met. */
function renderLimitReport(r: RenderLimitResult, lines: string[]): boolean {
  const ok = r.rendering.p99 < TARGET_HEALTH_P99_MS;
  const row = (label: string, l: HealthLatency) => [label, fmt(l.count), ms(l.p50), `**${ms(l.p99)}**`, ms(l.max), String(l.failed)];
  lines.push(
    '',
    '### 5. /health while a sender renders at its per-message limit (issue 14 H3, H4)',
    '',
    `One \`./bin/sendwell serve\` process (API and sender together, so /health shares the sending thread's event loop; rendering is on the render thread), SMTP_URL at the sink. ` +
      `The campaign (${fmt(r.count)} recipients) is the newsletter above plus a Liquid loop sized so that each message renders in about ${Math.round(RENDER_FRACTION * 100)}% of the ${RENDER_BUDGET_MS} ms budget (SEND_RENDER_BUDGET_MS): ` +
      `${r.outer} x 1,000 steps, ${r.renderMs.toFixed(0)} ms measured in the benchmark process. /health is measured by bench/health-poller.ts (a process of its own, ${HEALTH_CONNECTIONS} keep-alive connections, each sending the next request ${HEALTH_PAUSE_MS} ms after an answer, as in the runner-health section) for ${RENDER_SECONDS} s, idle and then while the campaign renders ` +
      `(${r.windowMessages} messages reached the sink in the window; ${r.failedOverLimit} recipients went over the limit). Load average before / after: ${r.loadBefore} / ${r.loadAfter}.`,
    '',
    table(['process', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'failed'], [row('idle', r.idle), row('rendering at the limit', r.rendering)]),
    '',
    `**/health p99 while rendering: ${ms(r.rendering.p99)} ms** (target < ${TARGET_HEALTH_P99_MS} ms: **${ok ? 'met' : 'NOT met'}**). ` +
      `The process used ${r.cpuSecondsInWindow === null ? 'n/a' : r.cpuSecondsInWindow.toFixed(1)} CPU seconds in the ${RENDER_SECONDS} s window (both threads). Process RSS: ${mb(r.rssIdleKb)} MB idle, ${mb(r.rssOneThreadKb)} MB once a test send started its render thread, ${mb(r.rssTwoThreadsKb)} MB while sending with both (peak ${mb(r.hwmKb)} MB).`,
  );
  return ok;
}

// ---------------------------------------------------------------------------------------------
// The report

function report(ctx: BenchContext, startedAt: Date, loadStart: string, t: { seed: Seeded; runs: ThroughputRun[] } | null, m: MemoryResult | null, r: RenderLimitResult | null): BenchReport {
  const cpu = cpus();
  const us = (sec: number, n: number) => Math.round((sec / n) * 1e6);
  const bytes = (st: SinkStats) => (st.messages > 0 ? Math.round(st.bytes / st.messages) : 0);
  const seconds = (from: number, to: number | null) => (to === null ? 'n/a' : ((to - from) / 1000).toFixed(1));

  const lines = [
    DKIM_RUN
      ? '## Sending with DKIM signing: ratio to a bare nodemailer loop that also signs (issue 19, D23)'
      : CONTENT_RUN
        ? '## Sending MJML content in a layout: the newsletter starter, ratio to a bare nodemailer loop (D22)'
        : '## Sending: throughput, memory, snapshot and statistics',
    '',
    `- Date: ${startedAt.toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    DKIM_RUN
      ? '- Command: `BENCH_SEND_DKIM=1 npm run bench -- --only sending` (or `BENCH_SEND_DKIM=1 node --import tsx bench/sending.ts`)'
      : CONTENT_RUN
        ? `- Command: \`BENCH_SEND_CONTENT=1 BENCH_SEND_COUNT=${SEND_COUNT} BENCH_SEND_CONFIGS=${CONFIGS.map((c) => `${c.concurrency}x${c.maxConnections}`).join(',')} node --import tsx bench/sending.ts\``
        : '- Command: `npm run bench -- --only sending` (or `node --import tsx bench/sending.ts`)',
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, nodemailer ${packageVersion(ctx.repoDir, 'nodemailer')}, smtp-server ${packageVersion(ctx.repoDir, 'smtp-server')}, embedded SQLite. ` +
      `Everything shares the ${cpu.length} cores: the sender, the API process, the SMTP sink and the benchmark itself. Load average (1, 5, 15 min) at the start: ${loadStart}` +
      (m ? `; at the end: ${m.loadAfter}` : '') +
      ' (other work on the machine makes the figures noisier).',
    `- Processes: \`./bin/sendwell serve --role api\` (starts each send with POST /api/v1/campaigns/{id}/send) and \`./bin/sendwell serve --role sender\` with SMTP_URL at the sink; ` +
      'the sink is bench/smtp-sink-server.ts (smtp-server, no TLS, no auth, DATA counted and dropped), its own process. The baseline is bench/bare-mailer.ts: nodemailer pooled SMTP with the same ' +
      'maxConnections and the same number of sendMail calls in flight, sending one fixed message (a Sendwell-rendered one, so the same size) to distinct addresses, its own process.',
    '- Campaign: subject and HTML with merge fields (first/last name, two custom fields), a preheader, four links (click-tracked), open pixel, unsubscribe footer, List-Unsubscribe headers, and a text part. ' +
      'Contacts are seeded straight into SQLite (one transaction) after `sendwell migrate` and account/key creation through the CLI' +
      [t ? `; ${fmt(t.seed.contacts)} in ${t.seed.seconds.toFixed(1)} s` : '', m ? `; ${fmt(m.seed.contacts)} in ${m.seed.seconds.toFixed(1)} s` : ''].join('') +
      `. Sender settings other than those named are the operator defaults${BATCH ? `, except SEND_BATCH_SIZE=${BATCH}` : ' (SEND_BATCH_SIZE 200, SEND_POLL_MS 1000)'}.`,
  ];
  if (DKIM_RUN) {
    lines.push(
      "- DKIM: the campaign's From domain is a sending domain added through POST /api/v1/domains (its 2048-bit RSA key made as an operator's is) and marked verified in the database (no DNS server here), " +
        "so Sendwell signs every message with nodemailer's signer (relaxed/relaxed, sha256) as it sends it, on the sending thread (the render thread composes it). The bare loop signs with the same key through nodemailer's `dkim` transport option, " +
        'the key parsed once on both sides. The sink counted a DKIM-Signature header on every message of every run below, bare and Sendwell (a run with an unsigned message fails instead).',
    );
  }

  if (CONTENT_RUN) {
    lines.push(
      "- Content (D22): the campaign is `format: mjml` with `template_id` naming an MJML layout: the built-in newsletter starter split at its body, its head and body frame inserted as the account's layout, its sections as the campaign's html. " +
        'Sendwell compiles it (mjml, then juice) on save and once more when sending starts, storing compiled_html; the render thread renders that per recipient and never compiles MJML. ' +
        "The bare loop's message is Sendwell's render of the same compiled content, so both sides send the same size. A compile per recipient would cap the rate at the compile's speed (tens of ms each).",
    );
  }
  const targetRatio = DKIM_RUN || CONTENT_RUN ? TARGET_DKIM_RATIO : TARGET_RATIO;
  let rateOk = false;
  let ratioOk = false;
  if (t) {
    const valid = t.runs.filter((r) => runValid(r, SEND_COUNT));
    const best = [...valid].sort((a, b) => sendwellRate(b) - sendwellRate(a))[0] ?? null;
    // The rate target is the unsigned run's; with DKIM the issue asks for the ratio alone.
    rateOk = DKIM_RUN || CONTENT_RUN || (best !== null && sendwellRate(best) >= TARGET_RATE);
    ratioOk = best !== null && ratioOf(best) >= targetRatio;
    const rows = t.runs.map((r) => [
      `${r.setting.concurrency} / ${r.setting.maxConnections}`,
      `${fmt(baseline(r))} (${fmt(bareRate(r.bare[0]))}, ${fmt(bareRate(r.bare[1]))})`,
      fmt(sendwellRate(r)),
      `**${ratioOf(r).toFixed(2)}**`,
      `${fmt(bareSinkRate(r))} / ${fmt(sinkRate(r.send.sink))}`,
      `${(r.send.sendMs / 1000).toFixed(2)} / ${seconds(r.send.sendAt, r.send.sink.firstAt)} / ${seconds(r.send.sendAt, r.send.sentAt)}`,
      `${us(bareSum(r, (b) => b.result.cpuSeconds), bareSum(r, (b) => b.result.sent))} / ${us(r.send.senderCpuSeconds, SEND_COUNT)} (${cpuRatioOf(r).toFixed(2)})`,
      `${us(bareSum(r, (b) => b.sinkCpuSeconds), bareSum(r, (b) => b.result.sent))} / ${us(r.send.sinkCpuSeconds, SEND_COUNT)}`,
      `${mb(Math.max(r.bare[0].result.hwmKb, r.bare[1].result.hwmKb))} / ${mb(r.send.hwmKb)}`,
      `${fmt(bytes(r.bare[0].sink))} / ${fmt(bytes(r.send.sink))}`,
      `${r.loadBefore.split(' ')[0]} / ${r.loadAfter.split(' ')[0]}`,
      runValid(r, SEND_COUNT) ? 'ok' : `INVALID (sink ${r.send.sink.messages}, distinct ${r.send.sink.distinctRecipients}, statistics.sent ${r.statsSent})`,
    ]);
    lines.push(
      '',
      `### 1. Throughput: ${fmt(SEND_COUNT)} recipients`,
      '',
      'Sendwell msgs/s is measured from the moment POST /send is made until the sink has received the last message (so it includes the snapshot and the up to 1 s the idle sender takes to notice the campaign); ' +
        `the bare loop's from its pool start until its last message was answered. Each setting runs the bare loop (${fmt(Math.ceil(SEND_COUNT / 2))} messages), Sendwell, and the bare loop again, back to back; the baseline is the mean of the two bare rates (each in brackets), and the ratio is Sendwell's rate over it. "Sink window" is first-to-last message at the sink.`,
      '',
      table(
        [
          'SEND_CONCURRENCY / SMTP_MAX_CONNECTIONS',
          'bare msgs/s (before, after)',
          'Sendwell msgs/s',
          'ratio',
          'sink window msgs/s (bare / Sendwell)',
          'Sendwell: POST /send s / to 1st msg s / to SENT s',
          'CPU µs/msg (bare / sender) (ratio)',
          'sink CPU µs/msg (bare / Sendwell)',
          'peak RSS MB (bare / sender)',
          'bytes/msg (bare / Sendwell)',
          'load 1-min (before / after)',
          'check',
        ],
        rows,
      ),
      '',
      "CPU µs/msg is the process's CPU time (user + system, all its threads) over the run divided by the messages. The sender's includes its render thread, which renders and composes each chunk of messages while the main thread sends the one before (src/sending/message-renderer.ts); with the work on two threads, bare CPU over sender CPU (in brackets) is lower than the rate ratio. On this 2-core machine the sink shares the CPU with the sender, so the rate also depends on how much CPU each message costs in all. Peak RSS is VmHWM. \"check\": the sink received each recipient exactly once (distinct addresses = messages = recipients), the campaign reached SENT, and its /statistics `sent` equals the recipients.",
      '',
      best
        ? `Best setting: SEND_CONCURRENCY=${best.setting.concurrency}, SMTP_MAX_CONNECTIONS=${best.setting.maxConnections}: **${fmt(sendwellRate(best))} msgs/s**` +
          (DKIM_RUN || CONTENT_RUN ? ', ' : ` (target ≥ ${fmt(TARGET_RATE)}: **${rateOk ? 'met' : 'NOT met'}**), `) +
          `**ratio ${ratioOf(best).toFixed(2)}** to the bare loop at the same setting (target ≥ ${targetRatio}: **${ratioOk ? 'met' : 'NOT met'}**); ` +
          `CPU per message, bare over sender: ${cpuRatioOf(best).toFixed(2)}.`
        : 'No valid throughput run: **target NOT met**.',
    );
  }

  let memOk = false;
  let snapOk = false;
  let statsOk = false;
  if (m) {
    memOk = m.send.hwmKb / 1024 < TARGET_RSS_MB;
    snapOk = m.send.sendMs / 1000 < TARGET_SNAPSHOT_S && m.send.totalRecipients === m.seed.contacts;
    statsOk = m.statsSequential.p50 < TARGET_STATS_P50_MS && m.statsSent === m.seed.contacts;
    const elapsed = ((m.send.sink.lastAt ?? m.send.sendAt) - m.send.sendAt) / 1000;
    const rate = m.send.sink.messages / elapsed;
    const series = (p: SendProgress) => {
      const step = Math.max(10_000, Math.ceil(p.sink.messages / 8 / 10_000) * 10_000);
      const points: string[] = [];
      for (let n = step; n <= p.sink.messages; n += step) {
        const sample = p.samples.find((x) => x.messages >= n);
        if (sample) points.push(`${fmt(n)}: ${mb(sample.rssKb)}`);
      }
      return points.join(', ') || 'n/a';
    };
    const sentDirectly = m.completedDirectly;
    lines.push(
      '',
      `### 2-4. ${fmt(m.seed.contacts)} recipients: sender memory, snapshot, /statistics`,
      '',
      `Sender setting: SEND_CONCURRENCY=${m.setting.concurrency}, SMTP_MAX_CONNECTIONS=${m.setting.maxConnections}. Load average before / after: ${m.loadBefore} / ${m.loadAfter}.`,
      '',
      m.send.finished
        ? `- The whole send ran: ${fmt(m.send.sink.messages)} messages at the sink in ${elapsed.toFixed(0)} s (${fmt(rate)} msgs/s from POST /send); campaign SENT after ${seconds(m.send.sendAt, m.send.sentAt)} s.`
        : `- The send ran for the ${MEMORY_SECONDS} s budget: ${fmt(m.send.sink.messages)} messages (${fmt(rate)} msgs/s); the full ${fmt(m.seed.contacts)} would take about ${(m.seed.contacts / rate / 60).toFixed(1)} minutes here, too long for one benchmark run. ` +
          `So RSS is measured over those ${fmt(m.send.sink.messages)} messages, the sender working through a ${fmt(m.seed.contacts)}-row campaign (it claims ${BATCH || 200} rows at a time from it).`,
      `- **Sender peak RSS (VmHWM of \`./bin/sendwell serve --role sender\`): ${mb(m.send.hwmKb)} MB**; target < ${TARGET_RSS_MB} MB: **${memOk ? 'met' : 'NOT met'}**. ` +
        `Idle before the send: ${mb(m.idleRssKb)} MB; highest sampled VmRSS ${mb(m.send.peakRssKb)} MB (${m.send.samples.length} samples, every 250 ms). VmRSS (MB) after N messages: ${series(m.send)}; at the end ${mb(m.send.samples.at(-1)?.rssKb ?? NaN)}.`,
    );
    if (m.capped) {
      const c = m.capped;
      lines.push(
        `- The same campaign continued by a sender started with \`NODE_OPTIONS=${c.nodeOptions}\` (a V8 heap cap an operator can set; everything else equal) for ${CAP_SECONDS} s: ${fmt(c.send.sink.messages)} messages ` +
          `(${fmt(c.send.sink.messages / (((c.send.sink.lastAt ?? c.send.sendAt) - c.send.sendAt) / 1000))} msgs/s, CPU ${us(c.send.senderCpuSeconds, Math.max(1, c.send.sink.messages))} µs/msg vs ${us(m.send.senderCpuSeconds, Math.max(1, m.send.sink.messages))} without the cap; load before / after ${c.loadBefore} / ${c.loadAfter}, so compare CPU with care), ` +
          `**peak RSS ${mb(c.send.hwmKb)} MB** (at start ${mb(c.idleRssKb)} MB; VmRSS (MB) after N messages: ${series(c.send)}).`,
      );
    }
    lines.push(
      sentDirectly > 0
        ? `- For /statistics the campaign must be SENT: after the senders were stopped cleanly, the ${fmt(sentDirectly)} rows they had not sent were marked SENT directly in SQL, with their statistics counters, and the campaign set to SENT.`
        : '',
      `- **Snapshot: POST /send took ${(m.send.sendMs / 1000).toFixed(2)} s** for ${fmt(m.send.totalRecipients)} recipients (the request's whole time, on the API process: the transaction with the INSERT ... SELECT and setting total_recipients). ` +
        `Target < ${TARGET_SNAPSHOT_S} s: **${snapOk ? 'met' : 'NOT met'}**.`,
      `- **/statistics on the SENT ${fmt(m.seed.contacts)}-recipient campaign: p50 ${m.statsSequential.p50.toFixed(2)} ms**, p90 ${m.statsSequential.p90.toFixed(2)} ms, p99 ${m.statsSequential.p99.toFixed(2)} ms, max ${m.statsSequential.max.toFixed(2)} ms ` +
        `over ${m.statsSequential.n} sequential requests after 20 warm-ups (measured by the client, one kept-alive connection; the very first request took ${m.statsSequential.first.toFixed(1)} ms). ` +
        `With autocannon at 10 connections for 5 s: ${fmt(m.statsLoad.reqPerSec)} req/s, p50 ${m.statsLoad.p50} ms, p99 ${m.statsLoad.p99} ms (whole ms), non-2xx ${m.statsLoad.non2xx}. ` +
        `statistics.sent = ${m.statsSent === null ? 'n/a' : fmt(m.statsSent)}. Target p50 < ${TARGET_STATS_P50_MS} ms: **${statsOk ? 'met' : 'NOT met'}**.`,
    );
  } else if (!DKIM_RUN && !CONTENT_RUN) {
    lines.push('', '### 2-4. Memory, snapshot, /statistics at 1M', '', 'Not run in this run (BENCH_SEND_PHASES or BENCH_SEND_MEMORY_COUNT).');
  }
  const healthOk = r === null || renderLimitReport(r, lines);
  const markdown = lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n');
  return { id: DKIM_RUN ? 'sending-dkim' : CONTENT_RUN ? 'sending-content' : 'sending', markdown, targetMet: (t === null || (rateOk && ratioOk)) && (m === null || (memOk && snapOk && statsOk)) && healthOk };
}

function packageVersion(repoDir: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(join(repoDir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** The sending benchmarks (see the top of this file); returns the RESULTS.md section. */
export async function sendingBench(ctx: BenchContext): Promise<BenchReport> {
  if ((DKIM_RUN || CONTENT_RUN) && PHASES.some((p) => p !== 'throughput')) {
    throw new Error(`BENCH_SEND_DKIM=1 and BENCH_SEND_CONTENT=1 measure the throughput phase only; BENCH_SEND_PHASES asks for ${PHASES.join(',')}`);
  }
  if (DKIM_RUN && CONTENT_RUN) throw new Error('BENCH_SEND_DKIM=1 and BENCH_SEND_CONTENT=1 are separate runs');
  const startedAt = new Date();
  const loadStart = loads();
  const sink = await startSink(ctx);
  try {
    const t = PHASES.includes('throughput') || ctx.profile ? await throughputPhase(ctx, sink) : null;
    if (ctx.profile) return { id: 'sending', markdown: t?.profile ?? 'no profile', targetMet: false };
    const best = t?.runs.filter((r) => runValid(r, SEND_COUNT)).sort((a, b) => sendwellRate(b) - sendwellRate(a))[0];
    const m = PHASES.includes('memory') && MEMORY_COUNT > 0 ? await memoryPhase(ctx, sink, best?.setting ?? CONFIGS[0]) : null;
    const r = PHASES.includes('render-limit') && RENDER_COUNT > 0 ? await renderLimitPhase(ctx, sink) : null;
    return report(ctx, startedAt, loadStart, t, m, r);
  } finally {
    await sink.proc.stop();
  }
}

// Standalone: node --import tsx bench/sending.ts [--no-record] [--profile] [--keep]
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { profile: { type: 'boolean', default: false }, 'no-record': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });
  const benchDir = dirname(fileURLToPath(import.meta.url));
  const workDir = mkdtempSync(join(tmpdir(), 'sendwell-bench-sending-'));
  const started = Date.now();
  const log = (message: string) => console.log(`[sending ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}`);
  let code = 0;
  try {
    const result = await sendingBench({ repoDir: resolve(benchDir, '..'), workDir, durationSec: 0, warmupSec: 0, connections: 0, profile: values.profile, log });
    if (!values.profile && !values['no-record']) {
      updateSection(join(benchDir, 'RESULTS.md'), result.id, result.markdown);
      log(`recorded in bench/RESULTS.md; target ${result.targetMet ? 'met' : 'NOT met'}`);
    } else {
      console.log('\n' + result.markdown + '\n');
    }
  } catch (err) {
    code = 1;
    console.error('[sending] failed:', err);
  } finally {
    if (values.keep || values.profile) log(`work files kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(code);
}
