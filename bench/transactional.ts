/**
 * Transactional mail (issue 31, D25.4), measured in one run against a local SMTP sink running as
 * its own process (bench/smtp-sink-server.ts), with a real `./bin/sendwell serve --role api` and a
 * `--role sender` process, as an operator runs them:
 *
 *  1. Throughput of the lane: N messages accepted by `POST /api/v1/messages/batch` while no sender
 *     runs, then a sender started: messages per second between the sink's first and last message,
 *     against the bare nodemailer pooled loop (bench/bare-mailer.ts: the same pool settings and
 *     concurrency, a message of the same size) right before and right after. Target: ratio ≥ 0.8.
 *  2. Latency: while a 100,000-recipient campaign sends, one message every 100 ms by
 *     `POST /api/v1/messages`; for each, the time from the API's answer to its arrival at the sink.
 *     Target: p95 under 1 s (the contract's bound is 5 s).
 *
 *   npm run bench -- --only transactional
 *
 * Environment knobs: BENCH_TX_COUNT [5000] messages of phase 1; BENCH_TX_CAMPAIGN [100000]
 * recipients of phase 2's campaign; BENCH_TX_PROBES [100] messages timed in phase 2;
 * BENCH_TX_SETTING [100x20] the sender's SEND_CONCURRENCY x SMTP_MAX_CONNECTIONS (the sending
 * benchmark's best setting), the bare loop's alike.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import type { BareMailerResult, BareMailerSpec } from './bare-mailer.ts';
import type { Benchmark, BenchContext } from './lib/context.ts';
import { cpuSeconds, runCommand } from './lib/proc.ts';
import { buildTransactional } from '../src/sending/transactional-message.ts';
import { TokenSigner } from '../src/domain/shared/tokens.ts';
import { profilesIn, summariseProfile } from './lib/cpuprofile.ts';
import { table } from './lib/results.ts';
import { createCampaign, seedAudience, startApi, startSender, startSink, type Api, type Sink, type SinkStats } from './sending.ts';

const COUNT = Number(process.env.BENCH_TX_COUNT ?? 5000);
const CAMPAIGN_SIZE = Number(process.env.BENCH_TX_CAMPAIGN ?? 100_000);
const PROBES = Number(process.env.BENCH_TX_PROBES ?? 100);
/** SEND_CONCURRENCY x SMTP_MAX_CONNECTIONS of the sender, and the same for the bare loop (BENCH_TX_SETTING) */
const [CONCURRENCY, CONNECTIONS] = (process.env.BENCH_TX_SETTING ?? '100x20').split('x').map(Number);
const SETTING = { concurrency: CONCURRENCY, maxConnections: CONNECTIONS };

/** A receipt: what an application sends, about the size of a rendered one. */
const RECEIPT = {
  from_email: 'billing@bench.example',
  from_name: 'Bench Shop',
  subject: 'Your receipt {{ data.order }}',
  html: `<html><body><h1>Thanks for your order</h1><p>Order {{ data.order }}, paid {{ data.total }}.</p>${'<p>Line item with a description of the product bought.</p>'.repeat(20)}</body></html>`,
  text: null,
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sinkRate = (st: SinkStats) => (st.messages - 1) / (((st.lastAt ?? 0) - (st.firstAt ?? 0)) / 1000);

/** The receipt as Sendwell renders it (its HTML and the text part made from it): what the bare loop sends, so both send the same bytes. */
function renderedReceipt() {
  const m = buildTransactional(
    {
      id: 1042,
      account_id: 1,
      to_email: 'tx-0@bench.example',
      from_email: RECEIPT.from_email,
      from_name: RECEIPT.from_name,
      reply_to: null,
      subject: RECEIPT.subject,
      html: RECEIPT.html,
      text: RECEIPT.text,
      data: { order: 'A-1042', total: '$42.00' },
      headers: {},
      attachments: null,
      track_opens: false,
      track_clicks: false,
      contact: null,
      mime: null,
    },
    new TokenSigner('bench-secret'),
    'https://mail.bench.example',
    null,
  );
  return { from: m.from, subject: m.subject, html: m.html, text: m.text, headers: m.headers };
}

async function bareRun(ctx: BenchContext, sink: Sink, count: number): Promise<{ rate: number; result: BareMailerResult }> {
  const spec: BareMailerSpec = {
    host: '127.0.0.1',
    port: sink.smtpPort,
    count,
    concurrency: SETTING.concurrency,
    maxConnections: SETTING.maxConnections,
    message: renderedReceipt(),
  };
  const file = join(ctx.workDir, 'bare-tx-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  await sink.reset();
  const out = await runCommand(process.execPath, ['--import', 'tsx', 'bench/bare-mailer.ts', file], { cwd: ctx.repoDir });
  const result = JSON.parse(out.trim().split('\n').pop()!) as BareMailerResult;
  if (result.failed > 0) throw new Error(`the bare loop had ${result.failed} failures: ${result.firstError}`);
  return { rate: sinkRate(await sink.stats()), result };
}

async function waitForSink(sink: Sink, messages: number, timeoutMs: number): Promise<SinkStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await sink.stats();
    if (st.messages >= messages || Date.now() > deadline) return st;
    await sleep(100);
  }
}

async function queueMessages(api: Api, count: number): Promise<number> {
  const started = Date.now();
  for (let i = 0; i < count; i += 100) {
    const messages = Array.from({ length: Math.min(100, count - i) }, (_, j) => ({ ...RECEIPT, to: `batch-${i + j}@bench.example`, data: { order: `A-${i + j}`, total: '$42.00' } }));
    const res = await api.call('POST', '/api/v1/messages/batch', { messages });
    if (res.status !== 200) throw new Error(`POST /messages/batch answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  return (Date.now() - started) / 1000;
}

export const transactionalBench: Benchmark = async (ctx) => {
  const sink = await startSink(ctx);
  const seed = await seedAudience(ctx.repoDir, join(ctx.workDir, 'data-tx'), CAMPAIGN_SIZE);
  const api = await startApi(ctx, seed, 'tx');
  try {
    // 1. Throughput: the queue filled first, then a sender drains it.
    const bareBefore = await bareRun(ctx, sink, COUNT);
    const queueSeconds = await queueMessages(api, COUNT);
    await sink.reset();
    const profileDir = ctx.profile ? join(ctx.workDir, 'profile-tx') : null;
    const sender = await startSender(ctx, seed, sink, SETTING, 'tx-throughput', profileDir);
    // Its start (loading code, migrations checked) is not per-message work.
    const senderCpuAtStart = cpuSeconds(sender.pid) ?? 0;
    const drained = await waitForSink(sink, COUNT, 300_000);
    const senderCpu = (cpuSeconds(sender.pid) ?? NaN) - senderCpuAtStart;
    await sender.stop();
    const bareAfter = await bareRun(ctx, sink, COUNT);
    if (profileDir) {
      for (const file of profilesIn(profileDir)) {
        const { totalMs, functions, packages } = summariseProfile(file, 30);
        ctx.log(`profile ${file}: ${totalMs.toFixed(0)} ms\n${packages.map((p) => `  ${p.selfMs.toFixed(0)} ms ${p.name}`).join('\n')}\n${functions.map((f) => `  ${f.selfMs.toFixed(0)} ms ${f.name} ${f.where}`).join('\n')}`);
      }
    }
    const laneRate = sinkRate(drained);
    const bareRate = (bareBefore.rate + bareAfter.rate) / 2;
    ctx.log(`lane ${laneRate.toFixed(0)}/s, bare ${bareRate.toFixed(0)}/s, ${drained.messages} of ${COUNT} arrived`);

    // 2. Latency while a 100k campaign sends.
    await sink.reset();
    const campaignSender = await startSender(ctx, seed, sink, SETTING, 'tx-latency', null);
    const campaignId = await createCampaign(api, seed, 'Bench campaign beside transactional mail');
    const sent = await api.call('POST', `/api/v1/campaigns/${campaignId}/send`);
    if (sent.status !== 200) throw new Error(`the send answered ${sent.status}`);
    await waitForSink(sink, 2000, 120_000);
    const answered = new Map<string, number>();
    for (let i = 0; i < PROBES; i++) {
      const to = `tx-${i}@bench.example`;
      const res = await api.call('POST', '/api/v1/messages', { ...RECEIPT, to, data: { order: `P-${i}`, total: '$1.00' } });
      if (res.status !== 200) throw new Error(`POST /messages answered ${res.status}`);
      answered.set(to, Date.now());
      await sleep(100);
    }
    const deadline = Date.now() + 60_000;
    let arrivals: Record<string, number> = {};
    while (Date.now() < deadline) {
      arrivals = await sink.arrivals();
      if ([...answered.keys()].every((to) => arrivals[to] !== undefined)) break;
      await sleep(200);
    }
    const campaignAtEnd = await sink.stats();
    await campaignSender.stop();
    const latencies = [...answered].map(([to, at]) => (arrivals[to] === undefined ? Infinity : arrivals[to] - at)).sort((a, b) => a - b);
    const missing = latencies.filter((l) => l === Infinity).length;
    const [p50, p95, max] = [percentile(latencies, 50), percentile(latencies, 95), latencies.at(-1)!];
    const ratio = laneRate / bareRate;
    // CPU per message, bare over the sender (which also claims, renders and records): less disturbed by other load than the rates.
    const cpuRatio = (bareBefore.result.cpuSeconds + bareAfter.result.cpuSeconds) / (bareBefore.result.sent + bareAfter.result.sent) / (senderCpu / drained.messages);
    const targetMet = ratio >= 0.8 && p95 < 1000 && missing === 0;
    const lines = [
      '## Transactional mail: the lane against a bare nodemailer loop, and its latency beside a campaign (issue 31, D25.4)',
      '',
      `Run on ${new Date().toISOString().slice(0, 10)} with \`npm run bench -- --only transactional\` (this 2-core machine; sender SEND_CONCURRENCY ${SETTING.concurrency}, SMTP_MAX_CONNECTIONS ${SETTING.maxConnections}).`,
      '',
      '**1. Throughput of the transactional lane** (messages/s between the sink\'s first and last message):',
      '',
      table(
        ['side', 'messages', 'rate /s'],
        [
          ['bare nodemailer loop, before', bareBefore.result.sent, bareBefore.rate.toFixed(0)],
          [`Sendwell sender, ${COUNT} queued messages (queued by /messages/batch in ${queueSeconds.toFixed(1)} s)`, drained.messages, laneRate.toFixed(0)],
          ['bare nodemailer loop, after', bareAfter.result.sent, bareAfter.rate.toFixed(0)],
        ],
      ),
      '',
      `Ratio to the bare loop: **${ratio.toFixed(2)}** (target ≥ 0.8). CPU per message: sender ${((senderCpu / drained.messages) * 1e6).toFixed(0)} µs, bare loop ${(((bareBefore.result.cpuSeconds + bareAfter.result.cpuSeconds) / (bareBefore.result.sent + bareAfter.result.sent)) * 1e6).toFixed(0)} µs (ratio ${cpuRatio.toFixed(2)}).`,
      '',
      `**2. Latency while a ${CAMPAIGN_SIZE.toLocaleString('en')}-recipient campaign sends** (${PROBES} messages, one every 100 ms; from the API's answer to the sink): ` +
        `p50 **${p50.toFixed(0)} ms**, p95 **${p95.toFixed(0)} ms**, max **${Number.isFinite(max) ? max.toFixed(0) : 'never'} ms**${missing ? `, ${missing} never arrived` : ''} (target p95 < 1 s; contract 5 s). ` +
        `The campaign had ${campaignAtEnd.messages.toLocaleString('en')} messages at the sink meanwhile.`,
      '',
      targetMet ? 'Targets met.' : 'Target NOT met.',
    ];
    return { id: 'transactional', markdown: lines.join('\n'), targetMet };
  } finally {
    await api.proc.stop();
    await sink.proc.stop();
  }
};
