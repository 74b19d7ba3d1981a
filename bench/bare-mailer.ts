/**
 * The sending baseline: a bare nodemailer pooled loop, run as its own process by bench/sending.ts:
 *
 *   node --import tsx bench/bare-mailer.ts <spec.json>
 *
 * Same transport settings as Sendwell's SMTP transport (pool, maxMessages Infinity,
 * `maxConnections`), `concurrency` sendMail calls in flight, one fixed message (a rendered
 * Sendwell message, so the size is the same) sent to `count` distinct addresses with a new
 * Message-ID each. No templates, no database. Prints one JSON line with the figures.
 *
 * With `dkim` (the DKIM run, D23) the transport signs every message with nodemailer's `dkim`
 * option, the key parsed once as Sendwell's signer does (src/sending/dkim.ts), so the baseline
 * pays for the RSA signature and the body hash and no more.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import type { DkimSigningKey } from '../src/domain/domains/sending-domain.ts';

export interface BareMailerSpec {
  host: string;
  port: number;
  count: number;
  concurrency: number;
  maxConnections: number;
  message: {
    from: { name: string | null; address: string };
    subject: string;
    html: string | null;
    text: string | null;
    headers: Record<string, string>;
  };
  /** sign every message with this key (the private key as PEM) */
  dkim?: DkimSigningKey;
  /** log in with these (bench/submission.ts: the same loop as an app submitting to SMTP_SUBMISSION_PORT) */
  auth?: { user: string; pass: string };
}

export interface BareMailerResult {
  sent: number;
  failed: number;
  firstError: string | null;
  wallMs: number;
  /** when the first sendMail started, ms since the epoch */
  startedAtMs: number;
  cpuSeconds: number;
  /** this process's peak RSS (VmHWM) in kB */
  hwmKb: number;
}

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as BareMailerSpec;
const transporter = nodemailer.createTransport({
  pool: true,
  host: spec.host,
  port: spec.port,
  secure: false,
  maxConnections: spec.maxConnections,
  maxMessages: Infinity,
  logger: false,
  ...(spec.auth ? { auth: spec.auth } : {}),
  ...(spec.dkim ? { dkim: { domainName: spec.dkim.domainName, keySelector: spec.dkim.keySelector, privateKey: createPrivateKey(spec.dkim.privateKey) } } : {}),
});
const { message } = spec;
const from = message.from.name ? { name: message.from.name, address: message.from.address } : message.from.address;
const headers = Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, { prepared: true, value: v }]));

let next = 0;
let sent = 0;
let failed = 0;
let firstError: string | null = null;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const worker = async () => {
  while (next < spec.count) {
    const i = ++next;
    try {
      await transporter.sendMail({
        from,
        to: `bare-${String(i).padStart(7, '0')}@bench.example`,
        subject: message.subject,
        html: message.html ?? undefined,
        text: message.text ?? undefined,
        messageId: `<bare.${i}@bench.example>`,
        headers,
      });
      sent++;
    } catch (err) {
      failed++;
      firstError ??= (err as Error).message;
    }
  }
};
await Promise.all(Array.from({ length: spec.concurrency }, worker));
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
transporter.close();
const hwmKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
const result: BareMailerResult = { sent, failed, firstError, wallMs, startedAtMs: performance.timeOrigin + started, cpuSeconds: (cpu.user + cpu.system) / 1e6, hwmKb };
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
