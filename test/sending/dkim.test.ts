/**
 * D23: mail whose From domain has a verified DKIM record in its account is DKIM-signed
 * (relaxed/relaxed), campaigns, test sends and automation messages alike, and the signature
 * verifies against the published key: checked by an independent verifier (mailauth) on the raw
 * message the SMTP server received, its key looked up in the same test DNS server the API used.
 */
import { dkimVerify } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAutomation, allEnded, event, waitForRuns } from '../automations/helpers.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, rawHeader, sendable, tenant, type Tenant } from './send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';

let dns: TestDnsServer;
let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let domain: { id: number; selector: string; records: { name: string; value: string }[] };

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, DNS_SERVERS: dns.address, ...FAST_SENDING });
  server.sender.dispatcher.start();
  server.sender.automationRunner.start();
  t = await tenant(server);
  domain = (await t.call('POST', '/api/v1/domains', { domain: 'signed.test' })).body.data;
  for (const r of domain.records) dns.setTxt(r.name, r.value);
  expect((await t.call('POST', `/api/v1/domains/${domain.id}/verify`)).body.data.dkim_verified).toBe(true);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  await dns?.close();
});

/** What mailauth makes of the message's signatures, keys looked up in the test DNS server. */
async function verifyDkim(m: ReceivedMessage) {
  const { results } = await dkimVerify(Buffer.from(m.raw), { resolver: (name: string, rr: string) => dns.resolver.resolve(name, rr as 'TXT') as Promise<string[][]> });
  return results.map((r) => ({ result: r.status.result, domain: r.signingDomain, selector: r.selector, canonicalization: (r as { format?: string }).format }));
}

const signedBy = () => [{ result: 'pass', domain: 'signed.test', selector: domain.selector, canonicalization: 'relaxed/relaxed' }];

async function sendCampaign(who: Tenant, fromEmail: string, emails: string[]) {
  const list = await who.list(`List ${fromEmail} ${emails[0]}`);
  for (const email of emails) await who.contact({ email, first_name: 'Ann', list_id: list });
  const campaign = await who.campaign(sendable([list], { from_email: fromEmail }));
  await who.send(campaign.id);
  await who.waitForStatus(campaign.id, 'SENT');
  return messagesOfCampaign(sink.messages, campaign.id);
}

describe('DKIM signing (D23)', () => {
  it("a campaign from the verified domain, in any case: every message signed with the domain's key, and it verifies", async () => {
    const to = addressMaker('dkim');
    const messages = await sendCampaign(t, 'News@SIGNED.Test', [to('ann'), to('bob'), to('cat')]);
    expect(messages).toHaveLength(3);
    for (const m of messages) {
      expect(rawHeader(m.raw, 'DKIM-Signature')).toHaveLength(1);
      expect(await verifyDkim(m)).toEqual(signedBy());
    }
  });

  it('a test send is signed too', async () => {
    const list = await t.list('Test send list');
    const campaign = await t.campaign(sendable([list], { from_email: 'news@signed.test' }));
    const to = addressMaker('dkimtest')('qa');
    const res = await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [to] });
    expect(res.status, res.text).toBe(200);
    const [m] = await waitForMail(to);
    expect(await verifyDkim(m)).toEqual(signedBy());
  });

  it('an automation message is signed too', async () => {
    const to = addressMaker('dkimflow')('dan');
    await t.contact({ email: to });
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'joined' },
      steps: [{ type: 'SEND_EMAIL', subject: 'Welcome', from_email: 'hello@signed.test', html: '<p>Hi</p>' }],
    });
    expect((await event(server, t.key, { email: to, event: 'joined' })).status).toBe(202);
    await waitForRuns(t, id, allEnded(1));
    const [m] = await waitForMail(to);
    expect(await verifyDkim(m)).toEqual(signedBy());
  });

  it('mail from a domain added but not verified, from no domain of the account, or from another account\'s verified domain is not signed', async () => {
    expect((await t.call('POST', '/api/v1/domains', { domain: 'unverified.test' })).status).toBe(200);
    const to = addressMaker('nodkim');
    const other = await tenant(server);
    const messages = [
      ...(await sendCampaign(t, 'news@unverified.test', [to('a')])),
      ...(await sendCampaign(t, 'news@elsewhere.test', [to('b')])),
      ...(await sendCampaign(other, 'news@signed.test', [to('c')])),
    ];
    expect(messages).toHaveLength(3);
    for (const m of messages) {
      expect(rawHeader(m.raw, 'DKIM-Signature')).toEqual([]);
      expect(await verifyDkim(m)).toEqual([expect.objectContaining({ result: 'none' })]);
    }
  });

  it('once the record is gone and verification says so, mail is no longer signed', async () => {
    const d = (await t.call('POST', '/api/v1/domains', { domain: 'lapsed.test' })).body.data;
    for (const r of d.records) dns.setTxt(r.name, r.value);
    expect((await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data.dkim_verified).toBe(true);
    const to = addressMaker('lapsed');
    const [signed] = await sendCampaign(t, 'news@lapsed.test', [to('a')]);
    expect((await verifyDkim(signed))[0]).toMatchObject({ result: 'pass', domain: 'lapsed.test' });

    dns.setTxt(d.records[0].name);
    expect((await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data.dkim_verified).toBe(false);
    const [unsigned] = await sendCampaign(t, 'news@lapsed.test', [to('b')]);
    expect(rawHeader(unsigned.raw, 'DKIM-Signature')).toEqual([]);
  });
});

/** The message(s) to `address`, once there. */
async function waitForMail(address: string): Promise<ReceivedMessage[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = sink.to(address);
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${address}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
