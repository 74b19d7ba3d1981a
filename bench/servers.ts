/**
 * D23, several mail servers (issue 19, "Speed and memory"): a campaign sent by a real
 * `./bin/sendwell serve --role sender` to one SMTP sink, then another campaign to the same audience
 * by a sender whose SMTP_URL names two sinks (each its own process, bench/smtp-sink-server.ts).
 * Target: two sinks as two servers carry at least 1.6 times the messages per second of one, where
 * the machine allows it. Part of `npm run bench` (bench/run.ts), or alone:
 *
 *   node --import tsx bench/servers.ts [--no-record]
 *
 * Environment knobs: BENCH_SERVERS_COUNT [12000] recipients per campaign; BENCH_SERVERS_SETTING
 * [50x10] SEND_CONCURRENCY x SMTP_MAX_CONNECTIONS (connections per server);
 * BENCH_SERVERS_SINK_DELAY_MS [20] how long each sink takes to answer DATA. A real relay answers
 * after writing the message to its queue; a sink that answers at once is never what limits a
 * sender on 2 cores (measured: 1,045 msgs/s with one, 1,075 with two, the sender's CPU the limit),
 * so what a second server adds could not show.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { table, updateSection } from './lib/results.ts';
import { createCampaign, seedAudience, startApi, startSender, startSink, statisticsSent, type Api, type CampaignBody, type SenderSetting, type Sink, type SinkStats } from './sending.ts';

const COUNT = Number(process.env.BENCH_SERVERS_COUNT ?? 12_000);
const [CONCURRENCY, MAX_CONNECTIONS] = (process.env.BENCH_SERVERS_SETTING ?? '50x10').split('x').map(Number);
const SINK_DELAY_MS = Number(process.env.BENCH_SERVERS_SINK_DELAY_MS ?? 20);
const TARGET_RATIO = 1.6;
const STALL_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');

interface Run {
  servers: number;
  /** per sink, at the end */
  sinks: SinkStats[];
  /** messages over POST /send until the last message arrived */
  rate: number;
  /** messages over the first-to-last window across the sinks */
  windowRate: number;
  statsSent: number | null;
  sent: boolean;
  load: string;
}

/** Sends a new campaign to the audience through a sender on `sinks`, and follows it at the sinks. */
async function run(ctx: BenchContext, api: Api, seed: Awaited<ReturnType<typeof seedAudience>>, sinks: Sink[], setting: SenderSetting): Promise<Run> {
  const label = `${sinks.length}-server`;
  const sender = await startSender(ctx, seed, sinks[0], setting, label, null, { SMTP_URL: sinks.map((s) => `smtp://127.0.0.1:${s.smtpPort}`).join(' ') });
  try {
    const campaignId = await createCampaign(api, seed, `bench ${label}`);
    await Promise.all(sinks.map((s) => s.reset()));
    const sendAt = performance.timeOrigin + performance.now();
    const res = await api.call<CampaignBody>('POST', `/api/v1/campaigns/${campaignId}/send`);
    if (res.status !== 200) throw new Error(`POST /send answered ${res.status}`);
    let stats: SinkStats[] = [];
    let last = -1;
    let lastChange = Date.now();
    for (;;) {
      stats = await Promise.all(sinks.map((s) => s.stats()));
      const messages = stats.reduce((n, s) => n + s.messages, 0);
      if (messages >= COUNT) break;
      if (messages !== last) [last, lastChange] = [messages, Date.now()];
      if (Date.now() - lastChange > STALL_MS) throw new Error(`no message reached the sinks for ${STALL_MS / 1000} s (${messages} so far)`);
      await sleep(100);
    }
    let sent = false;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !sent; await sleep(50)) {
      sent = (await api.call<CampaignBody>('GET', `/api/v1/campaigns/${campaignId}`)).body.data.status === 'SENT';
    }
    stats = await Promise.all(sinks.map((s) => s.stats()));
    const messages = stats.reduce((n, s) => n + s.messages, 0);
    const lastAt = Math.max(...stats.map((s) => s.lastAt ?? 0));
    const firstAt = Math.min(...stats.map((s) => s.firstAt ?? Infinity));
    return {
      servers: sinks.length,
      sinks: stats,
      rate: messages / ((lastAt - sendAt) / 1000),
      windowRate: (messages - 1) / ((lastAt - firstAt) / 1000),
      statsSent: await statisticsSent(api, campaignId),
      sent,
      load: loads(),
    };
  } finally {
    await sender.stop();
  }
}

export async function serversBench(ctx: BenchContext): Promise<BenchReport> {
  const startedAt = new Date();
  const loadStart = loads();
  const setting: SenderSetting = { concurrency: CONCURRENCY, maxConnections: MAX_CONNECTIONS };
  process.env.SINK_DATA_DELAY_MS = String(SINK_DELAY_MS); // the sinks are started with this process's environment
  const sinks = await Promise.all([startSink(ctx), startSink(ctx)]);
  const dataDir = join(ctx.workDir, 'data');
  try {
    const seed = await seedAudience(ctx.repoDir, dataDir, COUNT);
    ctx.log(`seeded ${fmt(COUNT)} contacts in ${seed.seconds.toFixed(1)} s`);
    const api = await startApi(ctx, seed, 'servers');
    try {
      const one = await run(ctx, api, seed, [sinks[0]], setting);
      ctx.log(`one server: ${fmt(one.windowRate)} msgs/s (sink window), load ${one.load}`);
      const two = await run(ctx, api, seed, sinks, setting);
      ctx.log(`two servers: ${fmt(two.windowRate)} msgs/s (sink window), split ${two.sinks.map((s) => s.messages).join(' / ')}, load ${two.load}`);
      const ratio = two.windowRate / one.windowRate;
      const check = (r: Run) =>
        r.sent && r.statsSent === COUNT && r.sinks.reduce((n, s) => n + s.messages, 0) === COUNT && r.sinks.reduce((n, s) => n + (s.distinctRecipients ?? 0), 0) === COUNT ? 'ok' : 'FAILED';
      const rows = [one, two].map((r) => [
        r.servers === 1 ? 'one sink' : 'two sinks as two servers',
        r.sinks.map((s) => fmt(s.messages)).join(' / '),
        fmt(r.rate),
        fmt(r.windowRate),
        r.load,
        check(r),
      ]);
      const markdown = [
        '## Several mail servers: two sinks as two servers against one (D23)',
        '',
        `- Date: ${startedAt.toISOString().replace('T', ' ').slice(0, 19)} UTC`,
        '- Command: `npm run bench -- --only servers` (or `node --import tsx bench/servers.ts`)',
        `- Machine: ${cpus().length} cores, Node ${process.version}, embedded SQLite. Load average (1, 5, 15 min) at the start: ${loadStart}.`,
        `- ${fmt(COUNT)} recipients per campaign; one \`./bin/sendwell serve --role sender\` with SEND_CONCURRENCY=${CONCURRENCY}, SMTP_MAX_CONNECTIONS=${MAX_CONNECTIONS} (per server), first SMTP_URL at one sink, then a new campaign to the same audience with SMTP_URL naming two sinks. Each sink is bench/smtp-sink-server.ts, its own process, and answers DATA after ${SINK_DELAY_MS} ms (BENCH_SERVERS_SINK_DELAY_MS), as a relay does once the message is in its queue; answering at once, a sink was never the limit here (1,045 msgs/s with one, 1,075 with two: the sender's CPU was). msgs/s over the sink window is first-to-last message across the sinks (without the snapshot and the idle sender's poll); "from POST /send" includes them.`,
        '',
        table(['setup', 'messages per sink', 'msgs/s from POST /send', 'msgs/s sink window', 'load 1/5/15 after', 'check'], rows),
        '',
        `Two servers over one: **${ratio.toFixed(2)}x** (target ≥ ${TARGET_RATIO}x where the machine allows: **${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}**). "check": the campaign reached SENT, /statistics \`sent\` equals the recipients, and the sinks together received each recipient once.`,
      ].join('\n');
      return { id: 'servers', markdown, targetMet: ratio >= TARGET_RATIO };
    } finally {
      await api.proc.stop();
    }
  } finally {
    await Promise.all(sinks.map((s) => s.proc.stop()));
  }
}

// Standalone: node --import tsx bench/servers.ts [--no-record]
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { 'no-record': { type: 'boolean', default: false } } });
  const benchDir = dirname(fileURLToPath(import.meta.url));
  const workDir = mkdtempSync(join(tmpdir(), 'sendwell-bench-servers-'));
  const started = Date.now();
  const log = (message: string) => console.log(`[servers ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}`);
  let code = 0;
  try {
    const result = await serversBench({ repoDir: resolve(benchDir, '..'), workDir, durationSec: 0, warmupSec: 0, connections: 0, profile: false, log });
    if (values['no-record']) console.log('\n' + result.markdown + '\n');
    else {
      updateSection(join(benchDir, 'RESULTS.md'), result.id, result.markdown);
      log(`recorded in bench/RESULTS.md; target ${result.targetMet ? 'met' : 'NOT met'}`);
    }
  } catch (err) {
    code = 1;
    console.error('[servers] failed:', err);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(code);
}
