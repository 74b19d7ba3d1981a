/**
 * Issue 28 M2: a list's confirmation mail carried the account's own subject and text from the
 * operator's MAIL_FROM, set with only `lists.write` and `contacts.write`: "Security alert: your
 * mailbox will be closed" with an attacker's link went to any address, 1,000 per call. Rule 4: the
 * confirmation mail is a fixed text naming only the account and the lists; a list's own words need
 * `campaigns.send` to set, and go only from the account's DKIM-verified domain, signed. The mail is
 * read as a real SMTP server received it; DKIM is checked by an independent verifier (mailauth).
 */
import { dkimVerify } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';

let dns: TestDnsServer;
let sink: SmtpSink;
let server: TestServer;
let owner: Tenant;
let attacker: Tenant;
const at = addressMaker('m2');
const SCAM = { confirmation_subject: 'Security alert: your mailbox will be closed', confirmation_text: 'Verify now at https://evil.example/login or lose your mail. {{ confirm_url }}' };

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, DNS_SERVERS: dns.address, ...FAST_SENDING });
  owner = await tenant(server);
  // Issue 28 M2's key: lists and contacts, no campaigns.send.
  attacker = await tenant(server, ['lists.read', 'lists.write', 'contacts.read', 'contacts.write']);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  await dns?.close();
});

async function mailTo(email: string): Promise<ReceivedMessage> {
  const deadline = Date.now() + 10_000;
  while (sink.to(email).length === 0) {
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(sink.to(email)).toHaveLength(1);
  return sink.to(email)[0];
}

/** Asks `who`'s double list to confirm a new contact at a fresh address; answers the mail it got. */
async function confirmationTo(who: Tenant, listId: number, label: string): Promise<ReceivedMessage> {
  const email = at(label);
  const res = await who.call('POST', '/api/v1/contacts', { email, list_id: listId, double_opt_in: true });
  expect(res.status, res.text).toBe(200);
  return mailTo(email);
}

function expectFixedMail(mail: ReceivedMessage, list: string) {
  expect(mail.subject).toBe(`Please confirm your subscription to ${list}`);
  expect(mail.text).toContain(`(${list}) at this address`);
  expect(mail.text).not.toContain('evil.example');
  expect(mail.html).not.toContain('evil.example');
  expect(mail.from?.value[0].address).toBe('no-reply@mail.example.test');
}

describe("M2: a list's confirmation mail says only the fixed text unless the account may mail and sends from its verified domain", () => {
  it('M2: a key with lists.write and contacts.write cannot give a list its own words (403, nothing stored); its mail is the fixed one', async () => {
    const created = await attacker.call('POST', '/api/v1/lists', { name: 'Mailbox', opt_in: 'double', ...SCAM });
    expect(created.status, created.text).toBe(403);
    expect(created.body.error).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(created.body.error.message).toContain('campaigns.send');
    expect((await attacker.call('GET', '/api/v1/lists')).body.data.lists).toEqual([]);

    const list = (await attacker.call('POST', '/api/v1/lists', { name: 'Mailbox', opt_in: 'double' })).body.data.id;
    for (const body of [{ confirmation_subject: SCAM.confirmation_subject }, { confirmation_text: SCAM.confirmation_text }, { confirmation_from_email: 'it@evil.example' }]) {
      const put = await attacker.call('PUT', `/api/v1/lists/${list}`, body);
      expect(put.status, put.text).toBe(403);
      expect(put.body.error.code).toBe('PERMISSION_DENIED');
    }
    // Clearing them is the fixed mail, and needs nothing more.
    expect((await attacker.call('PUT', `/api/v1/lists/${list}`, { confirmation_subject: null, confirmation_text: '' })).status).toBe(200);
    expectFixedMail(await confirmationTo(attacker, list, 'victim'), 'Mailbox');
  });

  it('M2: with campaigns.send but no verified domain the own words are refused a sender, and stored words without one still send the fixed mail', async () => {
    const refused = await owner.call('POST', '/api/v1/lists', { name: 'Nowhere', opt_in: 'double', ...SCAM, confirmation_from_email: 'news@unverified.test' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.message).toContain('confirmation_from_email');
    const list = (await owner.call('POST', '/api/v1/lists', { name: 'Words only', opt_in: 'double', ...SCAM })).body.data.id;
    expectFixedMail(await confirmationTo(owner, list, 'nosender'), 'Words only');
  });

  it("M2: with campaigns.send and a verified domain the own words go from the account's address, DKIM-signed; once the domain is gone, the fixed mail again", async () => {
    const domain = (await owner.call('POST', '/api/v1/domains', { domain: 'owner-m2.test' })).body.data;
    for (const r of domain.records) dns.setTxt(r.name, r.value);
    expect((await owner.call('POST', `/api/v1/domains/${domain.id}/verify`)).body.data.dkim_verified).toBe(true);
    const list = (await owner.call('POST', '/api/v1/lists', { name: 'Own words', opt_in: 'double', confirmation_subject: 'Join the club', confirmation_text: 'Hi! Tap {{ confirm_url }}', confirmation_from_email: 'Club@Owner-M2.test' })).body.data;
    expect(list.confirmation_from_email).toBe('club@owner-m2.test');

    const mail = await confirmationTo(owner, list.id, 'member');
    expect(mail.subject).toBe('Join the club');
    expect(mail.from?.value[0].address).toBe('club@owner-m2.test');
    const { results } = await dkimVerify(Buffer.from(mail.raw), { resolver: (name: string, rr: string) => dns.resolver.resolve(name, rr as 'TXT') as Promise<string[][]> });
    expect(results.map((r) => [r.status.result, r.signingDomain])).toEqual([['pass', 'owner-m2.test']]);

    expect((await owner.call('DELETE', `/api/v1/domains/${domain.id}`)).status).toBe(200);
    expectFixedMail(await confirmationTo(owner, list.id, 'after'), 'Own words');
  });
});
