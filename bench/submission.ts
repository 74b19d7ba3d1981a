/**
 * Issue 31's SMTP submission target: transactional throughput through SMTP submission (D25.7)
 * against the bare nodemailer loop (target ratio ≥ 0.8). One load generator, its own process:
 * bench/bare-mailer.ts, nodemailer's pooled SMTP transport with `concurrency` sendMail calls in
 * flight over `maxConnections` connections, each message to a distinct address.
 *
 *  - bare: that loop sends straight to the benchmark SMTP sink (bench/smtp-sink-server.ts, its own
 *    process). Rate: messages over its own wall time (first sendMail to the last answered).
 *  - Sendwell: the same loop, with AUTH and an API key, sends to `./bin/sendwell serve`'s
 *    SMTP_SUBMISSION_PORT (API and sender in one process, SQLite), whose sender's lane sends each
 *    message on to the same sink, with the same SEND_CONCURRENCY and SMTP_MAX_CONNECTIONS as the
 *    loop. Rate: messages over the time from the loop's first sendMail to the sink's last message,
 *    so what is measured is submission, storage and sending, end to end.
 *
 * The bare loop runs right before and right after Sendwell (the baseline is their mean), so a
 * change in background load affects both sides alike. Part of `npm run bench`
 * (`npm run bench -- --only submission`).
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_SUBMISSION_COUNT [10000]         messages per run
 *   BENCH_SUBMISSION_CONCURRENCY [20]      sendMail calls in flight, and SEND_CONCURRENCY
 *   BENCH_SUBMISSION_CONNECTIONS [10]      pooled connections, and SMTP_MAX_CONNECTIONS
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BareMailerResult, BareMailerSpec } from './bare-mailer.ts';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { cpuSeconds, freePort, runCommand, startProcess, waitForHttp } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';
import { startSink, type Sink, type SinkStats } from './sending.ts';

const COUNT = Number(process.env.BENCH_SUBMISSION_COUNT ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_SUBMISSION_CONCURRENCY ?? 20);
const CONNECTIONS = Number(process.env.BENCH_SUBMISSION_CONNECTIONS ?? 10);
const TARGET = 0.8;
/** How long the sink may take to have every message Sendwell accepted. */
const DRAIN_TIMEOUT_MS = 600_000;

/** A receipt as an app would send it: a text and an HTML part, a few KB. */
const MESSAGE: BareMailerSpec['message'] = {
  from: { name: 'Shop Receipts', address: 'receipts@bench.example' },
  subject: 'Your receipt for order 42',
  text: `Thank you for your order.\n\n${'Item  1 x Widget  9.99\n'.repeat(40)}\nTotal 399.60`,
  html: `<html><body><p>Thank you for your order.</p><table>${'<tr><td>Item</td><td>1 x Widget</td><td>9.99</td></tr>'.repeat(40)}</table><p>Total 399.60</p></body></html>`,
  headers: { 'X-Order': '42' },
};

const loads = () => loadavg().map((l) => l.toFixed(2)).join(', ');

interface Run {
  result: BareMailerResult;
  sink: SinkStats;
  /** CPU seconds the sink spent receiving this run's messages */
  sinkCpu: number;
}

/** The load generator, its own process, to `port`; returns once it has sent everything and the sink has every message. */
async function runLoop(ctx: BenchContext, sink: Sink, port: number, auth: BareMailerSpec['auth'], label: string): Promise<Run> {
  const spec: BareMailerSpec = { host: '127.0.0.1', port, count: COUNT, concurrency: CONCURRENCY, maxConnections: CONNECTIONS, message: MESSAGE, ...(auth ? { auth } : {}) };
  const file = join(ctx.workDir, `${label}-spec.json`);
  writeFileSync(file, JSON.stringify(spec));
  const start = await sink.reset();
  const out = await runCommand(process.execPath, ['--import', 'tsx', 'bench/bare-mailer.ts', file], { cwd: ctx.repoDir });
  const result = JSON.parse(out.trim().split('\n').pop()!) as BareMailerResult;
  if (result.failed > 0) throw new Error(`${label}: ${result.failed} messages refused: ${result.firstError}`);
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const st = await sink.stats();
    if (st.messages >= result.sent) return { result, sink: st, sinkCpu: st.cpuSeconds - start.cpuSeconds };
    if (Date.now() > deadline) throw new Error(`${label}: the sink had ${st.messages} of ${result.sent} messages after ${DRAIN_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** bare: messages over the loop's wall time; Sendwell: over the loop's first sendMail to the sink's last message */
const bareRate = (r: Run) => r.result.sent / (r.result.wallMs / 1000);
const endToEndRate = (r: Run) => r.sink.messages / ((r.sink.lastAt! - r.result.startedAtMs) / 1000);

export async function submissionBench(ctx: BenchContext): Promise<BenchReport> {
  const loadBefore = loads();
  const sink = await startSink(ctx);
  const [httpPort, submissionPort] = [await freePort(), await freePort()];
  const env = sendwellEnv(join(ctx.workDir, 'data'), {
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    SECRET: 'bench-secret',
    PUBLIC_URL: 'https://mail.bench.example',
    LOG_LEVEL: 'warn',
    SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`,
    SEND_CONCURRENCY: String(CONCURRENCY),
    SMTP_MAX_CONNECTIONS: String(CONNECTIONS),
    SMTP_SUBMISSION_PORT: String(submissionPort),
    SMTP_SUBMISSION_HOST: '127.0.0.1',
  });
  const { key } = await createBenchAccount(ctx.repoDir, env);
  try {
    ctx.log(`bare loop before: ${COUNT} messages`);
    const before = await runLoop(ctx, sink, sink.smtpPort, undefined, 'bare-before');
    const serve = startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env, logFile: join(ctx.workDir, 'serve.log') });
    let sendwell: Run;
    let serveCpu: number | null;
    try {
      await waitForHttp(`http://127.0.0.1:${httpPort}/health`, serve);
      const cpuBefore = cpuSeconds(serve.pid) ?? 0;
      ctx.log(`Sendwell: ${COUNT} messages through SMTP submission`);
      sendwell = await runLoop(ctx, sink, submissionPort, { user: 'bench', pass: key }, 'sendwell');
      const cpuAfter = cpuSeconds(serve.pid);
      serveCpu = cpuAfter === null ? null : cpuAfter - cpuBefore;
    } finally {
      await serve.stop();
    }
    ctx.log(`bare loop after: ${COUNT} messages`);
    const after = await runLoop(ctx, sink, sink.smtpPort, undefined, 'bare-after');

    const baseline = (bareRate(before) + bareRate(after)) / 2;
    const rate = endToEndRate(sendwell);
    const ratio = rate / baseline;
    const valid = sendwell.sink.messages === COUNT && (sendwell.sink.distinctRecipients ?? COUNT) === COUNT;
    const met = valid && ratio >= TARGET;
    const submitRate = sendwell.result.sent / (sendwell.result.wallMs / 1000);
    const markdown = [
      '## Transactional mail through SMTP submission: ratio to a bare nodemailer loop (issue 31, D25.7)',
      '',
      `- Date: ${new Date().toISOString().slice(0, 10)} (run at ${new Date().toISOString().slice(11, 19)} UTC)`,
      `- Command: \`npm run bench -- --only submission\` (BENCH_SUBMISSION_COUNT=${COUNT}, CONCURRENCY=${CONCURRENCY}, CONNECTIONS=${CONNECTIONS})`,
      `- Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, shared with other work: load average (1, 5, 15 min) before ${loadBefore}, after ${loads()}. Everything shares the cores: Sendwell, the load generator and the sink.`,
      `- Load generator: bench/bare-mailer.ts, its own process: nodemailer pooled SMTP, ${CONCURRENCY} sendMail calls in flight over ${CONNECTIONS} connections, one ${Buffer.byteLength(MESSAGE.html ?? '') + Buffer.byteLength(MESSAGE.text ?? '')}-byte receipt (text and HTML) per distinct address. Bare: to the sink (bench/smtp-sink-server.ts). Sendwell: with AUTH PLAIN and an API key to \`./bin/sendwell serve\` (API and sender in one process, SQLite, SMTP_SUBMISSION_PORT, SEND_CONCURRENCY=${CONCURRENCY}, SMTP_MAX_CONNECTIONS=${CONNECTIONS}), which stores one transactional message per message and sends it on to the same sink.`,
      '- Rates: bare, messages over the loop\'s wall time; Sendwell, messages over the time from the loop\'s first sendMail to the sink\'s last message (submission, storage and sending end to end). The baseline is the mean of the bare runs right before and after.',
      '',
      table(
        ['run', 'messages at the sink', 'msgs/s', 'loop wall s', 'loop CPU s', 'Sendwell CPU s'],
        [
          ['bare, before', before.sink.messages, bareRate(before).toFixed(0), (before.result.wallMs / 1000).toFixed(1), before.result.cpuSeconds.toFixed(1), ''],
          ['Sendwell (SMTP submission)', sendwell.sink.messages, rate.toFixed(0), (sendwell.result.wallMs / 1000).toFixed(1), sendwell.result.cpuSeconds.toFixed(1), serveCpu === null ? '?' : serveCpu.toFixed(1)],
          ['bare, after', after.sink.messages, bareRate(after).toFixed(0), (after.result.wallMs / 1000).toFixed(1), after.result.cpuSeconds.toFixed(1), ''],
        ],
      ),
      '',
      `Submission alone (the loop's answers from Sendwell): ${submitRate.toFixed(0)} msgs/s.`,
      '',
      floorLine(before, after, sendwell, serveCpu),
      '',
      `Ratio, Sendwell end to end over the bare baseline (${baseline.toFixed(0)} msgs/s): **${ratio.toFixed(2)}** (target ≥ ${TARGET}: **${met ? 'met' : 'NOT met'}**)${valid ? '' : ' — run not valid: the sink did not get every message exactly once'}.`,
    ].join('\n');
    return { id: 'submission', markdown, targetMet: met };
  } finally {
    await sink.proc.stop();
  }
}

/**
 * The floor of any relay, from the libraries' own costs measured alone in this run: Sendwell must
 * at least receive each message as the sink does (smtp-server, the sink's CPU per message) and send
 * it as the bare loop does (nodemailer, the loop's CPU per message). With every process on the same
 * cores, the end-to-end rate is bounded by the CPU all of them spend per message, so even a relay
 * costing exactly that floor would reach at most this ratio.
 */
function floorLine(before: Run, after: Run, sendwell: Run, serveCpu: number | null): string {
  const per = (cpu: number, n: number) => (cpu / n) * 1e6;
  const bareLoop = per(before.result.cpuSeconds + after.result.cpuSeconds, before.result.sent + after.result.sent);
  const sinkReceive = per(before.sinkCpu + after.sinkCpu, before.sink.messages + after.sink.messages);
  const loopToRelay = per(sendwell.result.cpuSeconds, sendwell.result.sent);
  const sinkFromRelay = per(sendwell.sinkCpu, sendwell.sink.messages);
  const relayFloor = sinkReceive + bareLoop;
  // Every process shares the machine's cores: the rate through a relay is at most cores / (CPU per
  // message of the loop, the relay and the sink), however well each is spread over them.
  const bareRate = (before.result.sent / (before.result.wallMs / 1000) + after.result.sent / (after.result.wallMs / 1000)) / 2;
  const ceiling = (cpus().length * 1e6) / (loopToRelay + relayFloor + sinkFromRelay) / bareRate;
  return (
    `Floor, CPU per message measured alone in this run: the bare loop sends for ${bareLoop.toFixed(0)} µs, the sink receives for ${sinkReceive.toFixed(0)} µs; a relay does both at least (${relayFloor.toFixed(0)} µs), ` +
    `while the loop spends ${loopToRelay.toFixed(0)} µs handing a message to it (AUTH) and the sink ${sinkFromRelay.toFixed(0)} µs taking it back. On ${cpus().length} shared cores a relay costing only that floor could reach at most ` +
    `**${ceiling.toFixed(2)}** of the bare rate. Sendwell spent ${serveCpu === null ? '?' : per(serveCpu, sendwell.sink.messages).toFixed(0)} µs per message (receiving, storing, rendering its headers, signing and sending).`
  );
}
