/**
 * D17.1 and D17.5 through the public surface: the unsubscribe page a person sees (confirmation
 * with the address, the way back, one-click staying an empty 200), and one contact-status rule
 * whatever the change comes from: SMTP replies (a real SMTP server answering 550), provider
 * webhooks, the unsubscribe link and an explicit PUT.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSecret } from '../../src/feedback/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, tenant, type Tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('status');
const BOUNCING = new Set<string>();

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.respond((ctx) => (ctx.stage === 'rcpt' && BOUNCING.has(ctx.address) ? { code: 550, message: '5.1.1 no such user' } : undefined));
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.deps.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sends a campaign to new contacts; answers each address's unsubscribe URL and Message-ID. */
async function sendTo(emails: string[], extra: Record<string, unknown> = {}) {
  const list = await t.list(`List ${Math.random()}`);
  for (const email of emails) await t.contact({ email, first_name: 'Ann', list_id: list });
  const campaign = await t.campaign({ subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [list], ...extra });
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const out = new Map<string, { unsubscribe: string; messageId: string }>();
  for (const email of emails) {
    const [mail] = sink.to(email);
    const href = linksIn(mail?.html ? String(mail.html) : '').hrefs.find((h) => h.startsWith(`${PUBLIC_URL}/u/`));
    const row = await server.db.selectFrom('campaign_recipients').select('message_id').where('campaign_id', '=', campaign.id).where('email', '=', email).executeTakeFirstOrThrow();
    out.set(email, { unsubscribe: href ? onServer(server, href) : '', messageId: row.message_id! });
  }
  return out;
}

const status = async (email: string) => (await t.getContact(email)).status;
const form = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const oneClick = (url: string) => form(url, 'List-Unsubscribe=One-Click');

function genericFeedback(events: Record<string, unknown>[]) {
  const body = JSON.stringify({ events });
  const ts = Math.floor(Date.now() / 1000);
  const secret = webhookSecret(server.deps.config.secret);
  const signature = `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
  return server.request('POST', `/webhooks/generic?token=${secret}`, { rawBody: body, headers: { 'content-type': 'application/json', 'x-sendwell-signature': signature } });
}

describe('D17.1: the unsubscribe page', () => {
  it('asks, and its form answers a confirmation page with the address and a way to subscribe again', async () => {
    const email = at('page');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const asked = await hit(unsubscribe);
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-type')).toMatch(/^text\/html/);
    expect(asked.text).toContain(email);
    expect(asked.text).toContain('Acme News');
    expect(asked.text).toContain('name="action" value="unsubscribe"');
    expect(await status(email)).toBe('SUBSCRIBED');

    const confirmed = await form(unsubscribe, 'action=unsubscribe');
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(confirmed.text).toContain('You are unsubscribed');
    expect(confirmed.text).toContain(email);
    expect(confirmed.text).toContain('name="action" value="resubscribe"');
    expect(await status(email)).toBe('UNSUBSCRIBED');

    // A second visit says so instead of asking again.
    const again = await hit(unsubscribe);
    expect(again.text).toContain('already unsubscribed');
    expect(again.text).toContain('value="resubscribe"');

    const back = await form(unsubscribe, 'action=resubscribe');
    expect(back.status).toBe(200);
    expect(back.text).toContain('You are subscribed again');
    expect(await status(email)).toBe('SUBSCRIBED');
  });

  it("RFC 8058's one-click POST stays an empty 200, and unsubscribes", async () => {
    const email = at('one-click');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const res = await oneClick(unsubscribe);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await status(email)).toBe('UNSUBSCRIBED');
  });

  it('resubscribing never lifts BOUNCED: the page says the address stays off the list', async () => {
    const email = at('bounced-page');
    BOUNCING.add(email);
    const sent = await sendTo([email]);
    BOUNCING.delete(email);
    expect(await status(email)).toBe('BOUNCED');
    // A bounced message has no HTML to click; its token is the one the message carried.
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const token = server.deps.signer.sign({ kind: 'unsubscribe', recipientId: row.id });
    const url = `${server.url}/u/${token}`;
    const res = await form(url, 'action=resubscribe');
    expect(res.status).toBe(200);
    expect(res.text).toContain('cannot be subscribed again');
    expect(await status(email)).toBe('BOUNCED');
    expect(sent.get(email)).toBeDefined();
  });

  it('escapes the sender name and the address in the page', async () => {
    const email = at('escape');
    const { unsubscribe } = (await sendTo([email], { from_name: '<script>alert(1)</script>' })).get(email)!;
    const page = await hit(unsubscribe);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('a tampered token is 404 for the page, its form and one-click', async () => {
    const bad = `${server.url}/u/not-a-token`;
    expect((await hit(bad)).status).toBe(404);
    expect((await form(bad, 'action=unsubscribe')).status).toBe(404);
    expect((await form(bad, 'action=resubscribe')).status).toBe(404);
    expect((await oneClick(bad)).status).toBe(404);
  });
});

describe('D17.5: one contact-status rule, wherever the change comes from', () => {
  it("a provider's hard bounce never overwrites UNSUBSCRIBED (it did)", async () => {
    const email = at('unsub-then-bounce');
    const { unsubscribe, messageId } = (await sendTo([email])).get(email)!;
    await oneClick(unsubscribe);
    const res = await genericFeedback([{ type: 'bounce', message_id: messageId, hard: true }]);
    expect(res.status, res.text).toBe(200);
    expect(await status(email)).toBe('UNSUBSCRIBED');
  });

  it('an unsubscribe never overwrites BOUNCED (an SMTP 550) or COMPLAINED', async () => {
    const bounced = at('bounce-then-unsub');
    BOUNCING.add(bounced);
    await sendTo([bounced]);
    BOUNCING.delete(bounced);
    expect(await status(bounced)).toBe('BOUNCED');
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('email', '=', bounced).executeTakeFirstOrThrow();
    expect((await oneClick(`${server.url}/u/${server.deps.signer.sign({ kind: 'unsubscribe', recipientId: row.id })}`)).status).toBe(200);
    expect(await status(bounced)).toBe('BOUNCED');

    const complained = at('complain-then-unsub');
    const { unsubscribe, messageId } = (await sendTo([complained])).get(complained)!;
    expect((await genericFeedback([{ type: 'complaint', message_id: messageId }])).status).toBe(200);
    expect(await status(complained)).toBe('COMPLAINED');
    await form(unsubscribe, 'action=unsubscribe');
    await form(unsubscribe, 'action=resubscribe');
    expect(await status(complained)).toBe('COMPLAINED');
  });

  it('a complaint is stronger than an unsubscribe; only an explicit PUT leaves COMPLAINED', async () => {
    const email = at('unsub-then-complain');
    const { unsubscribe, messageId } = (await sendTo([email])).get(email)!;
    await oneClick(unsubscribe);
    await genericFeedback([{ type: 'complaint', message_id: messageId }]);
    expect(await status(email)).toBe('COMPLAINED');
    const put = await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, { status: 'SUBSCRIBED' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.status).toBe('SUBSCRIBED');
    const back = await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, { status: 'UNSUBSCRIBED' });
    expect(back.body.data.status).toBe('UNSUBSCRIBED');
  });
});
