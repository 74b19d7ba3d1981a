/**
 * D25.4: transactional mail has its own lane ahead of campaigns, under the same DKIM signing
 * (checked by an independent verifier, mailauth) and the same crash rule: a message claimed by a
 * sender that died is sent by the next one once its lease ends, and a sent one never again.
 */
import { dkimVerify } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, rawHeader, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let dns: TestDnsServer;
let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const to = addressMaker('lane');

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await startSmtpSink();
  // A short lease, so a message held by a "dead" sender comes back within the test.
  server = await startTestServer({ SMTP_URL: sink.url, DNS_SERVERS: dns.address, ...FAST_SENDING, SEND_LEASE_MS: '1000' });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  await dns?.close();
});

const send = (body: Record<string, unknown>) => t.call('POST', '/api/v1/messages', { from_email: 'app@example.com', subject: 'Receipt', text: 'Thanks', ...body });

describe('the lane (D25.4)', () => {
  it('a message queued while a campaign sends goes out in the next round before the rest of the campaign', async () => {
    const list = await t.list('Big list');
    const emails = Array.from({ length: 400 }, (_, i) => to(`bulk${i}`));
    const bulk = await t.call('POST', '/v1/contacts/bulk', { listId: String(list), contacts: emails.map((email) => ({ email })) });
    expect(bulk.status, bulk.text).toBeLessThan(300);
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    // The campaign has its first turns: it is well under way, most of it still to send.
    await server.sender.dispatcher.runOnce(0);
    const sentBefore = messagesOfCampaign(sink.messages, campaign.id).length;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(emails.length);

    const receipt = to('receipt');
    expect((await send({ to: receipt })).status).toBe(200);
    const from = sink.messages.length;
    await server.sender.dispatcher.runOnce(0);
    const round = sink.messages.slice(from);
    // The round's first jobs are the lane's: the receipt is among the first the slots took (20 run at once).
    const at = round.findIndex((m) => m.envelope.to.includes(receipt));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(20);
    expect(messagesOfCampaign(sink.messages, campaign.id).length).toBeLessThan(emails.length);
  });

  it('a message from a domain with a verified DKIM key is signed with it, and it verifies', async () => {
    const domain = (await t.call('POST', '/api/v1/domains', { domain: 'receipts.test' })).body.data;
    for (const r of domain.records) dns.setTxt(r.name, r.value);
    expect((await t.call('POST', `/api/v1/domains/${domain.id}/verify`)).body.data.dkim_verified).toBe(true);
    const address = to('signed');
    expect((await send({ to: address, from_email: 'billing@Receipts.test', html: '<p>Paid</p>' })).status).toBe(200);
    for (let i = 0; i < 20; i++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;
    const mail = sink.messages.find((m) => m.envelope.to.includes(address))!;
    expect(rawHeader(mail.raw, 'DKIM-Signature')).toHaveLength(1);
    const { results } = await dkimVerify(Buffer.from(mail.raw), { resolver: (name: string, rr: string) => dns.resolver.resolve(name, rr as 'TXT') as Promise<string[][]> });
    expect(results.map((r) => [r.status.result, r.signingDomain])).toEqual([['pass', 'receipts.test']]);
  });

  it('a message held by a sender that died is sent once its lease ends; a sent one is never claimed again', async () => {
    const address = to('crash');
    const { body } = await send({ to: address });
    // A sender claimed it and died before sending: the row is QUEUED under a lease that will lapse.
    await server.db.updateTable('messages').set({ claimed_until: new Date(Date.now() + 500).toISOString() }).where('id', '=', body.data.id).execute();
    await server.sender.dispatcher.runOnce(0);
    expect(sink.messages.filter((m) => m.envelope.to.includes(address))).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 600));
    for (let i = 0; i < 20; i++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;
    expect(sink.messages.filter((m) => m.envelope.to.includes(address))).toHaveLength(1);
    // Sent: however often the sender looks again, never a second time.
    await server.db.updateTable('messages').set({ due_at: new Date(0).toISOString() }).where('id', '=', body.data.id).execute();
    for (let i = 0; i < 3; i++) await server.sender.dispatcher.runOnce(0);
    expect(sink.messages.filter((m) => m.envelope.to.includes(address))).toHaveLength(1);
    expect((await t.call('GET', `/api/v1/messages/${body.data.id}`)).body.data.status).toBe('SENT');
  });
});
