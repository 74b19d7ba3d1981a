import { createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageIdFor } from '../../src/sending/message.ts';
import { sendwell } from '../helpers/cli.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

// Issue 4 item 7: bounces and complaints arriving later through POST /webhooks/{ses,sendgrid,generic}.
// Contract: spec "Campaign statistics" (bounced, complained, delivered = sent - bounced), D11
// (contact statuses BOUNCED, COMPLAINED), D13 (bounced counts within sent; the audience is
// SUBSCRIBED contacts only), D7 (error form), D8 (authentication before validation).

const SECRET = 'test-secret'; // what startTestServer configures
const FROM = 'news@sendwell.test';

// SendGrid's Signed Event Webhook: an ECDSA P-256 key pair; the public half is configured as SendGrid shows it.
const sendgridKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const otherKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const spkiBase64 = (key: KeyObject) => key.export({ format: 'der', type: 'spki' }).toString('base64');

let server: TestServer;
let key: string;
/** the install's webhook token, as `sendwell webhooks url` prints it */
let token: string;
/** what the CLI printed for each provider */
let urls: Record<string, string>;

/** Runs a `sendwell` command against the test server's configuration. */
const cli = (args: string[]) => sendwell(args, { ...server.env, SECRET, PUBLIC_URL: server.url });

/** The URL the CLI prints for a provider (one line of JSON, as every CLI command). */
async function cliWebhookUrl(provider: string): Promise<string> {
  const res = await cli(['webhooks', 'url', '--provider', provider]);
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
  const printed = JSON.parse(res.stdout);
  expect(printed).toEqual({ provider, url: expect.stringMatching(new RegExp(`^${server.url}/webhooks/${provider}\\?token=[0-9a-f]{64}$`)) });
  return printed.url;
}

beforeAll(async () => {
  server = await startTestServer({ SENDGRID_WEBHOOK_PUBLIC_KEY: spkiBase64(sendgridKeys.publicKey) });
  key = (await server.createAccountWithKey()).key;
  urls = Object.fromEntries(await Promise.all(['ses', 'sendgrid', 'generic'].map(async (p) => [p, await cliWebhookUrl(p)])));
  token = new URL(urls.ses).searchParams.get('token')!;
}, 90_000);
afterAll(() => server.close());

// ---------------------------------------------------------------------------------------------
// Seeding: a real campaign sent through the dev inbox, so recipients carry real Message-IDs.

interface Recipient {
  id: number;
  email: string;
  messageId: string;
}

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
let seq = 0;

async function ok(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/** A list with `n` fresh contacts, and a campaign to it created (not sent). */
async function campaignToNewList(n: number) {
  const run = ++seq;
  const list = await ok(api('POST', '/api/v1/lists', { name: `webhooks ${run}` }));
  const emails = Array.from({ length: n }, (_, i) => `r${i}.run${run}@example.com`);
  for (const email of emails) await ok(api('POST', '/api/v1/contacts', { email, first_name: 'Ann', list_id: list.id }));
  const campaign = await ok(
    api('POST', '/api/v1/campaigns', { name: `Webhooks ${run}`, subject: 'Hello {{first_name}}', from_name: 'News', from_email: FROM, html: '<p>Hi {{first_name}}</p>', list_ids: [list.id] }),
  );
  return { listId: list.id as number, campaignId: campaign.id as number, emails };
}

async function sendUntilSent(campaignId: number): Promise<void> {
  for (let round = 0; round < 50; round++) {
    if ((await ok(api('GET', `/api/v1/campaigns/${campaignId}`))).status === 'SENT') return;
    await server.sender.dispatcher.runOnce();
  }
  throw new Error(`campaign ${campaignId} did not reach SENT`);
}

async function recipientRows(campaignId: number) {
  return server.db.selectFrom('campaign_recipients').selectAll().where('campaign_id', '=', campaignId).orderBy('id').execute();
}

/** A SENT campaign to `n` new contacts; recipients in the order of their e-mails, with the Message-IDs they were sent with. */
async function sentCampaign(n: number): Promise<{ campaignId: number; listId: number; recipients: Recipient[] }> {
  const { campaignId, listId } = await campaignToNewList(n);
  await ok(api('POST', `/api/v1/campaigns/${campaignId}/send`));
  await sendUntilSent(campaignId);
  const rows = await recipientRows(campaignId);
  expect(rows).toHaveLength(n);
  const recipients = rows.map((r) => ({ id: r.id, email: r.email, messageId: r.message_id! })).sort((a, b) => a.email.localeCompare(b.email, 'en', { numeric: true }));
  for (const r of recipients) expect(r.messageId).toMatch(/^<c\d+\.r\d+\.[A-Za-z0-9_-]+@sendwell\.test>$/);
  // What the inbox received carries exactly that Message-ID.
  const inbox = await server.db.selectFrom('dev_inbox').select(['to_address', 'message_id']).where('campaign_id', '=', campaignId).execute();
  expect(inbox.map((m) => [m.to_address, m.message_id]).sort()).toEqual(recipients.map((r) => [r.email, r.messageId]).sort());
  return { campaignId, listId, recipients };
}

const statistics = (campaignId: number) => ok(api('GET', `/api/v1/campaigns/${campaignId}/statistics`));
const contactStatus = async (email: string) => (await ok(api('GET', `/api/v1/contacts/${encodeURIComponent(email)}`))).status as string;
const statuses = (recipients: Recipient[]) => Promise.all(recipients.map((r) => contactStatus(r.email)));

/** Counts only (rates follow from them); `sent` stays, `delivered` = sent - bounced. */
function counts(sent: number, c: { bounced?: number; complained?: number } = {}) {
  const bounced = c.bounced ?? 0;
  return { sent, delivered: sent - bounced, opened: 0, clicked: 0, bounced, complained: c.complained ?? 0, unsubscribed: 0 };
}

// ---------------------------------------------------------------------------------------------
// Posting helpers: each provider's body as text, with its own content type.

function post(provider: string, body: string, opts: { token?: string | null; headers?: Record<string, string>; contentType?: string } = {}) {
  const t = opts.token === undefined ? token : opts.token;
  const query = t === null ? '' : `?token=${encodeURIComponent(t)}`;
  return server.request('POST', `/webhooks/${provider}${query}`, { rawBody: body, headers: { 'content-type': opts.contentType ?? 'application/json', ...opts.headers } });
}

function expectResult(res: ApiResponse, data: { received: number; matched: number; recorded: number }) {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toEqual({ success: true, data });
}

function expectError(res: ApiResponse, status: number, code: string, mentions?: string | RegExp) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  if (mentions) expect(res.body.error.message).toMatch(mentions);
}

// Amazon SES through SNS (HTTPS subscription): SNS posts text/plain JSON envelopes.
const SNS_CONTENT_TYPE = 'text/plain; charset=UTF-8';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback';

function snsNotification(sesMessage: unknown): string {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: TOPIC,
    Message: JSON.stringify(sesMessage),
    Timestamp: '2026-03-02T10:15:31.123Z',
    SignatureVersion: '1',
    Signature: Buffer.from('not checkable offline').toString('base64'),
    SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
    UnsubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC}:${randomUUID()}`,
  });
}

/** SES's `mail` object: its own messageId, and (with "include original headers") ours in headers and commonHeaders. */
function sesMail(r: Recipient, opts: { headers?: 'all' | 'common' | 'none' } = {}) {
  const mail: Record<string, unknown> = {
    timestamp: '2026-03-02T10:15:29.000Z',
    source: FROM,
    sourceArn: 'arn:aws:ses:eu-west-1:123456789012:identity/sendwell.test',
    sourceIp: '203.0.113.7',
    sendingAccountId: '123456789012',
    messageId: '0102018e0a1b2c3d-5e6f7a8b-1111-2222-3333-444455556666-000000',
    destination: [r.email],
  };
  const headers = opts.headers ?? 'all';
  if (headers !== 'none') {
    mail.headersTruncated = false;
    mail.commonHeaders = { from: [`News <${FROM}>`], to: [r.email], messageId: r.messageId, subject: 'Hello Ann' };
    if (headers === 'all') {
      mail.headers = [
        { name: 'From', value: `News <${FROM}>` },
        { name: 'To', value: r.email },
        { name: 'Subject', value: 'Hello Ann' },
        { name: 'Message-ID', value: r.messageId },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
        { name: 'MIME-Version', value: '1.0' },
      ];
    }
  }
  return mail;
}

function sesBounce(r: Recipient, bounceType: 'Permanent' | 'Transient' = 'Permanent', opts: { headers?: 'all' | 'common' | 'none'; field?: 'notificationType' | 'eventType' } = {}) {
  return {
    [opts.field ?? 'notificationType']: 'Bounce',
    bounce: {
      bounceType,
      bounceSubType: bounceType === 'Permanent' ? 'General' : 'MailboxFull',
      bouncedRecipients: [{ emailAddress: r.email, action: 'failed', status: bounceType === 'Permanent' ? '5.1.1' : '4.2.2', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
      timestamp: '2026-03-02T10:15:30.237Z',
      feedbackId: '0102018e0a1b2c3d-aaaa-bbbb-cccc-ddddeeeeffff-000000',
      remoteMtaIp: '198.51.100.25',
      reportingMTA: 'dsn; a8-50.smtp-out.amazonses.com',
    },
    mail: sesMail(r, opts),
  };
}

function sesComplaint(r: Recipient, opts: { headers?: 'all' | 'common' | 'none'; field?: 'notificationType' | 'eventType'; feedbackType?: string } = {}) {
  return {
    [opts.field ?? 'notificationType']: 'Complaint',
    complaint: {
      userAgent: 'ExampleCorp Feedback Loop (V0.01)',
      complainedRecipients: [{ emailAddress: r.email }],
      complaintFeedbackType: opts.feedbackType ?? 'abuse',
      arrivalDate: '2026-03-02T10:20:00.000Z',
      timestamp: '2026-03-02T10:20:01.000Z',
      feedbackId: '0102018e0a1b2c3d-9999-8888-7777-666655554444-000000',
    },
    mail: sesMail(r, opts),
  };
}

// SendGrid's Event Webhook: an array of events; smtp-id is our Message-ID, sg_message_id SendGrid's own.
function sendgridEvent(r: Recipient, event: string, extra: Record<string, unknown> = {}) {
  return {
    email: r.email,
    timestamp: 1772446530,
    'smtp-id': r.messageId,
    event,
    category: ['newsletter'],
    sg_event_id: `sg_event_${randomUUID()}`,
    sg_message_id: `14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.${r.id}`,
    ...extra,
  };
}

function sendgridSignature(privateKey: KeyObject, timestamp: string, body: string): Record<string, string> {
  return {
    'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(timestamp + body), privateKey).toString('base64'),
    'x-twilio-email-event-webhook-timestamp': timestamp,
  };
}

// The generic format, signed with the install's webhook token as HMAC key.
function genericBody(events: Record<string, unknown>[]): string {
  return JSON.stringify({ events });
}

function genericSignature(body: string, t = Math.floor(Date.now() / 1000), secret = token): Record<string, string> {
  return { 'x-sendwell-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` };
}

// ---------------------------------------------------------------------------------------------

describe('POST /webhooks/ses (SNS notifications)', () => {
  it('counts a permanent bounce once within sent (D13), makes the contact BOUNCED (D11), and a replay changes nothing', async () => {
    const { campaignId, listId, recipients } = await sentCampaign(3);
    expect(await statistics(campaignId)).toMatchObject(counts(3));
    const body = snsNotification(sesBounce(recipients[0]));

    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 1 });
    const after = await statistics(campaignId);
    expect(after).toMatchObject(counts(3, { bounced: 1 }));
    expect(after.bounce_rate).toBe(33.33);
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED', 'SUBSCRIBED']);
    const row = (await recipientRows(campaignId)).find((r) => r.id === recipients[0].id)!;
    expect(row.status).toBe('BOUNCED');
    expect(row.bounced_at).not.toBeNull();

    // SNS delivers at least once: the same notification again is matched but changes nothing.
    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 0 });
    expect(await statistics(campaignId)).toEqual(after);
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED', 'SUBSCRIBED']);

    // D13: the audience is SUBSCRIBED contacts only, so the next campaign to the list leaves the bounced one out.
    const next = await ok(api('POST', '/api/v1/campaigns', { name: 'Next', subject: 'Again', from_email: FROM, text: 'Hi', list_ids: [listId] }));
    expect((await ok(api('POST', `/api/v1/campaigns/${next.id}/send`))).total_recipients).toBe(2);
    expect((await recipientRows(next.id)).map((r) => r.email).sort()).toEqual([recipients[1].email, recipients[2].email]);

    // Once the operator subscribes the contact again (D11 PUT), a late replay does not undo that.
    await ok(api('PUT', `/api/v1/contacts/${encodeURIComponent(recipients[0].email)}`, { status: 'SUBSCRIBED' }));
    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 0 });
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED', 'SUBSCRIBED', 'SUBSCRIBED']);
    expect(await statistics(campaignId)).toEqual(after);
  });

  it('counts a complaint once and makes the contact COMPLAINED (D11); a replay changes nothing', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    const body = snsNotification(sesComplaint(recipients[1]));
    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 1 });
    const after = await statistics(campaignId);
    expect(after).toMatchObject(counts(2, { complained: 1 }));
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED', 'COMPLAINED']);

    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 0 });
    expect(await statistics(campaignId)).toEqual(after);
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED', 'COMPLAINED']);

    // Even after the operator subscribes the contact again (D11 PUT), a late replay does not undo that.
    await ok(api('PUT', `/api/v1/contacts/${encodeURIComponent(recipients[1].email)}`, { status: 'SUBSCRIBED' }));
    expectResult(await post('ses', body, { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 0 });
    expect(await statistics(campaignId)).toEqual(after);
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED', 'SUBSCRIBED']);
  });

  it('counts a transient bounce for the message but leaves the contact SUBSCRIBED; a later permanent bounce of it makes the contact BOUNCED without counting twice', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    expectResult(await post('ses', snsNotification(sesBounce(recipients[0], 'Transient')), { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 1 }));
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED', 'SUBSCRIBED']);
    expect((await recipientRows(campaignId))[0]).toMatchObject({ id: recipients[0].id, status: 'SENT' });

    expectResult(await post('ses', snsNotification(sesBounce(recipients[0], 'Permanent')), { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 1 }));
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED']);
  });

  it('reads event publishing records (eventType) and raw message delivery (no envelope), matching on commonHeaders.messageId', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    expectResult(await post('ses', JSON.stringify(sesBounce(recipients[0], 'Permanent', { field: 'eventType', headers: 'common' }))), { received: 1, matched: 1, recorded: 1 });
    expectResult(await post('ses', snsNotification(sesComplaint(recipients[1], { field: 'eventType', headers: 'common' })), { contentType: SNS_CONTENT_TYPE }), {
      received: 1,
      matched: 1,
      recorded: 1,
    });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 1, complained: 1 }));
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'COMPLAINED']);
  });

  it('skips what is not a bounce or complaint: deliveries, "not-spam" feedback, other messages on the topic; without the original headers nothing can be matched', async () => {
    const { campaignId, recipients } = await sentCampaign(1);
    const delivery = { notificationType: 'Delivery', mail: sesMail(recipients[0]), delivery: { timestamp: '2026-03-02T10:15:31.000Z', recipients: [recipients[0].email], smtpResponse: '250 ok' } };
    expectResult(await post('ses', snsNotification(delivery), { contentType: SNS_CONTENT_TYPE }), { received: 0, matched: 0, recorded: 0 });
    expectResult(await post('ses', snsNotification(sesComplaint(recipients[0], { feedbackType: 'not-spam' })), { contentType: SNS_CONTENT_TYPE }), { received: 0, matched: 0, recorded: 0 });
    const testMessage = JSON.parse(snsNotification({}));
    testMessage.Message = 'hello from the SNS console';
    expectResult(await post('ses', JSON.stringify(testMessage), { contentType: SNS_CONTENT_TYPE }), { received: 0, matched: 0, recorded: 0 });
    expectResult(await post('ses', snsNotification(sesBounce(recipients[0], 'Permanent', { headers: 'none' })), { contentType: SNS_CONTENT_TYPE }), { received: 1, matched: 0, recorded: 0 });
    expect(await statistics(campaignId)).toMatchObject(counts(1));
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED']);
  });

  it('answers a SubscriptionConfirmation 200 without fetching its SubscribeURL (or anything else)', async () => {
    const hits: string[] = [];
    const sns: Server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    await new Promise<void>((resolve) => sns.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(sns.address() as AddressInfo).port}`;
    try {
      const confirmation = JSON.stringify({
        Type: 'SubscriptionConfirmation',
        MessageId: randomUUID(),
        Token: '2336412f37fb687f5d51e6e2425c464de12884ea6a1e4e9a7b5d0a9a1c0b4d1e',
        TopicArn: TOPIC,
        Message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
        SubscribeURL: `${base}/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37fb`,
        Timestamp: '2026-03-02T10:00:00.000Z',
        SignatureVersion: '1',
        Signature: Buffer.from('signature').toString('base64'),
        SigningCertURL: `${base}/SimpleNotificationService.pem`,
      });
      expectResult(await post('ses', confirmation, { contentType: SNS_CONTENT_TYPE }), { received: 0, matched: 0, recorded: 0 });
      // Without the token it is refused like any other SNS post.
      expectError(await post('ses', confirmation, { token: null, contentType: SNS_CONTENT_TYPE }), 401, 'UNAUTHORIZED');
      expect(hits).toEqual([]);
    } finally {
      await new Promise((resolve) => sns.close(resolve));
    }
  });

  it('refuses a post without the token or with a wrong one: 401 in the reference error form (D7), nothing applied', async () => {
    const { campaignId, recipients } = await sentCampaign(1);
    const body = snsNotification(sesBounce(recipients[0]));
    const wrong = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    for (const t of [null, '', wrong, token.toUpperCase(), `${token}0`]) {
      expectError(await post('ses', body, { token: t, contentType: SNS_CONTENT_TYPE }), 401, 'UNAUTHORIZED');
    }
    // An API key is no substitute for the webhook token.
    const withKey = await server.request('POST', '/webhooks/ses', { key, rawBody: body, headers: { 'content-type': SNS_CONTENT_TYPE } });
    expectError(withKey, 401, 'UNAUTHORIZED');
    expect(await statistics(campaignId)).toMatchObject(counts(1));
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED']);
  });

  it('authenticates before reading the body (D8), then answers malformed bodies 400 INVALID_REQUEST (D7)', async () => {
    expectError(await post('ses', '{not json', { token: null }), 401, 'UNAUTHORIZED');
    expectError(await post('ses', '{not json'), 400, 'INVALID_REQUEST', /JSON/);
    expectError(await post('ses', ''), 400, 'INVALID_REQUEST', /JSON/);
    expectError(await post('ses', '[1, 2]'), 400, 'INVALID_REQUEST');
    expectError(await post('ses', JSON.stringify({ Type: 'Notification', Message: { not: 'a string' } })), 400, 'INVALID_REQUEST', /Message/);
    expectError(await post('ses', JSON.stringify({ hello: 'world' })), 400, 'INVALID_REQUEST');
  });
});

describe('POST /webhooks/sendgrid (Event Webhook)', () => {
  it('applies bounce, dropped (bounced address) and spamreport events, skips the rest, and a replayed batch changes nothing', async () => {
    const { campaignId, recipients } = await sentCampaign(5);
    const [hard, blocked, dropped, complainer, delivered] = recipients;
    const batch = JSON.stringify([
      sendgridEvent(delivered, 'processed'),
      sendgridEvent(delivered, 'delivered', { response: '250 OK' }),
      sendgridEvent(hard, 'bounce', { type: 'bounce', reason: '550 5.1.1 The email account that you tried to reach does not exist.', status: '5.1.1', bounce_classification: 'Invalid Address' }),
      sendgridEvent(blocked, 'bounce', { type: 'blocked', reason: '421 4.7.0 Try again later', status: '4.7.0', bounce_classification: 'Reputation' }),
      sendgridEvent(dropped, 'dropped', { reason: 'Bounced Address', status: '5.0.0' }),
      sendgridEvent(delivered, 'dropped', { reason: 'Unsubscribed Address', status: '5.0.0' }),
      sendgridEvent(complainer, 'spamreport'),
      sendgridEvent(delivered, 'open', { useragent: 'Mozilla/5.0', ip: '198.51.100.1' }),
    ]);
    expectResult(await post('sendgrid', batch), { received: 4, matched: 4, recorded: 4 });
    const after = await statistics(campaignId);
    expect(after).toMatchObject(counts(5, { bounced: 3, complained: 1 }));
    // The blocked (soft) bounce counts for its message; only hard bounces change the contact.
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED', 'BOUNCED', 'COMPLAINED', 'SUBSCRIBED']);

    // SendGrid retries a batch it thinks failed: the same batch again changes nothing.
    expectResult(await post('sendgrid', batch), { received: 4, matched: 4, recorded: 0 });
    expect(await statistics(campaignId)).toEqual(after);
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED', 'BOUNCED', 'COMPLAINED', 'SUBSCRIBED']);
  });

  it('accepts the Signed Event Webhook (ECDSA over timestamp + raw body) without the token, and refuses an altered body or another key', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    const body = JSON.stringify([sendgridEvent(recipients[0], 'bounce', { type: 'bounce', status: '5.1.1', reason: '550 no such user' })]);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signed = sendgridSignature(sendgridKeys.privateKey, timestamp, body);

    // Altered after signing: the other recipient instead.
    const altered = body.replace(recipients[0].messageId, recipients[1].messageId).replace(recipients[0].email, recipients[1].email);
    expectError(await post('sendgrid', altered, { token: null, headers: signed }), 401, 'UNAUTHORIZED', /signature/);
    // Another timestamp than the one signed.
    expectError(await post('sendgrid', body, { token: null, headers: { ...signed, 'x-twilio-email-event-webhook-timestamp': String(Number(timestamp) + 1) } }), 401, 'UNAUTHORIZED');
    // Signed by a key that is not the configured one.
    expectError(await post('sendgrid', body, { token: null, headers: sendgridSignature(otherKeys.privateKey, timestamp, body) }), 401, 'UNAUTHORIZED');
    // Garbage, and nothing at all.
    expectError(await post('sendgrid', body, { token: null, headers: { ...signed, 'x-twilio-email-event-webhook-signature': 'bm90IGEgc2lnbmF0dXJl' } }), 401, 'UNAUTHORIZED');
    expectError(await post('sendgrid', body, { token: null }), 401, 'UNAUTHORIZED');
    expect(await statistics(campaignId)).toMatchObject(counts(2));

    expectResult(await post('sendgrid', body, { token: null, headers: signed }), { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 1 }));
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'SUBSCRIBED']);
  });

  it('refuses a wrong token (401) and a body that is not an event array once authenticated (400)', async () => {
    const { recipients } = await sentCampaign(1);
    const body = JSON.stringify([sendgridEvent(recipients[0], 'spamreport')]);
    expectError(await post('sendgrid', body, { token: 'f'.repeat(64) }), 401, 'UNAUTHORIZED');
    expectError(await post('sendgrid', '{"event":"bounce"}'), 400, 'INVALID_REQUEST', /array/);
    expectError(await post('sendgrid', '[{"event":'), 400, 'INVALID_REQUEST', /JSON/);
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED']);
  });
});

describe('POST /webhooks/generic (signed JSON)', () => {
  it('applies events with the URL token or with X-Sendwell-Signature; replays change nothing', async () => {
    const { campaignId, recipients } = await sentCampaign(3);
    const byToken = genericBody([{ type: 'bounce', message_id: recipients[0].messageId, email: recipients[0].email, occurred_at: new Date().toISOString() }]);
    expectResult(await post('generic', byToken), { received: 1, matched: 1, recorded: 1 });

    const signed = genericBody([
      { type: 'complaint', message_id: recipients[1].messageId },
      { type: 'bounce', message_id: recipients[2].messageId, hard: false },
    ]);
    const signature = genericSignature(signed);
    expectResult(await post('generic', signed, { token: null, headers: signature }), { received: 2, matched: 2, recorded: 2 });
    const after = await statistics(campaignId);
    expect(after).toMatchObject(counts(3, { bounced: 2, complained: 1 }));
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'COMPLAINED', 'SUBSCRIBED']);

    // The same signed request replayed within its 5 minutes, and the token one again: nothing changes.
    expectResult(await post('generic', signed, { token: null, headers: signature }), { received: 2, matched: 2, recorded: 0 });
    expectResult(await post('generic', byToken), { received: 1, matched: 1, recorded: 0 });
    expect(await statistics(campaignId)).toEqual(after);
    expect(await statuses(recipients)).toEqual(['BOUNCED', 'COMPLAINED', 'SUBSCRIBED']);
  });

  it('keeps COMPLAINED when a hard bounce follows a complaint, and turns BOUNCED into COMPLAINED (a complaint is the stronger status)', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    expectResult(await post('generic', genericBody([{ type: 'complaint', message_id: recipients[0].messageId }, { type: 'bounce', message_id: recipients[1].messageId }])), {
      received: 2,
      matched: 2,
      recorded: 2,
    });
    expectResult(await post('generic', genericBody([{ type: 'bounce', message_id: recipients[0].messageId }, { type: 'complaint', message_id: recipients[1].messageId }])), {
      received: 2,
      matched: 2,
      recorded: 2,
    });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 2, complained: 2 }));
    expect(await statuses(recipients)).toEqual(['COMPLAINED', 'COMPLAINED']);
  });

  it('refuses a wrong signature, a signature for another body, and a timestamp outside 5 minutes: 401', async () => {
    const { campaignId, recipients } = await sentCampaign(1);
    const body = genericBody([{ type: 'bounce', message_id: recipients[0].messageId }]);
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string>[] = [
      genericSignature(body, now, 'not-the-token'),
      genericSignature(body.replace('bounce', 'complaint'), now),
      { 'x-sendwell-signature': `t=${now},v1=${'0'.repeat(64)}` },
      { 'x-sendwell-signature': `v1=${createHmac('sha256', token).update(body).digest('hex')}` },
      { 'x-sendwell-signature': 'garbage' },
    ];
    for (const headers of cases) expectError(await post('generic', body, { token: null, headers }), 401, 'UNAUTHORIZED', /signature/i);
    // Correctly signed, but too old or too far ahead.
    expectError(await post('generic', body, { token: null, headers: genericSignature(body, now - 600) }), 401, 'UNAUTHORIZED', /5 minutes/);
    expectError(await post('generic', body, { token: null, headers: genericSignature(body, now + 600) }), 401, 'UNAUTHORIZED', /5 minutes/);
    expectError(await post('generic', body, { token: null }), 401, 'UNAUTHORIZED');
    expectError(await post('generic', body, { token: 'wrong' }), 401, 'UNAUTHORIZED');
    expect(await statistics(campaignId)).toMatchObject(counts(1));
    expect(await statuses(recipients)).toEqual(['SUBSCRIBED']);
  });

  it('validates its own format once authenticated: 400 INVALID_REQUEST naming the field (D7)', async () => {
    const bad: [string, RegExp][] = [
      ['{"events": [', /JSON/],
      ['{}', /events/],
      ['{"events": []}', /events/],
      [genericBody([{ type: 'open', message_id: '<a@b>' }]), /events\[0\]\.type/],
      [genericBody([{ type: 'bounce', message_id: '<a@b>' }, { type: 'bounce' }]), /events\[1\]\.message_id/],
      [genericBody([{ type: 'bounce', message_id: '<a@b>', hard: 'yes' }]), /events\[0\]\.hard/],
      [genericBody([{ type: 'bounce', message_id: '<a@b>', occurred_at: 'yesterday' }]), /events\[0\]\.occurred_at/],
      [JSON.stringify({ events: Array.from({ length: 1001 }, () => ({ type: 'bounce', message_id: '<a@b>' })) }), /1000/],
    ];
    for (const [body, mentions] of bad) {
      expectError(await post('generic', body), 400, 'INVALID_REQUEST', mentions);
      // D8: without credentials the same bodies are 401, not 400.
      expectError(await post('generic', body, { token: null }), 401, 'UNAUTHORIZED');
    }
  });
});

describe('matching events to recipients', () => {
  it('ignores forged, foreign and cross-campaign Message-IDs (200, matched 0), changing nothing', async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    const other = await sentCampaign(1);
    const real = recipients[0].messageId;
    const [, c, r, sig, domain] = /^<c(\d+)\.r(\d+)\.([^@]+)@(.+)>$/.exec(real)!;
    const forgedSig = sig[0] === 'A' ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    const forged = [
      `<c${c}.r${r}.${forgedSig}@${domain}>`, // signature altered
      `<c${c}.r${recipients[1].id}.${sig}@${domain}>`, // another recipient under this signature
      `<c${other.campaignId}.r${r}.${sig}@${domain}>`, // another campaign under this signature
      '<0102018e0a1b2c3d.abc@eu-west-1.amazonses.com>', // not ours at all
      `<c${c}.r999999999.${sig}@${domain}>`,
      '',
    ];
    const res = await post('generic', genericBody(forged.filter(Boolean).map((id) => ({ type: 'complaint', message_id: id }))));
    expectResult(res, { received: 5, matched: 0, recorded: 0 });
    expectResult(await post('sendgrid', JSON.stringify(forged.map((id) => ({ ...sendgridEvent(recipients[0], 'bounce', { type: 'bounce' }), 'smtp-id': id })))), {
      received: 6,
      matched: 0,
      recorded: 0,
    });
    expect(await statistics(campaignId)).toMatchObject(counts(2));
    expect(await statistics(other.campaignId)).toMatchObject(counts(1));
    expect(await statuses([...recipients, ...other.recipients])).toEqual(['SUBSCRIBED', 'SUBSCRIBED', 'SUBSCRIBED']);
  });

  it("still counts a deleted contact's message (D11: deleting a contact never changes a sent campaign's statistics), and a deleted campaign's (D17.3: its messages were delivered)", async () => {
    const { campaignId, recipients } = await sentCampaign(2);
    await ok(api('DELETE', `/api/v1/contacts/${encodeURIComponent(recipients[0].email)}`));
    expectResult(await post('generic', genericBody([{ type: 'complaint', message_id: recipients[0].messageId }])), { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { complained: 1 }));
    expect(await statuses([recipients[1]])).toEqual(['SUBSCRIBED']);

    // D17.3: a deleted campaign that sent mail keeps its recipients, so a bounce of its message still counts.
    await ok(api('DELETE', `/api/v1/campaigns/${campaignId}`));
    expectResult(await post('generic', genericBody([{ type: 'bounce', message_id: recipients[1].messageId }])), { received: 1, matched: 1, recorded: 1 });
    expect(await statuses([recipients[1]])).toEqual(['BOUNCED']);
  });

  it('asks the provider to retry (503 + Retry-After) while the named message is not recorded as sent yet, and counts it once it is', async () => {
    const { campaignId, emails } = await campaignToNewList(2);
    await ok(api('POST', `/api/v1/campaigns/${campaignId}/send`));
    const rows = await recipientRows(campaignId);
    expect(rows.map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    // The Message-ID the dispatcher will give it (fixed per campaign and recipient): as if the provider reported before we recorded the send.
    const target = rows.find((r) => r.email === emails[0])!;
    const messageId = messageIdFor(server.core.signer, campaignId, target.id, 'sendwell.test');
    const body = genericBody([{ type: 'bounce', message_id: messageId }]);

    const early = await post('generic', body);
    expectError(early, 503, 'RETRY_LATER');
    expect(early.headers.get('retry-after')).toBe('60');
    expect((await recipientRows(campaignId)).map((r) => [r.status, r.bounced_at])).toEqual([
      ['PENDING', null],
      ['PENDING', null],
    ]);

    await sendUntilSent(campaignId);
    expect((await recipientRows(campaignId)).find((r) => r.id === target.id)!.message_id).toBe(messageId);
    expectResult(await post('generic', body), { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(2, { bounced: 1 }));
    expect(await contactStatus(emails[0])).toBe('BOUNCED');
  });
});

describe('operator surface', () => {
  it('`sendwell webhooks url --provider` prints each URL with the same token, which the server accepts', async () => {
    const { campaignId, recipients } = await sentCampaign(1);
    // Printed in beforeAll (cliWebhookUrl checked each is PUBLIC_URL/webhooks/<provider>?token=<64 hex>): one token for all.
    for (const url of Object.values(urls)) expect(new URL(url).searchParams.get('token')).toBe(token);
    const res = await server.request('POST', urls.generic.slice(server.url.length), { rawBody: genericBody([{ type: 'complaint', message_id: recipients[0].messageId }]), headers: { 'content-type': 'application/json' } });
    expectResult(res, { received: 1, matched: 1, recorded: 1 });
    expect(await statistics(campaignId)).toMatchObject(counts(1, { complained: 1 }));

    const refused = await cli(['webhooks', 'url', '--provider', 'mailgun']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
  }, 90_000);

  it("documents the three routes in OpenAPI as keyless (security: []) with a summary, the Provider feedback tag (not the outbound endpoints' Webhooks) and their answers", async () => {
    const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
    const tag = doc.tags.find((t: { name: string }) => t.name === 'Provider feedback');
    expect(tag.description).toMatch(/providers/);
    expect(doc.paths['/api/v1/webhooks'].get.tags).toEqual(['Webhooks']);
    for (const provider of ['ses', 'sendgrid', 'generic']) {
      const op = doc.paths[`/webhooks/${provider}`].post;
      expect(op.security).toEqual([]);
      expect(op.tags).toEqual(['Provider feedback']);
      expect(op.summary).toEqual(expect.any(String));
      expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '413', '500', '503']);
      expect(op.parameters).toEqual([expect.objectContaining({ in: 'query', name: 'token', required: false })]);
    }
  });
});
