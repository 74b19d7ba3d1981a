/**
 * D25.7: SMTP submission. An app's mailer (nodemailer here) sends through SMTP_SUBMISSION_PORT
 * with an API key as the password; each accepted message becomes one transactional message per
 * recipient, sent as submitted by the sender's lane to a real SMTP server (the sink). Sending
 * rounds are run by hand (`runOnce`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkimVerify } from 'mailauth';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendwell } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { serveRole } from '../helpers/serve-role.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, rawHeader, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';

let dns: TestDnsServer;
let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let tlsDir: string;
let cert: string;
let tlsFiles: { certPath: string; keyPath: string };
const to = addressMaker('smtpsub');

/** This machine's first non-loopback IPv4 address: a client connecting to it is not a loopback client. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

/** A self-signed certificate for `localhost`, made with the openssl command for this run. */
function selfSignedPair(dir: string): { certPath: string; keyPath: string } {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
  return { certPath, keyPath };
}

beforeAll(async () => {
  tlsDir = mkdtempSync(join(tmpdir(), 'sendwell-submission-tls-'));
  tlsFiles = selfSignedPair(tlsDir);
  const { certPath, keyPath } = tlsFiles;
  cert = readFileSync(certPath, 'utf8');
  dns = await startDnsServer();
  sink = await startSmtpSink();
  server = await startTestServer({
    SMTP_URL: sink.url,
    DNS_SERVERS: dns.address,
    ...FAST_SENDING,
    SMTP_SUBMISSION_PORT: '0',
    SMTP_SUBMISSION_HOST: '0.0.0.0',
    SMTP_SUBMISSION_TLS_CERT: certPath,
    SMTP_SUBMISSION_TLS_KEY: keyPath,
  });
  await server.submission!.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  await dns?.close();
  if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
});

async function drain(): Promise<void> {
  for (let round = 0; round < 20; round++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;
}

const received = (address: string): ReceivedMessage[] => sink.messages.filter((m) => m.envelope.to.includes(address));

interface ClientOptions {
  key?: string;
  method?: 'PLAIN' | 'LOGIN';
  host?: string;
  port?: number;
  /** STARTTLS, and fail when it is not offered */
  starttls?: boolean;
}

/** An app's mailer: nodemailer's SMTP transport with the key as the password (any user name). */
function app(opts: ClientOptions = {}) {
  const options: SMTPTransport.Options = {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? server.submission!.port!,
    secure: false,
    requireTLS: opts.starttls ?? false,
    ignoreTLS: !opts.starttls,
    tls: { ca: [cert], servername: 'localhost' },
    authMethod: opts.method ?? 'PLAIN',
    ...(opts.key !== undefined ? { auth: { user: 'any-user-name', pass: opts.key } } : {}),
  };
  return nodemailer.createTransport(options);
}

/** What a refused send answered: its SMTP code and text. */
async function refusal(send: Promise<unknown>): Promise<{ code: number | undefined; response: string }> {
  try {
    await send;
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    return { code: e.responseCode, response: e.response ?? e.message };
  }
  throw new Error('the send was accepted');
}

const messagesTo = async (who: Tenant, address: string) => (await who.call('GET', `/api/v1/messages?to=${encodeURIComponent(address)}`)).body.data.messages;

const storedCount = async (who: Tenant) => (await who.call('GET', '/api/v1/messages?limit=1')).body.data.total;

describe('SMTP submission (D25.7)', () => {
  it('a message with an attachment, To and Bcc: one SENT message per envelope recipient, source as submitted, no Bcc header; AUTH PLAIN', async () => {
    const [ada, bob] = [to('ada'), to('bob')];
    const pdf = Buffer.from('%PDF-1.4 invoice 7\n'.repeat(200));
    // Composed as an app's mailer may write it, with its Bcc header in the source (nodemailer's composer keeps it when asked).
    const composed = new MailComposer({
      from: '"Shop Receipts" <receipts@shop.test>',
      replyTo: 'help@shop.test',
      to: ada,
      bcc: bob,
      subject: 'Invoice 7',
      text: 'Your invoice is attached.',
      html: '<p>Your invoice is attached.</p>',
      headers: { 'X-App': 'shop' },
      attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
    }).compile();
    composed.keepBcc = true;
    const source = await composed.build();
    expect(rawHeader(source.toString('latin1'), 'Bcc')).toEqual([`Bcc: ${bob}`]);
    const info = await app({ key: t.key, method: 'PLAIN' }).sendMail({ envelope: { from: 'receipts@shop.test', to: [ada, bob] }, raw: source });
    expect(info.accepted.sort()).toEqual([ada, bob].sort());
    expect(info.response).toMatch(/^250 2\.0\.0 Accepted: 2 messages \(\d+ QUEUED, \d+ QUEUED\)/);
    // Queued, each keeps the source as submitted (dropped once sent: only sending needs it).
    const queued = await server.db.selectFrom('messages').select(['to_email', 'mime']).where('to_email', 'in', [ada, bob]).execute();
    expect(queued.map((r) => Buffer.from(r.mime!).equals(source))).toEqual([true, true]);
    await drain();
    for (const address of [ada, bob]) {
      const [mail] = received(address);
      expect(mail.envelope.to).toEqual([address]);
      expect(mail.subject).toBe('Invoice 7');
      expect(mail.from?.value[0]).toMatchObject({ address: 'receipts@shop.test', name: 'Shop Receipts' });
      expect(mail.text?.trim()).toBe('Your invoice is attached.');
      expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.equals(pdf)])).toEqual([['invoice.pdf', 'application/pdf', true]]);
      expect(rawHeader(mail.raw, 'X-App')).toEqual(['X-App: shop']);
      // Bcc never leaves: the envelope carries it; the platform sets the Message-ID.
      expect(rawHeader(mail.raw, 'Bcc')).toEqual([]);
      expect(mail.messageId).toMatch(/^<t\d+\.[A-Za-z0-9_-]+@shop\.test>$/);
      expect(rawHeader(mail.raw, 'List-Unsubscribe')).toEqual([]);
      const [listed] = await messagesTo(t, address);
      expect(listed).toMatchObject({ status: 'SENT', to: address, from_email: 'receipts@shop.test', subject: 'Invoice 7', error: null });
      const row = await server.db.selectFrom('messages').select(['source', 'from_name', 'reply_to', 'mime']).where('id', '=', listed.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ source: 'smtp', from_name: 'Shop Receipts', reply_to: 'help@shop.test', mime: null });
    }
  });

  it('AUTH LOGIN works the same; the From is MAIL FROM when the message has no From header; usage counted on the key', async () => {
    const address = to('login');
    const source = `To: ${address}\r\nSubject: No From header\r\n\r\nHello\r\n`;
    const info = await app({ key: t.key, method: 'LOGIN' }).sendMail({ envelope: { from: 'bounce@app.test', to: [address] }, raw: source });
    expect(info.accepted).toEqual([address]);
    const [listed] = await messagesTo(t, address);
    expect(listed).toMatchObject({ status: 'QUEUED', from_email: 'bounce@app.test', subject: 'No From header' });
    await server.core.usage.flush();
    const summary = (await t.call('GET', '/api/v1/api-keys/summary')).body.data;
    expect(summary.top_endpoints).toContainEqual(expect.objectContaining({ method: 'SMTP', route: 'submission' }));
  });

  it('a bad key, a revoked key, or a key without campaigns.send: 535, nothing stored', async () => {
    const reader = await server.createKey(t.accountId, ['campaigns.read']);
    const revoked = await server.createKey(t.accountId, ['campaigns.send']);
    expect((await t.call('POST', `/api/v1/api-keys/${revoked.id}/revoke`)).status).toBe(200);
    const before = await storedCount(t);
    for (const key of ['sw_not_a_key', reader.key, revoked.key]) {
      const refused = await refusal(app({ key }).sendMail({ from: 'a@shop.test', to: to('nokey'), subject: 'x', text: 'x' }));
      expect(refused.code, key === reader.key ? 'no campaigns.send' : 'bad key').toBe(535);
    }
    expect((await refusal(app({ key: reader.key }).sendMail({ from: 'a@shop.test', to: to('nokey'), subject: 'x', text: 'x' }))).response).toMatch(/campaigns\.send/);
    expect(await storedCount(t)).toBe(before);
  });

  it('a key revoked during a session: its next message is refused 530 at MAIL FROM', async () => {
    const { id, key } = await server.createKey(t.accountId, ['campaigns.send']);
    const pooled = nodemailer.createTransport({ host: '127.0.0.1', port: server.submission!.port!, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, auth: { user: 'app', pass: key } });
    try {
      const first = to('session1');
      expect((await pooled.sendMail({ from: 'a@shop.test', to: first, subject: 'x', text: 'x' })).accepted).toEqual([first]);
      expect((await t.call('POST', `/api/v1/api-keys/${id}/revoke`)).status).toBe(200);
      const refused = await refusal(pooled.sendMail({ from: 'a@shop.test', to: to('session2'), subject: 'x', text: 'x' }));
      expect(refused.code).toBe(530);
      expect(refused.response).toMatch(/no longer valid/);
    } finally {
      pooled.close();
    }
  });

  it('a header block over 256 KB: 552, not parsed, nothing stored', async () => {
    const before = await storedCount(t);
    const source = `From: a@shop.test\r\nSubject: x\r\n${'X-Filler: '.concat('a'.repeat(900), '\r\n').repeat(300)}\r\nbody\r\n`;
    const refused = await refusal(app({ key: t.key }).sendMail({ envelope: { from: 'a@shop.test', to: [to('bighead')] }, raw: source }));
    expect(refused.code).toBe(552);
    expect(refused.response).toMatch(/header block/);
    expect(await storedCount(t)).toBe(before);
  });

  it('MAIL FROM before AUTH: 530', async () => {
    const refused = await refusal(app().sendMail({ from: 'a@shop.test', to: to('noauth'), subject: 'x', text: 'x' }));
    expect(refused.code).toBe(530);
    expect(refused.response).toMatch(/Authentication required/);
  });

  it('a message over 10 MB: 552, nothing stored', async () => {
    const before = await storedCount(t);
    const big = Buffer.alloc(8 * 1024 * 1024, 7); // 8 MiB: over 10 MB once base64-encoded
    const refused = await refusal(app({ key: t.key }).sendMail({ from: 'a@shop.test', to: to('big'), subject: 'Big', text: 'x', attachments: [{ filename: 'big.bin', content: big }] }));
    expect(refused.code).toBe(552);
    expect(await storedCount(t)).toBe(before);
  });

  it('51 recipients: the 51st is refused with 452 (too many recipients), the first 50 get their messages', async () => {
    const recipients = Array.from({ length: 51 }, (_, i) => to(`many${i}`));
    const info = await app({ key: t.key }).sendMail({ from: 'a@shop.test', to: recipients, subject: 'Many', text: 'x' });
    expect(info.accepted).toEqual(recipients.slice(0, 50));
    expect(info.rejected).toEqual([recipients[50]]);
    expect((info.rejectedErrors?.[0] as { responseCode?: number }).responseCode).toBe(452);
    expect(await messagesTo(t, recipients[49])).toHaveLength(1);
    expect(await messagesTo(t, recipients[50])).toHaveLength(0);
  });

  it('a suppressed recipient is accepted and its message is SUPPRESSED with the reason; the other recipient gets the mail', async () => {
    const [kept, blocked] = [to('kept'), to('blocked')];
    expect((await t.call('POST', '/api/v1/suppressions', { value: blocked, reason: 'asked by phone' })).status).toBe(200);
    const info = await app({ key: t.key }).sendMail({ from: 'a@shop.test', to: [kept, blocked], subject: 'Hi', text: 'x' });
    expect(info.accepted.sort()).toEqual([kept, blocked].sort());
    await drain();
    expect(received(kept)).toHaveLength(1);
    expect(received(blocked)).toHaveLength(0);
    const [message] = await messagesTo(t, blocked);
    expect(message.status).toBe('SUPPRESSED');
    expect(message.error).toMatch(/suppression list \(MANUAL: asked by phone\)/);
  });

  it('an invalid From address: 550 naming it, nothing stored', async () => {
    const before = await storedCount(t);
    const refused = await refusal(app({ key: t.key }).sendMail({ envelope: { from: '', to: [to('nofrom')] }, raw: 'Subject: x\r\n\r\nx\r\n' }));
    expect(refused.code).toBe(550);
    expect(refused.response).toMatch(/From address/);
    expect(await storedCount(t)).toBe(before);
  });

  it('STARTTLS is offered with SMTP_SUBMISSION_TLS_CERT/KEY: the client upgrades, checks the certificate, and sends', async () => {
    const address = to('tls');
    const info = await app({ key: t.key, starttls: true }).sendMail({ from: 'a@shop.test', to: address, subject: 'Over TLS', text: 'x' });
    expect(info.accepted).toEqual([address]);
  });

  it('DKIM-signed when the From domain is verified in the account', async () => {
    const domain = (await t.call('POST', '/api/v1/domains', { domain: 'signed-sub.test' })).body.data;
    for (const r of domain.records) dns.setTxt(r.name, r.value);
    expect((await t.call('POST', `/api/v1/domains/${domain.id}/verify`)).body.data.dkim_verified).toBe(true);
    const address = to('dkim');
    await app({ key: t.key }).sendMail({ from: 'app@signed-sub.test', to: address, subject: 'Signed', text: 'x' });
    await drain();
    const [mail] = received(address);
    expect(rawHeader(mail.raw, 'DKIM-Signature')).toHaveLength(1);
    const { results } = await dkimVerify(Buffer.from(mail.raw), { resolver: (name: string, rr: string) => dns.resolver.resolve(name, rr as 'TXT') as Promise<string[][]> });
    expect(results.map((r) => [r.status.result, r.signingDomain])).toEqual([['pass', 'signed-sub.test']]);
  });

  it('the plan\'s rate limit counts each message: past it a recipient is refused 451, and only the accepted ones are stored', async () => {
    const account = await server.createAccount({ plan: 'free' });
    const { key } = await server.createKey(account.id, ['campaigns.send']);
    const recipients = Array.from({ length: 50 }, (_, i) => to(`rate${i}`));
    const info = await app({ key }).sendMail({ from: 'a@shop.test', to: recipients, subject: 'Rate', text: 'x' });
    expect(info.rejected.length).toBeGreaterThan(0);
    for (const err of info.rejectedErrors ?? []) {
      expect((err as { responseCode?: number }).responseCode).toBe(451);
      expect((err as { response?: string }).response).toMatch(/Rate limit exceeded/);
    }
    expect(info.accepted.length + info.rejected.length).toBe(50);
    const stored = await server.db.selectFrom('messages').select('to_email').where('account_id', '=', account.id).execute();
    expect(stored.map((m) => m.to_email).sort()).toEqual([...info.accepted].sort());
  });
});

describe.skipIf(!outsideAddress)('AUTH without TLS from a client that is not on loopback (D25.7)', () => {
  it('is refused 538; after STARTTLS it is accepted', async () => {
    const refused = await refusal(app({ key: t.key, host: outsideAddress }).sendMail({ from: 'a@shop.test', to: to('outside'), subject: 'x', text: 'x' }));
    expect(refused.code).toBe(538);
    expect(refused.response).toMatch(/STARTTLS/);
    const address = to('outsidetls');
    const info = await app({ key: t.key, host: outsideAddress, starttls: true }).sendMail({ from: 'a@shop.test', to: address, subject: 'x', text: 'x' });
    expect(info.accepted).toEqual([address]);
  });

  it('with SMTP_SUBMISSION_ALLOW_INSECURE=true it is accepted', async () => {
    const insecure = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SMTP_SUBMISSION_PORT: '0', SMTP_SUBMISSION_HOST: '0.0.0.0', SMTP_SUBMISSION_ALLOW_INSECURE: 'true' });
    try {
      await insecure.submission!.start();
      const other = await tenant(insecure);
      const address = to('insecure');
      const info = await app({ key: other.key, host: outsideAddress, port: insecure.submission!.port! }).sendMail({ from: 'a@shop.test', to: address, subject: 'x', text: 'x' });
      expect(info.accepted).toEqual([address]);
      expect(await messagesTo(other, address)).toHaveLength(1);
    } finally {
      await insecure.close();
    }
  });
});

describe('configuration (D25.7)', () => {
  it('a bad port, one TLS file without the other, a missing or non-PEM file refuse to start with a one-line reason', async () => {
    for (const [env, reason] of [
      [{ SMTP_SUBMISSION_PORT: '70000' }, 'SMTP_SUBMISSION_PORT must be an integer from 0 to 65535, got "70000"'],
      [{ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_TLS_CERT: tlsFiles.certPath }, 'SMTP_SUBMISSION_TLS_CERT and SMTP_SUBMISSION_TLS_KEY are given together or not at all'],
      [{ SMTP_SUBMISSION_TLS_CERT: tlsFiles.certPath, SMTP_SUBMISSION_TLS_KEY: tlsFiles.keyPath }, 'need SMTP_SUBMISSION_PORT'],
      [{ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_TLS_CERT: join(tlsDir, 'absent.pem'), SMTP_SUBMISSION_TLS_KEY: tlsFiles.keyPath }, 'SMTP_SUBMISSION_TLS_CERT: cannot read the file it names (ENOENT)'],
      [{ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_TLS_CERT: tlsFiles.keyPath, SMTP_SUBMISSION_TLS_KEY: tlsFiles.keyPath }, 'SMTP_SUBMISSION_TLS_CERT: the file holds no PEM certificate'],
      [{ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_TLS_CERT: tlsFiles.certPath, SMTP_SUBMISSION_TLS_KEY: tlsFiles.certPath }, 'SMTP_SUBMISSION_TLS_KEY: the file holds no PEM private key'],
      [{ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_ALLOW_INSECURE: 'yes' }, 'SMTP_SUBMISSION_ALLOW_INSECURE must be true or false'],
    ] as const) {
      const res = await sendwell(['serve'], { ...server.env, PORT: '0', ...env });
      expect(res.code, reason).toBe(1);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain(reason);
    }
  }, 120_000);

  it('`serve` fails to start, with a one-line reason, when the submission port is taken', async () => {
    const taken = String(server.submission!.port);
    const res = await sendwell(['serve'], { ...server.env, PORT: '0', SMTP_SUBMISSION_PORT: taken, SMTP_SUBMISSION_HOST: '0.0.0.0' });
    expect(res.code).toBe(1);
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`SMTP_SUBMISSION_PORT: cannot listen on 0.0.0.0:${taken}`);
  }, 120_000);

  it('it runs where HTTP is served (`serve --role api`), takes the account\'s key, and not in a sender-only process', async () => {
    await serveRole('api', { ...server.env, SMTP_SUBMISSION_PORT: '0', SMTP_SUBMISSION_HOST: '127.0.0.1' }, /sendwell listening/, async (log) => {
      const { port } = JSON.parse(log.split('\n').find((l) => l.includes('smtp submission listening'))!);
      const mailer = app({ key: t.key, port });
      try {
        expect(await mailer.verify()).toBe(true);
      } finally {
        mailer.close();
      }
    });
    await serveRole('sender', { ...server.env, SMTP_SUBMISSION_PORT: '0', SMTP_SUBMISSION_HOST: '127.0.0.1' }, /sendwell sender running/, async (log) => expect(log).not.toContain('smtp submission'));
  }, 120_000);
});
