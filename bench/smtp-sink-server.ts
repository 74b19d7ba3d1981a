/**
 * The SMTP sink for the sending benchmark, run as its own process:
 *
 *   node --import tsx bench/smtp-sink-server.ts
 *
 * Accepts every message as fast as it can (no TLS, no auth, no parsing: the DATA stream is only
 * counted) and reports what it received over a tiny HTTP endpoint. On start it prints one JSON line
 * to stdout: `{"smtpPort":<port>,"httpPort":<port>}`.
 *
 * HTTP (127.0.0.1):
 *   GET  /stats                      counters since the last reset (see Stats)
 *   POST /reset                      zero the counters
 *   GET  /wait?messages=N&timeout=ms answers with /stats once N messages arrived (or at the timeout)
 *   GET  /arrivals                   when each recipient whose address starts with `tx-` arrived
 *                                    (epoch ms): the transactional benchmark's latency (D25.4)
 *
 * Environment: SINK_SMTP_PORT, SINK_HTTP_PORT (default 0 = any free port), SINK_DISTINCT=0 to skip
 * counting distinct recipient addresses (kept in a Set: about 100 MB per million addresses),
 * SINK_COUNT_DKIM=1 to count the messages whose header carries a DKIM-Signature field (the DKIM
 * run of bench/sending.ts, D23: proof that both sides really signed; off by default, so the plain
 * run's sink does no more than count bytes).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SMTPServer } from 'smtp-server';
import { emailDomain, emailKey } from '../src/domain/shared/email-address.ts';

interface Stats {
  /** messages whose DATA ended and was answered 250 */
  messages: number;
  /** RCPT TO addresses across those messages */
  recipients: number;
  /** distinct RCPT TO addresses (null when SINK_DISTINCT=0) */
  distinctRecipients: number | null;
  /** messages with a DKIM-Signature header field (null unless SINK_COUNT_DKIM=1) */
  dkimSigned: number | null;
  /** DATA bytes received (the whole message as sent, headers included) */
  bytes: number;
  /** epoch milliseconds (fractional) of the first and the latest accepted message */
  firstAt: number | null;
  lastAt: number | null;
  /** SMTP connections opened since the reset, and open now */
  connectionsOpened: number;
  connectionsOpen: number;
  /** CPU seconds this process has used (all time) */
  cpuSeconds: number;
  /** RCPT TO addresses per recipient domain (lower-cased), for the pacing benchmark */
  byDomain: Record<string, number>;
}

const now = () => performance.timeOrigin + performance.now();
const trackDistinct = process.env.SINK_DISTINCT !== '0';
const countDkim = process.env.SINK_COUNT_DKIM === '1';
/** How long the sink takes to answer DATA, as a relay writing the message to its queue does (0: at once). */
const dataDelayMs = Number(process.env.SINK_DATA_DELAY_MS ?? 0);
/** How much of a message's start is kept to find its header's end; a header longer than this counts as unsigned. */
const HEADER_SCAN_BYTES = 64 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const DKIM_FIELD = /(?:^|\r\n)dkim-signature:/i;

let messages = 0;
let recipients = 0;
let dkimSigned = 0;
let bytes = 0;
let firstAt: number | null = null;
let lastAt: number | null = null;
let connectionsOpened = 0;
let connectionsOpen = 0;
let distinct = new Set<string>();
let byDomain: Record<string, number> = {};
let waiters: { target: number; resolve: () => void }[] = [];
/** D25.4: arrival times of the transactional benchmark's tracked recipients (`tx-...`), kept across resets */
const arrivals: Record<string, number> = {};

function stats(): Stats {
  const cpu = process.cpuUsage();
  return {
    messages,
    recipients,
    distinctRecipients: trackDistinct ? distinct.size : null,
    dkimSigned: countDkim ? dkimSigned : null,
    bytes,
    firstAt,
    lastAt,
    connectionsOpened,
    connectionsOpen,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    byDomain: { ...byDomain },
  };
}

function reset(): void {
  messages = recipients = bytes = connectionsOpened = dkimSigned = 0;
  firstAt = lastAt = null;
  distinct = new Set();
  byDomain = {};
}

const smtp = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  disableReverseLookup: true,
  logger: false,
  banner: 'sendwell bench sink',
  maxClients: 10_000,
  onConnect(_session, callback) {
    connectionsOpened++;
    connectionsOpen++;
    callback();
  },
  onClose() {
    connectionsOpen--;
  },
  onData(stream, session, callback) {
    // The header's start, kept only while its end (the first empty line) has not arrived.
    let head: Buffer | null = countDkim ? Buffer.alloc(0) : null;
    let signed = false;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (head !== null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(HEADER_END);
        if (end !== -1 || head.length >= HEADER_SCAN_BYTES) {
          signed = DKIM_FIELD.test(head.subarray(0, end === -1 ? HEADER_SCAN_BYTES : end).toString('latin1'));
          head = null;
        }
      }
    });
    stream.on('end', () => {
      const at = now();
      messages++;
      if (signed || (head !== null && DKIM_FIELD.test(head.toString('latin1')))) dkimSigned++;
      recipients += session.envelope.rcptTo.length;
      if (trackDistinct) for (const r of session.envelope.rcptTo) distinct.add(emailKey(r.address));
      for (const r of session.envelope.rcptTo) {
        if (r.address.startsWith('tx-')) arrivals[r.address] = at;
        const domain = emailDomain(r.address);
        byDomain[domain] = (byDomain[domain] ?? 0) + 1;
      }
      firstAt ??= at;
      lastAt = at;
      if (waiters.length > 0) {
        const due = waiters.filter((w) => messages >= w.target);
        if (due.length > 0) {
          waiters = waiters.filter((w) => messages < w.target);
          for (const w of due) w.resolve();
        }
      }
      if (dataDelayMs > 0) setTimeout(callback, dataDelayMs);
      else callback();
    });
  },
});
smtp.on('error', (err) => process.stderr.write(`smtp sink error: ${err.message}\n`));

const api = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://sink');
  const reply = () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stats()));
  };
  if (req.method === 'GET' && url.pathname === '/stats') return reply();
  if (req.method === 'GET' && url.pathname === '/arrivals') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(arrivals));
  }
  if (req.method === 'POST' && url.pathname === '/reset') {
    reset();
    return reply();
  }
  if (req.method === 'GET' && url.pathname === '/wait') {
    const target = Number(url.searchParams.get('messages') ?? '0');
    const timeout = Number(url.searchParams.get('timeout') ?? '600000');
    if (messages >= target) return reply();
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== waiter);
      reply();
    }, timeout);
    const waiter = {
      target,
      resolve: () => {
        clearTimeout(timer);
        reply();
      },
    };
    waiters.push(waiter);
    return;
  }
  res.writeHead(404).end();
});

const listen = (server: { listen(port: number, host: string, cb: () => void): unknown }, port: number) =>
  new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

await listen(smtp, Number(process.env.SINK_SMTP_PORT ?? 0));
await listen(api, Number(process.env.SINK_HTTP_PORT ?? 0));
const smtpPort = (smtp.server.address() as AddressInfo).port;
const httpPort = (api.address() as AddressInfo).port;
process.stdout.write(JSON.stringify({ smtpPort, httpPort }) + '\n');

const shutdown = () => {
  api.close();
  smtp.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
