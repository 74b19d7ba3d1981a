/**
 * The events the sending side emits to outbound webhooks (issue 5 §3): a campaign send gives
 * campaign.sending, email.sent per message, email.bounced for an SMTP rejection and campaign.sent;
 * opens and clicks give email.opened / email.clicked (`unique` on the first; repeat opens at most
 * one event per 10 minutes, issue 14 L2, and every click);
 * provider bounces and complaints give email.bounced / email.complained once; the unsubscribe link
 * gives contact.unsubscribed; a transport that keeps failing gives campaign.failed. Each goes only
 * to endpoints subscribed to its type, signed with that endpoint's secret, and only if the change
 * it reports committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackSecret } from '../../src/feedback/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, messagesOfCampaign, onServer, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { eventually, startReceiver, verifySignature, type Hook, type Receiver } from './receiver.ts';

const FAST_WEBHOOKS = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20' };
const D1 = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);

let receiver: Receiver;
let sink: SmtpSink;
let server: TestServer;
const at = addressMaker('hooks');
const people = { alice: at('alice'), bob: at('bob'), rejected: at('rejected') };

beforeAll(async () => {
  receiver = await startReceiver();
  sink = await startSmtpSink({ respond: ({ stage, address }) => (stage === 'rcpt' && address === people.rejected ? { code: 550, message: 'no such user' } : undefined) });
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, ...FAST_WEBHOOKS });
  server.sender.dispatcher.start();
  server.sender.webhookDelivery.start();
});
afterAll(async () => {
  await server.close();
  await sink.close();
  await receiver.close();
});

let seq = 0;
async function endpoint(t: Tenant, eventTypes: string[]) {
  const path = `/events-${++seq}`;
  const res = await t.call('POST', '/api/v1/webhooks', { url: receiver.url + path, event_types: eventTypes });
  expect(res.status, res.text).toBe(200);
  return { id: res.body.data.id as number, path, secret: res.body.data.secret as string };
}
type Endpoint = Awaited<ReturnType<typeof endpoint>>;

/** The bodies an endpoint received, parsed, after checking each signature with its secret. */
function received(ep: Endpoint): any[] {
  return receiver.on(ep.path).map((h: Hook) => {
    expect(verifySignature(ep.secret, h.headers['sendwell-signature'], h.body), `signature of ${h.body}`).toBe(true);
    const body = JSON.parse(h.body);
    expect(h.headers['sendwell-event']).toBe(body.type);
    return body;
  });
}

const ofType = (bodies: any[], type: string) => bodies.filter((b) => b.type === type);

/** Waits until the endpoint has received `n` bodies in all. */
const receivedCount = (ep: Endpoint, n: number) => eventually(() => (receiver.on(ep.path).length >= n ? received(ep) : null), `${n} deliveries to ${ep.path}`);

describe('a campaign send', () => {
  let t: Tenant;
  let campaignId: number;
  let subscribed: Endpoint;
  let engagement: Endpoint;
  let feedback: Endpoint;
  let elsewhere: Endpoint;

  beforeAll(async () => {
    elsewhere = await endpoint(await tenant(server), ['campaign.sending', 'email.sent', 'email.bounced', 'campaign.sent']);
    t = await tenant(server);
    const list = await t.list('Hooks');
    for (const email of Object.values(people)) await t.contact({ email, list_id: list });
    subscribed = await endpoint(t, ['campaign.sending', 'email.sent', 'email.bounced', 'campaign.sent']);
    engagement = await endpoint(t, ['email.opened', 'email.clicked', 'contact.unsubscribed']);
    feedback = await endpoint(t, ['email.bounced', 'email.complained']);
    campaignId = (await t.campaign(sendable([list], { name: 'Hooked' }))).id;
    await t.send(campaignId);
    expect((await t.waitForStatus(campaignId, ['SENT', 'FAILED'])).status).toBe('SENT');
  });

  it('gives campaign.sending, email.sent per accepted message, email.bounced for the rejection and campaign.sent', async () => {
    const bodies = await receivedCount(subscribed, 5);
    expect(bodies.map((b) => b.type).sort()).toEqual(['campaign.sending', 'campaign.sent', 'email.bounced', 'email.sent', 'email.sent']);
    for (const b of bodies) expect(b).toMatchObject({ id: expect.stringMatching(/^evt_/), created_at: D1, account_id: t.accountId });
    expect(new Set(bodies.map((b) => b.id)).size).toBe(5);

    const contacts = new Map<string, number>();
    for (const email of Object.values(people)) contacts.set(email, (await t.getContact(email)).id);
    const mails = messagesOfCampaign(sink.messages, campaignId);
    const sent = ofType(bodies, 'email.sent').sort((a, b) => a.data.email.localeCompare(b.data.email));
    expect(sent.map((b) => b.data)).toEqual(
      [people.alice, people.bob].map((email) => ({
        campaign_id: campaignId,
        contact_id: contacts.get(email),
        email,
        message_id: mails.find((m) => m.envelope.to[0] === email)!.messageId,
        sent_at: D1,
      })),
    );
    expect(ofType(bodies, 'email.bounced')[0].data).toEqual({
      campaign_id: campaignId,
      contact_id: contacts.get(people.rejected),
      email: people.rejected,
      message_id: expect.stringMatching(new RegExp(`^<c${campaignId}\\.r`)),
      hard: true,
      reason: expect.stringContaining('550'),
    });
    expect(ofType(bodies, 'campaign.sending')[0].data).toEqual({ campaign_id: campaignId, name: 'Hooked', status: 'SENDING', total_recipients: 3, sent_at: null, error: null });
    expect(ofType(bodies, 'campaign.sent')[0].data).toEqual({ campaign_id: campaignId, name: 'Hooked', status: 'SENT', total_recipients: 3, sent_at: D1, error: null });
  });

  it('sends nothing to endpoints not subscribed to those types, and nothing to other accounts', async () => {
    await receivedCount(subscribed, 5);
    await receivedCount(feedback, 1); // the SMTP rejection is a bounce: the feedback endpoint has it too
    expect(received(feedback).map((b) => b.type)).toEqual(['email.bounced']);
    expect(receiver.on(engagement.path)).toEqual([]);
    expect(receiver.on(elsewhere.path)).toEqual([]);
    // The receiver counts a delivery when it arrives; the worker marks it DELIVERED once the
    // answer is back, a moment later.
    const log = async () => (await t.call('GET', `/api/v1/webhooks/${subscribed.id}/deliveries`)).body.data;
    expect((await log()).totalElements).toBe(5);
    await expect.poll(async () => (await log()).deliveries.every((d: any) => d.status === 'DELIVERED')).toBe(true);
  });

  it('gives email.opened on the first open (unique) but not on a repeat within 10 minutes (issue 14 L2), and email.clicked on every click', async () => {
    const links = (email: string) => {
      const m = messagesOfCampaign(sink.messages, campaignId).find((x) => x.envelope.to[0] === email)!;
      const { hrefs, imgs } = linksIn(m.html as string);
      return { click: onServer(server, hrefs[0]), pixel: onServer(server, imgs[0]), unsubscribe: onServer(server, hrefs[1]) };
    };
    const alice = links(people.alice);
    expect((await hit(alice.pixel)).status).toBe(200);
    expect((await hit(alice.pixel)).status).toBe(200);
    expect((await hit(alice.click)).status).toBe(302);
    expect((await hit(alice.click)).status).toBe(302);
    // Bob clicks without loading images: the click is his first open too.
    expect((await hit(links(people.bob).click)).status).toBe(302);
    const bodies = await receivedCount(engagement, 5);
    const summary = bodies.map((b) => `${b.type} ${b.data.email === people.alice ? 'alice' : 'bob'} ${b.data.unique}`).sort();
    expect(summary).toEqual([
      'email.clicked alice false',
      'email.clicked alice true',
      'email.clicked bob true',
      'email.opened alice true',
      'email.opened bob true',
    ]);
    expect(ofType(bodies, 'email.clicked')[0].data).toMatchObject({ campaign_id: campaignId, url: 'https://example.com/a' });
  });

  it('gives contact.unsubscribed when the unsubscribe link takes a subscribed contact out, once', async () => {
    const before = receiver.on(engagement.path).length;
    const m = messagesOfCampaign(sink.messages, campaignId).find((x) => x.envelope.to[0] === people.bob)!;
    const unsubscribe = onServer(server, linksIn(m.html as string).hrefs[1]);
    for (let i = 0; i < 2; i++) {
      const res = await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(res.status).toBe(200);
    }
    const bodies = await receivedCount(engagement, before + 1);
    const unsubscribed = ofType(bodies, 'contact.unsubscribed');
    expect(unsubscribed).toHaveLength(1);
    expect(unsubscribed[0].data).toMatchObject({ contact: { id: (await t.getContact(people.bob)).id, email: people.bob }, campaign_id: campaignId });
  });

  it('gives email.bounced and email.complained for provider feedback, once each (a replay gives nothing)', async () => {
    const token = feedbackSecret(server.core.config.secret);
    const mails = messagesOfCampaign(sink.messages, campaignId);
    const id = (email: string) => mails.find((m) => m.envelope.to[0] === email)!.messageId;
    const body = JSON.stringify({
      events: [
        { type: 'bounce', message_id: id(people.alice), hard: false },
        { type: 'complaint', message_id: id(people.bob) },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await server.request('POST', `/webhooks/generic?token=${token}`, { rawBody: body, headers: { 'content-type': 'application/json' } });
      expect(res.status, res.text).toBe(200);
    }
    const bodies = await receivedCount(feedback, 3);
    expect(bodies.map((b) => `${b.type} ${b.data.email}`).sort()).toEqual([`email.bounced ${people.alice}`, `email.bounced ${people.rejected}`, `email.complained ${people.bob}`]);
    expect(ofType(bodies, 'email.bounced').find((b) => b.data.email === people.alice).data).toMatchObject({ hard: false, campaign_id: campaignId, message_id: id(people.alice) });
  });
});

describe('only what commits', () => {
  it('a send refused for want of recipients queues no campaign.sending', async () => {
    const t = await tenant(server);
    const ep = await endpoint(t, ['campaign.sending', 'campaign.failed']);
    const empty = await t.list('Empty');
    const id = (await t.campaign(sendable([empty]))).id;
    const res = await t.call('POST', `/api/v1/campaigns/${id}/send`);
    expect(res.status).toBe(400);
    const log = await t.call('GET', `/api/v1/webhooks/${ep.id}/deliveries`);
    expect(log.body.data.totalElements).toBe(0);
  });
});

describe('a failing transport', () => {
  it('gives campaign.failed with the reason', async () => {
    // Port 9 on loopback refuses connections: every send is a transport failure.
    const failing = await startTestServer({ SMTP_URL: 'smtp://127.0.0.1:9', ...FAST_SENDING, ...FAST_WEBHOOKS, SEND_FAILURE_BUDGET: '1' });
    try {
      failing.sender.dispatcher.start();
      failing.sender.webhookDelivery.start();
      const t = await tenant(failing);
      const ep = await endpoint(t, ['campaign.failed']);
      const list = await t.list('Doomed');
      await t.contact({ email: at('doomed'), list_id: list });
      const id = (await t.campaign(sendable([list], { name: 'Doomed' }))).id;
      await t.send(id);
      expect((await t.waitForStatus(id, 'FAILED')).status).toBe('FAILED');
      const [failed] = await receivedCount(ep, 1);
      expect(failed).toMatchObject({ type: 'campaign.failed', account_id: t.accountId, data: { campaign_id: id, name: 'Doomed', status: 'FAILED', error: expect.stringContaining('ECONNREFUSED') } });
    } finally {
      await failing.close();
    }
  });
});
