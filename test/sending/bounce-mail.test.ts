import nodemailer, { type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBounceAddress } from '../../src/sending/message.ts';
import { TokenSigner } from '../../src/domain/shared/tokens.ts';
import { arf, dsn, notAReport } from '../feedback/report-messages.ts';
import { sendwell } from '../helpers/cli.ts';
import { serveRole } from '../helpers/serve-role.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// D23 "Bounces by mail": each campaign message's envelope sender (Return-Path) is
// `bounce+<token>@BOUNCE_DOMAIN`, and the receiving SMTP server (BOUNCE_SMTP_PORT) applies the
// DSNs (RFC 3464) and ARF complaints (RFC 5965) sent to it: 5.x.x is a hard bounce (D17.5
// contact status, D19 suppression, statistics), 4.x.x changes nothing, an unknown token or a
// malformed message is 550 and changes nothing.

const BOUNCE_DOMAIN = 'bounces.acme.test';
const VERP = /^bounce\+[0-9a-z]+-[a-z2-7]{16}@bounces\.acme\.test$/;
const signer = new TokenSigner('test-secret'); // what startTestServer configures

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let reporter: Transporter;
const at = addressMaker('bounce');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: '0', BOUNCE_SMTP_HOST: '127.0.0.1' });
  server.sender.dispatcher.start();
  await server.bounceReceiver!.start();
  t = await tenant(server);
  // An endpoint for the email.* events a report gives; its deliveries are read back, not sent.
  const endpoint = await t.call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/sendwell', event_types: ['email.bounced', 'email.complained'] });
  expect(endpoint.status, endpoint.text).toBe(200);
  // What a reporting mail server does: a null envelope sender (RFC 3464), plain SMTP.
  reporter = nodemailer.createTransport({ host: '127.0.0.1', port: server.bounceReceiver!.port!, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  reporter?.close();
  await server?.close();
  await sink?.close();
});

interface Sent {
  campaignId: number;
  /** by e-mail: the recipient row id and the envelope sender its message went with */
  people: Map<string, { recipientId: number; returnPath: string }>;
}

/** A campaign to `names` (new contacts on a new list), sent through the sink. */
async function sentCampaign(names: string[]): Promise<Sent> {
  const list = await t.list(`bounces ${names.join(' ')}`);
  const emails = names.map(at);
  for (const email of emails) await t.contact({ email, first_name: 'Ann', list_id: list });
  const campaign = await t.campaign(sendable([list]));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const rows = await recipientRows(server, campaign.id);
  const mail = messagesOfCampaign(sink.messages, campaign.id);
  expect(mail).toHaveLength(emails.length);
  const people = new Map(emails.map((email) => [email, { recipientId: rows.get(email)!.id, returnPath: mail.find((m) => m.envelope.to[0] === email)!.envelope.from }]));
  return { campaignId: campaign.id, people };
}

/** Sends a raw report to the bounce receiver, as a mail server would. */
function report(to: string, raw: string) {
  return reporter.sendMail({ envelope: { from: '', to: [to] }, raw });
}

/** The SMTP reply a refused report got: the code and the command it answered. */
async function refusal(to: string, raw: string) {
  const err = await report(to, raw).then(
    () => null,
    (e: { responseCode?: number; command?: string }) => e,
  );
  expect(err, 'the report was accepted').not.toBeNull();
  return { code: err!.responseCode, command: err!.command };
}

/** The email.* webhook events given for an address. */
async function eventsFor(email: string): Promise<string[]> {
  const rows = await server.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).orderBy('id').execute();
  return rows.filter((r) => JSON.parse(r.payload).data?.email === email).map((r) => r.event_type);
}

async function state(sent: Sent, email: string) {
  const row = (await recipientRows(server, sent.campaignId)).get(email)!;
  const suppressions = (await t.call('GET', `/api/v1/suppressions?search=${encodeURIComponent(email)}`)).body.data.suppressions;
  const stats = await t.stats(sent.campaignId);
  return {
    row: row.status,
    contact: (await t.getContact(email)).status,
    suppressed: suppressions.map((s: { source: string }) => s.source),
    stats: { sent: stats.sent, delivered: stats.delivered, bounced: stats.bounced, complained: stats.complained },
  };
}

describe('VERP Return-Path (D23)', () => {
  it('each campaign message goes with bounce+<token>@BOUNCE_DOMAIN as its envelope sender, naming its recipient row', async () => {
    const sent = await sentCampaign(['ann', 'bob']);
    const returnPaths = [...sent.people.values()].map((p) => p.returnPath);
    for (const { recipientId, returnPath } of sent.people.values()) {
      expect(returnPath).toMatch(VERP);
      expect(returnPath.split('@')[0].length).toBeLessThan(64);
      expect(parseBounceAddress(signer, returnPath, BOUNCE_DOMAIN)).toEqual({ kind: 'bounce', recipientId });
    }
    expect(new Set(returnPaths).size).toBe(2);
    // The From header stays the campaign's.
    const [m] = messagesOfCampaign(sink.messages, sent.campaignId);
    expect(m.from?.value[0].address).toBe('news@acme.test');
  });

  it('a test send names no recipient row, so it keeps the From address as its envelope sender', async () => {
    const campaign = await t.campaign(sendable([await t.list('bounces test send')]));
    const email = at('tester');
    // The test send answers once the server has taken its messages.
    expect((await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [email] })).status).toBe(200);
    expect(sink.to(email).map((m) => m.envelope.from)).toEqual(['news@acme.test']);
  });
});

describe('the bounce receiver (BOUNCE_SMTP_PORT, D23)', () => {
  it('a DSN with 5.x.x marks the recipient BOUNCED, suppresses the address and counts the bounce; a replay changes nothing more', async () => {
    const sent = await sentCampaign(['gone', 'stays']);
    const [gone, stays] = [...sent.people.keys()];
    const before = await state(sent, stays);
    const info = await report(sent.people.get(gone)!.returnPath, dsn({ to: sent.people.get(gone)!.returnPath, status: '5.1.1', recipient: gone }));
    expect(info.accepted).toEqual([sent.people.get(gone)!.returnPath]);
    const after = { row: 'BOUNCED', contact: 'BOUNCED', suppressed: ['BOUNCE'], stats: { sent: 2, delivered: 1, bounced: 1, complained: 0 } };
    expect(await state(sent, gone)).toEqual(after);
    expect(await state(sent, stays)).toEqual({ ...before, stats: after.stats });
    expect(await eventsFor(gone)).toEqual(['email.bounced']);
    await report(sent.people.get(gone)!.returnPath, dsn({ to: sent.people.get(gone)!.returnPath, status: '5.1.1', recipient: gone }));
    expect(await state(sent, gone)).toEqual(after);
    expect(await eventsFor(gone)).toEqual(['email.bounced']);
  });

  it('a token is read in any letter case (a mail system may fold the local part)', async () => {
    const sent = await sentCampaign(['upper']);
    const [[email, { returnPath }]] = sent.people;
    await report(returnPath.toUpperCase(), dsn({ to: returnPath.toUpperCase(), status: '5.2.1', recipient: email }));
    expect((await state(sent, email)).row).toBe('BOUNCED');
  });

  it('a DSN with 4.x.x (delayed) is accepted and changes nothing', async () => {
    const sent = await sentCampaign(['slow']);
    const [[email, { returnPath }]] = sent.people;
    const before = await state(sent, email);
    expect(before).toEqual({ row: 'SENT', contact: 'SUBSCRIBED', suppressed: [], stats: { sent: 1, delivered: 1, bounced: 0, complained: 0 } });
    const info = await report(returnPath, dsn({ to: returnPath, status: '4.2.2', recipient: email }));
    expect(info.accepted).toEqual([returnPath]);
    expect(await state(sent, email)).toEqual(before);
    expect(await eventsFor(email)).toEqual([]);
  });

  it('an ARF report makes a complaint, as a provider\'s does', async () => {
    const sent = await sentCampaign(['angry']);
    const [[email, { returnPath }]] = sent.people;
    await report(returnPath, arf({ to: returnPath }));
    expect(await state(sent, email)).toEqual({ row: 'SENT', contact: 'COMPLAINED', suppressed: ['COMPLAINT'], stats: { sent: 1, delivered: 1, bounced: 0, complained: 1 } });
    expect(await eventsFor(email)).toEqual(['email.complained']);
  });

  it('an unknown or tampered token, another domain or another address: 550 at RCPT, nothing changed', async () => {
    const sent = await sentCampaign(['safe']);
    const [[email, { returnPath }]] = sent.people;
    const before = await state(sent, email);
    const [local, domain] = returnPath.split('@');
    const last = local.at(-1) === 'a' ? 'b' : 'a';
    const wrong = [
      `${local.slice(0, -1)}${last}@${domain}`, // signature changed
      `bounce+${(sent.people.get(email)!.recipientId + 1).toString(36)}-${local.split('-')[1]}@${domain}`, // another row, same signature
      `${local}@other.example`,
      `postmaster@${domain}`,
      'someone@example.org',
    ];
    for (const address of wrong) {
      expect(await refusal(address, dsn({ to: address, status: '5.1.1', recipient: email })), address).toEqual({ code: 550, command: 'RCPT TO' });
    }
    expect(await state(sent, email)).toEqual(before);
  });

  it('a malformed message to a valid token: 550 at the end of DATA, nothing changed', async () => {
    const sent = await sentCampaign(['odd']);
    const [[email, { returnPath }]] = sent.people;
    const before = await state(sent, email);
    const malformed = [
      notAReport(returnPath),
      dsn({ to: returnPath, status: 'not a status', recipient: email }),
      dsn({ to: returnPath, status: '5.1.1', recipient: email }).replace('Content-Type: message/delivery-status', 'Content-Type: text/plain'),
      arf({ to: returnPath }).replace(/Feedback-Type: abuse\r\n/, ''),
    ];
    for (const raw of malformed) expect(await refusal(returnPath, raw)).toEqual({ code: 550, command: 'DATA' });
    expect(await state(sent, email)).toEqual(before);
  });

  it('a message over 1 MB is refused (552) and not applied', async () => {
    const sent = await sentCampaign(['big']);
    const [[email, { returnPath }]] = sent.people;
    const huge = dsn({ to: returnPath, status: '5.1.1', recipient: email }).replace("I'm sorry", `${'x'.repeat(998)}\r\n`.repeat(1100));
    expect(huge.length).toBeGreaterThan(1024 * 1024);
    expect(await refusal(returnPath, huge)).toEqual({ code: 552, command: 'DATA' });
    expect((await state(sent, email)).row).toBe('SENT');
  });

  it('a report about a message not recorded as sent yet is deferred (451), so the reporting server tries again', async () => {
    await server.sender.dispatcher.stop();
    try {
      const list = await t.list('bounces in flight');
      const email = at('early');
      await t.contact({ email, list_id: list });
      const campaign = await t.campaign(sendable([list]));
      await t.send(campaign.id);
      const row = (await recipientRows(server, campaign.id)).get(email)!;
      expect(row.status).toBe('PENDING');
      const address = `bounce+${signer.signBounce({ kind: 'bounce', recipientId: row.id })}@${BOUNCE_DOMAIN}`;
      expect(await refusal(address, dsn({ to: address, status: '5.1.1', recipient: email }))).toEqual({ code: 451, command: 'DATA' });
      expect((await recipientRows(server, campaign.id)).get(email)!.status).toBe('PENDING');
    } finally {
      server.sender.dispatcher.start();
    }
  });

  it('one recipient per message: a second is refused with 452 (the client sends it again on its own)', async () => {
    const sent = await sentCampaign(['one', 'two']);
    const [first, second] = [...sent.people.values()].map((p) => p.returnPath);
    const info = await reporter.sendMail({ envelope: { from: '', to: [first, second] }, raw: dsn({ to: first, status: '5.1.1' }) });
    expect(info.accepted).toEqual([first]);
    expect(info.rejected).toEqual([second]);
  });
});

describe('configuration (D23)', () => {
  it('a bad BOUNCE_SMTP_PORT (or one without BOUNCE_DOMAIN), BOUNCE_DOMAIN or BOUNCE_IMAP_URL refuses to start with a one-line reason, never the password', async () => {
    for (const [env, reason] of [
      [{ BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: '70000' }, 'BOUNCE_SMTP_PORT must be an integer from 0 to 65535, got "70000"'],
      [{ BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: 'smtp' }, 'BOUNCE_SMTP_PORT must be an integer from 0 to 65535, got "smtp"'],
      [{ BOUNCE_SMTP_PORT: '2525' }, 'BOUNCE_SMTP_PORT needs BOUNCE_DOMAIN'],
      [{ BOUNCE_DOMAIN: 'not a domain' }, 'BOUNCE_DOMAIN must be a domain name'],
      [{ BOUNCE_IMAP_URL: 'https://bounces:hunter22@imap.example.com/INBOX' }, 'BOUNCE_IMAP_URL must look like imap://user:password@host:143/INBOX'],
      [{ BOUNCE_IMAP_URL: 'imaps://imap.example.com/INBOX' }, '(a host and a user are required)'],
      [{ BOUNCE_IMAP_URL: 'imap://bounces:hunter22@imap.example.com', BOUNCE_IMAP_POLL_MS: '5' }, 'BOUNCE_IMAP_POLL_MS must be an integer from 100'],
    ] as const) {
      const res = await sendwell(['serve'], { ...server.env, PORT: '0', ...env });
      expect(res.code).toBe(1);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain(reason);
      expect(res.stderr).not.toContain('hunter22');
    }
  }, 120_000);

  it('`serve` fails to start, with a one-line reason, when the bounce port is taken', async () => {
    const taken = String(server.bounceReceiver!.port);
    const res = await sendwell(['serve'], { ...server.env, PORT: '0', BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: taken, BOUNCE_SMTP_HOST: '127.0.0.1' });
    expect(res.code).toBe(1);
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`BOUNCE_SMTP_PORT: cannot listen on 127.0.0.1:${taken}`);
  }, 120_000);

  it('the receiver runs where HTTP is served (`serve --role api`), not in a sender-only process', async () => {
    // Waits for the start's last line: a start that fails after the receiver listens fails here.
    await serveRole('api', { ...server.env, BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: '0', BOUNCE_SMTP_HOST: '127.0.0.1' }, /sendwell listening/, async (log) => {
      const { port } = JSON.parse(log.split('\n').find((l) => l.includes('bounce receiver listening'))!);
      // It is the receiver: an address that is not a bounce address is refused at RCPT.
      const probe = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      try {
        const err = await probe.sendMail({ envelope: { from: '', to: ['someone@example.org'] }, raw: notAReport('someone@example.org') }).catch((e: { responseCode?: number; command?: string }) => e);
        expect(err).toMatchObject({ responseCode: 550, command: 'RCPT TO' });
      } finally {
        probe.close();
      }
    });
    // The sender's own start line comes after everything it starts.
    await serveRole('sender', { ...server.env, BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: '0', BOUNCE_SMTP_HOST: '127.0.0.1' }, /sendwell sender running/, async (log) => expect(log).not.toContain('bounce receiver'));
  }, 120_000);
});
