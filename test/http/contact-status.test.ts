/**
 * D17.5 through the public surface: one contact-status rule whatever the change comes from. An
 * SMTP reply (a real SMTP server answering 550), a provider's report (the signed generic
 * webhook), the unsubscribe link, an explicit PUT and the bulk import all go through
 * contact-status.ts, so none of them breaks it.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackSecret } from '../../src/feedback/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, tenant, type Tenant } from '../sending/send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('status');
/** Addresses the sink refuses at RCPT with 550 (a hard bounce at SMTP time). */
const BOUNCING = new Set<string>();
let dispatching = false;

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.respond((ctx) => (ctx.stage === 'rcpt' && BOUNCING.has(ctx.address) ? { code: 550, message: '5.1.1 no such user' } : undefined));
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** The dispatcher starts once the first test has set up what must happen before any mail goes. */
function startSending() {
  if (dispatching) return;
  server.sender.dispatcher.start();
  dispatching = true;
}

/** A new list holding new SUBSCRIBED contacts, and a sendable campaign to it (not yet sent). */
async function campaignTo(emails: string[]) {
  const list = await t.list(`List ${Math.random()}`);
  for (const email of emails) await t.contact({ email, list_id: list });
  return t.campaign({ subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [list] });
}

/** Sends a campaign to new contacts; answers each address's recipient id and Message-ID. */
async function sendTo(emails: string[]) {
  startSending();
  const campaign = await campaignTo(emails);
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  return recipientsOf(campaign.id);
}

async function recipientsOf(campaignId: number) {
  const rows = await server.db.selectFrom('campaign_recipients').select(['id', 'email', 'status', 'message_id']).where('campaign_id', '=', campaignId).execute();
  return new Map(rows.map((r) => [r.email, r]));
}

const status = async (email: string) => (await t.getContact(email)).status;
const put = (email: string, body: Record<string, unknown>) => t.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, body);
const bulk = (body: Record<string, unknown>) => server.request('POST', '/v1/contacts/bulk', { key: t.key, body });
const unsubscribeUrl = (recipientId: number) => `${server.url}/u/${server.core.signer.sign({ kind: 'unsubscribe', recipientId })}`;
const form = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const oneClick = (url: string) => form(url, 'List-Unsubscribe=One-Click');

/** A provider's report through the signed generic webhook. */
function providerReport(events: Record<string, unknown>[]) {
  const body = JSON.stringify({ events });
  const ts = Math.floor(Date.now() / 1000);
  const secret = feedbackSecret(server.core.config.secret);
  const signature = `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
  return server.request('POST', `/webhooks/generic?token=${secret}`, { rawBody: body, headers: { 'content-type': 'application/json', 'x-sendwell-signature': signature } });
}

describe('D17.5: an SMTP hard bounce follows the one rule', () => {
  it('a 550 at SMTP time never overwrites UNSUBSCRIBED or COMPLAINED (it set BOUNCED over both), and bounces a SUBSCRIBED contact', async () => {
    const unsubscribed = at('smtp-unsub');
    const complained = at('smtp-complained');
    const subscribed = at('smtp-subscribed');
    // The audience is taken at /send, while all three are SUBSCRIBED; the statuses change before
    // the dispatcher runs, as when a contact opts out while a large campaign is going out.
    const campaign = await campaignTo([unsubscribed, complained, subscribed]);
    await t.send(campaign.id);
    expect((await put(unsubscribed, { status: 'UNSUBSCRIBED' })).status).toBe(200);
    const marked = await bulk({ contacts: [{ email: complained, status: 'COMPLAINED' }] });
    expect(marked.status, marked.text).toBe(200);
    expect(await status(complained)).toBe('COMPLAINED');
    for (const email of [unsubscribed, complained, subscribed]) BOUNCING.add(email);

    startSending();
    await t.waitForStatus(campaign.id, 'SENT');
    // Each was refused with 550 by the server, and its recipient row is BOUNCED...
    for (const email of [unsubscribed, complained, subscribed]) {
      expect(sink.events).toContainEqual({ stage: 'rcpt', address: email, code: 550 });
    }
    const rows = await recipientsOf(campaign.id);
    expect([...rows.values()].map((r) => r.status)).toEqual(['BOUNCED', 'BOUNCED', 'BOUNCED']);
    // ...but the contact's status follows contact-status.ts.
    expect(await status(unsubscribed)).toBe('UNSUBSCRIBED');
    expect(await status(complained)).toBe('COMPLAINED');
    expect(await status(subscribed)).toBe('BOUNCED');
  });
});

describe("D17.5: a provider's report follows the one rule", () => {
  it('a hard bounce never overwrites UNSUBSCRIBED or COMPLAINED', async () => {
    const unsubscribed = at('report-unsub');
    const complained = at('report-complained');
    const sent = await sendTo([unsubscribed, complained]);
    await oneClick(unsubscribeUrl(sent.get(unsubscribed)!.id));
    expect(await status(unsubscribed)).toBe('UNSUBSCRIBED');
    expect((await providerReport([{ type: 'complaint', message_id: sent.get(complained)!.message_id }])).status).toBe(200);
    expect(await status(complained)).toBe('COMPLAINED');

    const res = await providerReport(
      [unsubscribed, complained].map((email) => ({ type: 'bounce', message_id: sent.get(email)!.message_id, hard: true })),
    );
    expect(res.status, res.text).toBe(200);
    expect(await status(unsubscribed)).toBe('UNSUBSCRIBED');
    expect(await status(complained)).toBe('COMPLAINED');
  });

  it('a complaint is stronger than an unsubscribe or a bounce', async () => {
    const email = at('unsub-then-complain');
    const sent = await sendTo([email]);
    await oneClick(unsubscribeUrl(sent.get(email)!.id));
    await providerReport([{ type: 'complaint', message_id: sent.get(email)!.message_id }]);
    expect(await status(email)).toBe('COMPLAINED');
  });
});

describe('D17.5: the unsubscribe link follows the one rule', () => {
  it('never overwrites BOUNCED (an SMTP 550) or COMPLAINED, by one-click or by the page', async () => {
    const bounced = at('bounce-then-unsub');
    BOUNCING.add(bounced);
    const sentBounced = await sendTo([bounced]);
    expect(await status(bounced)).toBe('BOUNCED');
    const bouncedUrl = unsubscribeUrl(sentBounced.get(bounced)!.id);
    expect((await oneClick(bouncedUrl)).status).toBe(200);
    expect((await form(bouncedUrl, 'action=unsubscribe')).status).toBe(200);
    expect(await status(bounced)).toBe('BOUNCED');

    const complained = at('complain-then-unsub');
    const sent = await sendTo([complained]);
    expect((await providerReport([{ type: 'complaint', message_id: sent.get(complained)!.message_id }])).status).toBe(200);
    const url = unsubscribeUrl(sent.get(complained)!.id);
    await form(url, 'action=unsubscribe');
    await form(url, 'action=resubscribe');
    expect(await status(complained)).toBe('COMPLAINED');
  });
});

describe('D17.5: an explicit PUT (D11)', () => {
  it('may set SUBSCRIBED from COMPLAINED or BOUNCED, and UNSUBSCRIBED from any status', async () => {
    const email = at('put');
    await t.contact({ email });
    expect((await bulk({ contacts: [{ email, status: 'COMPLAINED' }] })).status).toBe(200);
    expect(await status(email)).toBe('COMPLAINED');
    const back = await put(email, { status: 'SUBSCRIBED' });
    expect(back.status, back.text).toBe(200);
    expect(back.body.data.status).toBe('SUBSCRIBED');

    expect((await bulk({ contacts: [{ email, status: 'BOUNCED' }] })).status).toBe(200);
    expect((await put(email, { status: 'UNSUBSCRIBED' })).body.data.status).toBe('UNSUBSCRIBED');
    expect((await put(email, { status: 'SUBSCRIBED' })).body.data.status).toBe('SUBSCRIBED');
  });

  it('still refuses BOUNCED or COMPLAINED as a PUT status (400): those come from mail, not from the account', async () => {
    const email = at('put-refused');
    await t.contact({ email });
    for (const refused of ['BOUNCED', 'COMPLAINED']) {
      const res = await put(email, { status: refused });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
    expect(await status(email)).toBe('SUBSCRIBED');
  });
});

describe('D17.5 and D17.6: the bulk import follows the one rule', () => {
  it('never makes an UNSUBSCRIBED, BOUNCED or COMPLAINED contact SUBSCRIBED again, updating or not', async () => {
    const statuses = ['UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED'] as const;
    const emails = statuses.map((s) => at(`import-${s.toLowerCase()}`));
    for (const email of emails) await t.contact({ email });
    expect((await bulk({ contacts: statuses.map((s, i) => ({ email: emails[i], status: s })) })).status).toBe(200);
    for (const skipDuplicates of [true, false]) {
      const res = await bulk({ skipDuplicates, contacts: emails.map((email) => ({ email, firstName: 'Again', status: 'SUBSCRIBED' })) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.failed).toBe(0);
    }
    for (const [i, s] of statuses.entries()) expect(await t.getContact(emails[i])).toMatchObject({ first_name: 'Again', status: s });
  });

  it("a file's weaker status never overwrites a stronger one: an unsubscribe or bounce never lands on COMPLAINED", async () => {
    const email = at('import-weaker');
    await t.contact({ email });
    await bulk({ contacts: [{ email, status: 'COMPLAINED' }] });
    for (const weaker of ['UNSUBSCRIBED', 'BOUNCED']) expect((await bulk({ skipDuplicates: false, contacts: [{ email, status: weaker }] })).status).toBe(200);
    expect(await status(email)).toBe('COMPLAINED');
  });

  it('an unknown status is reported for its item, and the others are written', async () => {
    const res = await bulk({ contacts: [{ email: at('import-bad'), status: 'GONE' }, { email: at('import-good'), status: 'UNSUBSCRIBED' }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.errors[0]).toMatchObject({ index: 0, message: expect.stringMatching(/status must be one of/) });
    expect(await status(at('import-good'))).toBe('UNSUBSCRIBED');
  });
});
