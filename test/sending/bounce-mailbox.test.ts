import { Writable } from 'node:stream';
import { ImapFlow } from 'imapflow';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BounceMailService } from '../../src/feedback/bounce-mail.service.ts';
import { BounceMailboxPoller } from '../../src/feedback/bounce-mailbox.ts';
import { arf, dsn, notAReport } from '../feedback/report-messages.ts';
import { dovecotMissing, startDovecot, type Dovecot } from '../helpers/dovecot.ts';
import { eventually } from '../webhooks-out/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// D23 / issue 19 item 4: bounces read from a mailbox (BOUNCE_IMAP_URL), tested against a real
// IMAP server, Debian's dovecot, started by the test from a config of its own. Each new message
// is applied as the bounce receiver applies it (bounce-mail.test.ts), then flagged \Seen.

const BOUNCE_DOMAIN = 'bounces.acme.test';
const missing = dovecotMissing();
if (missing) console.warn(`Bounce mailbox (IMAP) tests skipped: ${missing}.`);

let imap: Dovecot;
let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('mailbox');

describe.skipIf(missing !== null)('the bounce mailbox (BOUNCE_IMAP_URL, D23)', () => {
  beforeAll(async () => {
    imap = await startDovecot();
    sink = await startSmtpSink();
    server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, BOUNCE_DOMAIN, BOUNCE_IMAP_URL: imap.url, BOUNCE_IMAP_POLL_MS: '100' });
    server.sender.dispatcher.start();
    t = await tenant(server);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await sink?.close();
    await imap?.close();
  });

  const poller = () => server.sender.bounceMailbox!;

  /** A mail client of the mailbox, for putting messages in and reading their flags. */
  async function mailbox<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
    const client = new ImapFlow({ host: '127.0.0.1', port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.logout();
    }
  }

  /** Delivers a message into the mailbox, as a mail server would; answers its UID. */
  const deliver = (raw: string) => mailbox(async (c) => { const appended = await c.append("INBOX", raw); if (!appended || !appended.uid) throw new Error("append failed"); return appended.uid; });

  /** Whether the message is flagged \Seen. */
  const seen = (uid: number) =>
    mailbox(async (c) => {
      const lock = await c.getMailboxLock('INBOX');
      try {
        const m = await c.fetchOne(String(uid), { flags: true }, { uid: true });
        return m ? m.flags!.has('\\Seen') : null;
      } finally {
        lock.release();
      }
    });

  /** A one-recipient campaign, sent: its recipient, row, envelope sender and Message-ID. */
  async function sentTo(name: string) {
    const list = await t.list(`mailbox ${name}`);
    const email = at(name);
    await t.contact({ email, list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const row = (await recipientRows(server, campaign.id)).get(email)!;
    const [message] = messagesOfCampaign(sink.messages, campaign.id);
    return { email, campaignId: campaign.id, returnPath: message.envelope.from, messageId: row.message_id! };
  }

  async function state(sent: { email: string; campaignId: number }) {
    const stats = await t.stats(sent.campaignId);
    return {
      row: (await recipientRows(server, sent.campaignId)).get(sent.email)!.status,
      contact: (await t.getContact(sent.email)).status,
      stats: { bounced: stats.bounced, complained: stats.complained },
    };
  }

  it('a DSN delivered to the mailbox marks its recipient BOUNCED (named by X-Original-To) and is flagged \\Seen, so it is handled once', async () => {
    const sent = await sentTo('gone');
    expect(sent.returnPath).toMatch(/^bounce\+/);
    const uid = await deliver(`X-Original-To: ${sent.returnPath}\r\n${dsn({ to: sent.returnPath, status: '5.1.1', recipient: sent.email })}`);
    expect(await seen(uid)).toBe(false);
    expect(await poller().runOnce()).toBe(1);
    expect(await state(sent)).toEqual({ row: 'BOUNCED', contact: 'BOUNCED', stats: { bounced: 1, complained: 0 } });
    const suppressions = (await t.call('GET', `/api/v1/suppressions?search=${encodeURIComponent(sent.email)}`)).body.data.suppressions;
    expect(suppressions.map((s: { source: string }) => s.source)).toEqual(['BOUNCE']);
    expect(await seen(uid)).toBe(true);
    expect(await poller().runOnce()).toBe(0);
  });

  it('an ARF report to an address that is no bounce address is matched by the returned message\'s signed Message-ID', async () => {
    const sent = await sentTo('angry');
    const uid = await deliver(arf({ to: 'fbl@acme.test', originalMessageId: sent.messageId }));
    expect(await poller().runOnce()).toBe(1);
    expect(await state(sent)).toEqual({ row: 'SENT', contact: 'COMPLAINED', stats: { bounced: 0, complained: 1 } });
    expect(await seen(uid)).toBe(true);
  });

  it('a 4.x.x DSN, a malformed message and one naming nothing of ours are flagged \\Seen and change nothing', async () => {
    const sent = await sentTo('slow');
    const before = await state(sent);
    const uids = [
      await deliver(dsn({ to: sent.returnPath, status: '4.4.1', recipient: sent.email })),
      await deliver(notAReport(sent.returnPath)),
      await deliver(dsn({ to: 'postmaster@acme.test', status: '5.1.1', originalMessageId: '<c1.r1.forged@acme.test>' })),
    ];
    expect(await poller().runOnce()).toBe(3);
    expect(await state(sent)).toEqual(before);
    for (const uid of uids) expect(await seen(uid)).toBe(true);
  });

  it('survives the server being down: a round fails, and once the server is back the running poller handles what waited', async () => {
    const sent = await sentTo('later');
    await deliver(dsn({ to: sent.returnPath, status: '5.1.1', recipient: sent.email }));
    await imap.stop();
    try {
      await expect(poller().runOnce()).rejects.toThrow();
      poller().start();
    } finally {
      await imap.start();
    }
    await eventually(async () => (await state(sent)).row === 'BOUNCED', 'the running poller to handle the DSN that waited');
    await poller().stop();
  });

  it('a refused login is logged without the password, and retried', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const wrong = 'not-the-password-1234';
    const config = server.core.config.bounces.imap!;
    const polling = new BounceMailboxPoller(new BounceMailService(server.core.signer, server.core.engagement, server.core.messageEngagement, { domain: BOUNCE_DOMAIN, parseMs: 5000 }, logger), { ...config, password: wrong }, logger);
    polling.start();
    await eventually(() => lines.filter((l) => l.includes('could not poll')).length >= 2, 'two failed rounds logged');
    await polling.stop();
    const failure = JSON.parse(lines.find((l) => l.includes('could not poll'))!);
    expect(failure).toMatchObject({ host: '127.0.0.1', port: imap.port, user: imap.user, mailbox: 'INBOX' });
    expect(failure.err).toMatch(/auth/i);
    for (const line of lines) {
      expect(line).not.toContain(wrong);
      expect(line).not.toContain(imap.password);
    }
  });
});
