/**
 * Issue 31, D25.5: transactional messages share the campaigns' engagement (human and machine, D23)
 * and bounce handling (D23's bounces by mail, the providers' reports), and every message.* event
 * reaches a real HTTP listener carrying `message_id` (the API's id), `to`, `tags` and `metadata`.
 * Mail goes to a real SMTP sink; pixels and links are fetched over HTTP; DSNs go to the bounce
 * receiver by SMTP; provider reports are POSTed to /webhooks/{provider}.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackSecret } from '../../src/feedback/auth.ts';
import { TokenSigner } from '../../src/domain/shared/tokens.ts';
import { arf, dsn } from '../feedback/report-messages.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, tamperings, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';
import { eventually, startReceiver, verifySignature, type Receiver } from '../webhooks-out/receiver.ts';

const BOUNCE_DOMAIN = 'bounces.acme.test';
const MESSAGE_VERP = /^bounce\+t-[0-9a-z]+-[a-z2-7]{16}@bounces\.acme\.test$/;
const MESSAGE_EVENTS = ['message.sent', 'message.failed', 'message.bounced', 'message.suppressed', 'message.opened', 'message.clicked'];
const D1 = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const signer = new TokenSigner('test-secret'); // what startTestServer configures

let receiver: Receiver;
let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let hook: { id: number; path: string; secret: string };
let reporter: Transporter;
const to = addressMaker('txhooks');

beforeAll(async () => {
  receiver = await startReceiver();
  sink = await startSmtpSink({
    respond: ({ stage, address }) => {
      if (stage !== 'rcpt') return undefined;
      if (address.startsWith('rejected.')) return { code: 550, message: '5.1.1 no such user' };
      if (address.startsWith('busy.')) return { code: 451, message: '4.3.0 try again later' };
      return undefined;
    },
  });
  server = await startTestServer({
    SMTP_URL: sink.url,
    ...FAST_SENDING,
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_RETRY_BASE_MS: '20',
    BOUNCE_DOMAIN,
    BOUNCE_SMTP_PORT: '0',
    BOUNCE_SMTP_HOST: '127.0.0.1',
    // The client address of a pixel or link request comes from X-Forwarded-For, as behind a proxy (D23).
    TRUST_PROXY: '127.0.0.1',
    SEND_MAX_ATTEMPTS: '2',
    TRACKING_RATE_LIMIT: '5',
  });
  await server.bounceReceiver!.start();
  server.sender.dispatcher.start();
  server.sender.webhookDelivery.start();
  t = await tenant(server);
  const res = await t.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/messages`, event_types: MESSAGE_EVENTS });
  expect(res.status, res.text).toBe(200);
  hook = { id: res.body.data.id, path: '/messages', secret: res.body.data.secret };
  // What a reporting mail server does: a null envelope sender (RFC 3464), plain SMTP.
  reporter = nodemailer.createTransport({ host: '127.0.0.1', port: server.bounceReceiver!.port!, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  reporter?.close();
  await server?.close();
  await sink?.close();
  await receiver?.close();
});

const TAGS = ['receipt', 'order-42'];
const METADATA = { order: 'A-42', shop: 'north' };

/** POSTs a message with tags and metadata; its id. */
async function send(address: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.call('POST', '/api/v1/messages', { to: address, from_email: 'app@acme.test', subject: 'Your receipt', tags: TAGS, metadata: METADATA, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

const tracked = (address: string) =>
  send(address, { html: '<p>Thanks! <a href="https://shop.example/orders/42">Your order</a> <a href="https://shop.example/help">Help</a></p>', track_opens: true, track_clicks: true });

async function waitForStatus(id: number, status: string) {
  return eventually(async () => {
    const m = (await t.call('GET', `/api/v1/messages/${id}`)).body.data;
    return m.status === status ? m : null;
  }, `message ${id} ${status}`);
}

/** The bodies the listener received about message `id`, each signature checked. */
function received(id: number): any[] {
  return receiver
    .on(hook.path)
    .map((h) => {
      expect(verifySignature(hook.secret, h.headers['sendwell-signature'], h.body)).toBe(true);
      const body = JSON.parse(h.body);
      expect(h.headers['sendwell-event']).toBe(body.type);
      return body;
    })
    .filter((b) => b.data.message_id === id);
}

/** Waits for the listener to receive an event of `type` about message `id`. */
const delivered = (id: number, type: string) => eventually(() => received(id).find((b) => b.type === type), `${type} for message ${id}`);

/** The event types queued for the endpoint about message `id` (queued in the same transaction as the change, so complete once a request answers). */
async function queued(id: number): Promise<string[]> {
  const res = await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?size=100`);
  expect(res.status).toBe(200);
  return res.body.data.deliveries.filter((d: any) => d.payload.data.message_id === id).map((d: any) => d.event_type).sort();
}

/** D25.5's envelope and the four fields every message.* event carries. */
function expectCarries(event: any, id: number, address: string) {
  expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), created_at: D1, account_id: t.accountId });
  expect(event.data).toMatchObject({ message_id: id, to: address, tags: TAGS, metadata: METADATA });
}

const mailTo = (address: string) => eventually(() => sink.messages.find((m) => m.envelope.to.includes(address)), `mail to ${address}`);

/** The pixel, the first link, and the trap link of a tracked message's mail, on the test server. */
function trackingLinks(mail: ReceivedMessage) {
  const { hrefs, imgs, traps } = linksIn(mail.html as string);
  return { pixel: onServer(server, imgs.find((u) => u.includes('/t/o/'))!), click: onServer(server, hrefs.find((u) => u.includes('/t/c/'))!), trap: onServer(server, traps[0]) };
}

const row = (id: number) => server.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Moves a message's sending a minute back, so a click now is no scanner's click on arrival (D23's 2 seconds). */
const sentAMinuteAgo = (id: number) =>
  server.db
    .updateTable('messages')
    .set({ sent_at: new Date(Date.now() - 60_000).toISOString() })
    .where('id', '=', id)
    .execute();

const from = (ip: string, agent = CHROME) => ({ headers: { 'x-forwarded-for': ip, 'user-agent': agent } });
const suppression = async (address: string) => (await t.call('GET', `/api/v1/suppressions?search=${encodeURIComponent(address)}`)).body.data.suppressions[0];

describe('message.* webhooks at sending (D25.5)', () => {
  it('message.sent carries message_id, to, tags, metadata and sent_at', async () => {
    const address = to('sent');
    const id = await send(address, { text: 'Thanks' });
    const event = await delivered(id, 'message.sent');
    expectCarries(event, id, address);
    expect(event.data.sent_at).toEqual(D1);
    expect((await waitForStatus(id, 'SENT')).sent_at).toBe(event.data.sent_at);
  });

  it('message.bounced for a 5xx at RCPT: BOUNCED, the address suppressed', async () => {
    const address = to('rejected');
    const id = await send(address, { text: 'Thanks' });
    const event = await delivered(id, 'message.bounced');
    expectCarries(event, id, address);
    expect(event.data).toMatchObject({ hard: true, reason: expect.stringContaining('550') });
    expect((await waitForStatus(id, 'BOUNCED')).error).toContain('550');
    expect(await suppression(address)).toMatchObject({ source: 'BOUNCE' });
    expect(await queued(id)).toEqual(['message.bounced']);
  });

  it('message.failed when 4xx answers last past SEND_MAX_ATTEMPTS: FAILED with the reason', async () => {
    const address = to('busy');
    const id = await send(address, { text: 'Thanks' });
    const event = await delivered(id, 'message.failed');
    expectCarries(event, id, address);
    expect(event.data.error).toContain('451');
    expect((await waitForStatus(id, 'FAILED')).error).toContain('451');
    expect(await queued(id)).toEqual(['message.failed']);
  });

  it('message.suppressed for a suppressed address, with the reason', async () => {
    const address = to('suppressed');
    expect((await t.call('POST', '/api/v1/suppressions', { value: address, reason: 'asked by phone' })).status).toBe(200);
    const id = await send(address, { text: 'Thanks' });
    const event = await delivered(id, 'message.suppressed');
    expectCarries(event, id, address);
    expect(event.data.error).toMatch(/asked by phone/);
  });
});

describe('opens and clicks of a tracked message (issue 31: as campaigns count them, D23)', () => {
  it('a person opens: opened_at once, message.opened (unique); a repeat within 10 minutes gives no event (issue 14 L2)', async () => {
    const address = to('opener');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await mailTo(address));
    const first = await hit(pixel, from('203.0.113.20'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/gif');
    const event = await delivered(id, 'message.opened');
    expectCarries(event, id, address);
    expect(event.data.unique).toBe(true);
    const opened = (await t.call('GET', `/api/v1/messages/${id}`)).body.data.opened_at;
    expect(opened).toEqual(D1);
    expect((await hit(pixel, from('203.0.113.20'))).status).toBe(200);
    expect(await queued(id)).toEqual(['message.opened', 'message.sent']);
    expect((await t.call('GET', `/api/v1/messages/${id}`)).body.data.opened_at).toBe(opened);
    const r = await row(id);
    expect(r.human_opened_at).not.toBeNull();
    expect(r.machine_opened_at).toBeNull();
  });

  it("Apple's privacy proxy opens: a machine open, counted and told as campaigns do (message.opened, opened_at)", async () => {
    const address = to('proxied');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await mailTo(address));
    expect((await hit(pixel, from('17.58.101.4', 'Mozilla/5.0'))).status).toBe(200);
    expectCarries(await delivered(id, 'message.opened'), id, address);
    const r = await row(id);
    expect(r.machine_opened_at).not.toBeNull();
    expect(r.human_opened_at).toBeNull();
    expect(r.opened_at).not.toBeNull();
  });

  it("a person clicks: 302 to the message's own link, clicked_at, message.clicked with the url, and the open it implies", async () => {
    const address = to('clicker');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    await sentAMinuteAgo(id);
    const { click } = trackingLinks(await mailTo(address));
    const res = await hit(click, from('203.0.113.21'));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/orders/42');
    const event = await delivered(id, 'message.clicked');
    expectCarries(event, id, address);
    expect(event.data).toMatchObject({ url: 'https://shop.example/orders/42', unique: true });
    expect((await delivered(id, 'message.opened')).data.unique).toBe(true);
    const m = (await t.call('GET', `/api/v1/messages/${id}`)).body.data;
    expect(m.clicked_at).toEqual(D1);
    expect(m.opened_at).toEqual(D1);
    const r = await row(id);
    expect([r.human_clicked_at !== null, r.machine_clicked_at !== null]).toEqual([true, false]);
    // Every click is an event, as a campaign's is; the second is not unique.
    expect((await hit(click, from('203.0.113.21'))).status).toBe(302);
    expect(await queued(id)).toEqual(['message.clicked', 'message.clicked', 'message.opened', 'message.sent']);
  });

  it('a scanner checks the link with HEAD: the same 302, a machine click', async () => {
    const address = to('scanned');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    await sentAMinuteAgo(id);
    const { click } = trackingLinks(await mailTo(address));
    const res = await hit(click, { method: 'HEAD', ...from('198.51.100.30') });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/orders/42');
    const r = await row(id);
    expect([r.human_clicked_at !== null, r.machine_clicked_at !== null]).toEqual([false, true]);
    expectCarries(await delivered(id, 'message.clicked'), id, address);
  });

  it('the trap link: a machine open and click, an empty page, no event and no opened_at or clicked_at', async () => {
    const address = to('trapped');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    const { trap } = trackingLinks(await mailTo(address));
    const res = await hit(trap, from('198.51.100.31'));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const r = await row(id);
    expect({ opened: r.opened_at, clicked: r.clicked_at }).toEqual({ opened: null, clicked: null });
    expect([r.machine_opened_at !== null, r.machine_clicked_at !== null]).toEqual([true, true]);
    expect(await queued(id)).toEqual(['message.sent']);
  });

  it('a tampered token, a link index the message never held, a campaign kind for a message id, or a message not sent: 404, nothing counted', async () => {
    const address = to('tampered');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    const { pixel, click, trap } = trackingLinks(await mailTo(address));
    // Each from its own client address: TRACKING_RATE_LIMIT is 5 here, and these are not a flood.
    let client = 0;
    const fresh = () => from(`198.51.100.${100 + client++}`);
    for (const url of [...tamperings(pixel), ...tamperings(click), ...tamperings(trap)]) expect((await hit(url, fresh())).status, url).toBe(404);
    const scheduled = await send(to('later'), { html: '<a href="https://shop.example/x">x</a>', track_opens: true, track_clicks: true, scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const forged = [
      `/t/c/${signer.sign({ kind: 'message-click', messageId: id, link: 7 })}`,
      `/t/o/${signer.sign({ kind: 'open', recipientId: id })}`,
      `/t/o/${signer.sign({ kind: 'message-open', messageId: scheduled })}`,
      `/t/c/${signer.sign({ kind: 'message-click', messageId: scheduled, link: 0 })}`,
      `/t/t/${signer.sign({ kind: 'message-trap', messageId: 999_999_999 })}`,
    ];
    for (const path of forged) expect((await hit(server.url + path, fresh())).status, path).toBe(404);
    const r = await row(id);
    expect([r.opened_at, r.clicked_at, r.machine_opened_at, r.machine_clicked_at]).toEqual([null, null, null, null]);
    expect(await queued(id)).toEqual(['message.sent']);
    expect(await queued(scheduled)).toEqual([]);
  });

  it("a client past TRACKING_RATE_LIMIT gets 429 with Retry-After on a message's pixel, as on a campaign's (issue 14 L2)", async () => {
    const address = to('flood');
    const id = await tracked(address);
    await waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await mailTo(address));
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await hit(pixel, from('198.51.100.34'))).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('bounces and complaints after sending (issue 31: as D23 applies them to campaigns)', () => {
  const report = (rcpt: string, raw: string) => reporter.sendMail({ envelope: { from: '', to: [rcpt] }, raw });
  const providerToken = () => feedbackSecret(server.core.config.secret);
  const post = (provider: string, body: unknown) => server.request('POST', `/webhooks/${provider}?token=${providerToken()}`, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('a message goes with its own VERP Return-Path and a signed Message-ID `<t…>`', async () => {
    const address = to('verp');
    const id = await send(address, { text: 'Thanks' });
    const mail = await mailTo(address);
    expect(mail.envelope.from).toMatch(MESSAGE_VERP);
    expect(mail.messageId).toMatch(new RegExp(`^<t${id}\\.[A-Za-z0-9_-]+@acme\\.test>$`));
  });

  it('a DSN to the VERP address: SENT → BOUNCED, message.bounced, the address suppressed; again: accepted, nothing more', async () => {
    const address = to('dsn');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const mail = await mailTo(address);
    const raw = dsn({ to: mail.envelope.from, status: '5.1.1', recipient: address, originalMessageId: mail.messageId });
    await report(mail.envelope.from, raw);
    const event = await delivered(id, 'message.bounced');
    expectCarries(event, id, address);
    expect(event.data).toMatchObject({ hard: true, reason: expect.stringContaining('5.1.1') });
    expect((await waitForStatus(id, 'BOUNCED')).error).toContain('5.1.1');
    expect(await suppression(address)).toMatchObject({ source: 'BOUNCE' });
    await report(mail.envelope.from, raw);
    expect(await queued(id)).toEqual(['message.bounced', 'message.sent']);
  });

  it('a DSN naming the message only by its Message-ID (a mailbox copy): the same', async () => {
    const address = to('dsnbyid');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const mail = await mailTo(address);
    const outcome = await server.core.bounceMail.handle(Buffer.from(dsn({ to: 'postmaster@acme.test', status: '5.2.1', recipient: address, originalMessageId: mail.messageId })), {
      target: null,
      remoteAddress: null,
      sender: 'imap:INBOX',
    });
    expect(outcome).toMatchObject({ kind: 'recorded', report: 'hard-bounce', target: { kind: 'message-bounce', messageId: id } });
    expectCarries(await delivered(id, 'message.bounced'), id, address);
    await waitForStatus(id, 'BOUNCED');
  });

  it('a 4.x.x DSN changes nothing; a forged VERP token is refused at RCPT', async () => {
    const address = to('delayed');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const mail = await mailTo(address);
    await report(mail.envelope.from, dsn({ to: mail.envelope.from, status: '4.2.2', recipient: address }));
    expect((await t.call('GET', `/api/v1/messages/${id}`)).body.data.status).toBe('SENT');
    const forged = mail.envelope.from.replace(/^bounce\+t-([0-9a-z]+)-/, (_, n: string) => `bounce+t-${(parseInt(n, 36) + 1).toString(36)}-`);
    const err = await report(forged, dsn({ to: forged, status: '5.1.1' })).then(
      () => null,
      (e: { responseCode?: number }) => e,
    );
    expect(err?.responseCode).toBe(550);
    expect(await queued(id)).toEqual(['message.sent']);
  });

  it('an ARF complaint by mail: the address suppressed (COMPLAINT), its contact COMPLAINED, no event (D25.5 names none)', async () => {
    const address = to('complainer');
    await t.contact({ email: address });
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const mail = await mailTo(address);
    await report(mail.envelope.from, arf({ to: mail.envelope.from, originalMessageId: mail.messageId }));
    expect(await suppression(address)).toMatchObject({ source: 'COMPLAINT' });
    expect((await t.getContact(address)).status).toBe('COMPLAINED');
    expect((await row(id)).complained_at).not.toBeNull();
    expect((await t.call('GET', `/api/v1/messages/${id}`)).body.data.status).toBe('SENT');
    expect(await queued(id)).toEqual(['message.sent']);
  });

  it('a provider report (generic) by Message-ID: BOUNCED and message.bounced; a replay changes nothing', async () => {
    const address = to('generic');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const { messageId } = await mailTo(address);
    for (let i = 0; i < 2; i++) {
      const res = await post('generic', { events: [{ type: 'bounce', message_id: messageId, email: address }] });
      expect(res.status, res.text).toBe(200);
    }
    const event = await delivered(id, 'message.bounced');
    expectCarries(event, id, address);
    expect(event.data.hard).toBe(true);
    await waitForStatus(id, 'BOUNCED');
    expect(await suppression(address)).toMatchObject({ source: 'BOUNCE' });
    expect(await queued(id)).toEqual(['message.bounced', 'message.sent']);
  });

  it("SendGrid's soft bounce: message.bounced (hard false), the message stays SENT and the address unsuppressed", async () => {
    const address = to('blocked');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const { messageId } = await mailTo(address);
    const res = await post('sendgrid', [{ event: 'bounce', type: 'blocked', 'smtp-id': messageId, email: address, timestamp: Math.floor(Date.now() / 1000) }]);
    expect(res.status, res.text).toBe(200);
    expect((await delivered(id, 'message.bounced')).data.hard).toBe(false);
    expect((await t.call('GET', `/api/v1/messages/${id}`)).body.data.status).toBe('SENT');
    expect(await suppression(address)).toBeUndefined();
  });

  it("SES's complaint by Message-ID: suppressed (COMPLAINT), no event", async () => {
    const address = to('sescomplaint');
    const id = await send(address, { text: 'Thanks' });
    await waitForStatus(id, 'SENT');
    const { messageId } = await mailTo(address);
    const res = await post('ses', { notificationType: 'Complaint', mail: { commonHeaders: { messageId } }, complaint: { complainedRecipients: [{ emailAddress: address }], complaintFeedbackType: 'abuse' } });
    expect(res.status, res.text).toBe(200);
    expect(await suppression(address)).toMatchObject({ source: 'COMPLAINT' });
    expect(await queued(id)).toEqual(['message.sent']);
  });

  it('a report about a message not sent yet: 503 with Retry-After, so the provider retries; a forged Message-ID is not matched', async () => {
    const scheduled = await send(to('notyet'), { text: 'Later', scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const notSent = `<t${scheduled}.${signer.transactionalIdSignature(scheduled)}@acme.test>`;
    const pending = await post('generic', { events: [{ type: 'bounce', message_id: notSent }] });
    expect(pending.status, pending.text).toBe(503);
    expect(pending.headers.get('retry-after')).toMatch(/^\d+$/);
    const forged = await post('generic', { events: [{ type: 'bounce', message_id: `<t${scheduled}.forgedsig0@acme.test>` }] });
    expect(forged.status, forged.text).toBe(200);
    expect(forged.body.data).toEqual({ received: 1, matched: 0, recorded: 0 });
    expect((await t.call('GET', `/api/v1/messages/${scheduled}`)).body.data.status).toBe('SCHEDULED');
  });
});
