import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// What the receiving SMTP server answers decides each recipient's fate (issue "Campaign
// sending", D13): 5xx on RCPT or DATA = sent and bounced (contact BOUNCED, left out later);
// 4xx = retried with backoff; no server at all = transport failure, past the budget FAILED, and
// `/send` resumes with only the recipients not yet sent.

const recipientsOf = (sink: SmtpSink, campaignId: number) => messagesOfCampaign(sink.messages, campaignId).map(recipientOf).sort();

/** A list holding the given addresses (SUBSCRIBED, first_name from the local part). */
async function listOf(t: Tenant, name: string, emails: string[]): Promise<number> {
  const list = await t.list(name);
  for (const email of emails) await t.contact({ email, first_name: email.split('.')[0], list_id: list });
  return list;
}

describe('5xx and 4xx answers', () => {
  let sink: SmtpSink;
  let server: TestServer;
  let t: Tenant;
  const at = addressMaker('answers');
  const ok = at('ok');
  const rcpt5xx = at('rcpt5xx');
  const data5xx = at('data5xx');
  const rcpt4xx = at('rcpt4xx');
  const data4xx = at('data4xx');
  /** Message-IDs of the DATA attempts the sink refused with a 4xx */
  const refusedIds: string[] = [];
  let list: number;
  let first: number;

  beforeAll(async () => {
    sink = await startSmtpSink({
      respond: ({ stage, address, attempt, raw }) => {
        if (stage === 'rcpt' && address === rcpt5xx) return { code: 550, message: '5.1.1 No such user' };
        if (stage === 'data' && address === data5xx) return { code: 554, message: '5.7.1 Message refused' };
        if (stage === 'rcpt' && address === rcpt4xx && attempt === 1) return { code: 451, message: '4.7.1 Greylisted' };
        if (stage === 'data' && address === data4xx && attempt === 1) {
          refusedIds.push(/^Message-ID:\s*(\S+)/im.exec(raw!)![1]);
          return { code: 452, message: '4.3.1 Insufficient storage' };
        }
      },
    });
    server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
    server.sender.dispatcher.start();
    t = await tenant(server);
    list = await listOf(t, 'Everyone', [ok, rcpt5xx, data5xx, rcpt4xx, data4xx]);
  });
  afterAll(async () => {
    await server?.close();
    await sink?.close();
  });

  it('sends to all five and ends SENT', async () => {
    first = (await t.campaign(sendable([list]))).id;
    expect((await t.send(first)).total_recipients).toBe(5);
    expect((await t.waitForStatus(first, ['SENT', 'FAILED'])).status).toBe('SENT');
  });

  it('a 5xx on RCPT or on DATA: the recipient is BOUNCED (sent and bounced), nothing arrives', async () => {
    const rows = await recipientRows(server, first);
    for (const [email, code] of [[rcpt5xx, '550'], [data5xx, '554']]) {
      const row = rows.get(email)!;
      expect(row.status).toBe('BOUNCED');
      expect(row.attempts).toBe(1);
      expect(row.sent_at).not.toBeNull();
      expect(row.bounced_at).not.toBeNull();
      expect(row.last_error).toContain(code);
      expect(row.message_id).toMatch(new RegExp(`^<c${first}\\.r${row.id}\\.`));
    }
    expect(sink.to(rcpt5xx)).toEqual([]);
    expect(sink.to(data5xx)).toEqual([]);
  });

  it('a 4xx on RCPT or on DATA is retried: delivered once, after 2 attempts, with the same Message-ID', async () => {
    expect(recipientsOf(sink, first)).toEqual([data4xx, ok, rcpt4xx].sort());
    const rows = await recipientRows(server, first);
    expect(rows.get(ok)).toMatchObject({ status: 'SENT', attempts: 1 });
    for (const email of [rcpt4xx, data4xx]) {
      expect(rows.get(email)).toMatchObject({ status: 'SENT', attempts: 2, claimed_until: null, bounced_at: null });
      expect(sink.to(email)).toHaveLength(1);
    }
    // The message the server refused with 452 and the one it took are the same message.
    expect(refusedIds).toEqual([rows.get(data4xx)!.message_id]);
    expect(sink.to(data4xx)[0].messageId).toBe(rows.get(data4xx)!.message_id);
    const tries = sink.events.filter((e) => e.stage === 'rcpt' && e.address === rcpt4xx).map((e) => e.code);
    expect(tries).toEqual([451, 250]);
  });

  it('statistics: bounced counts within sent (D13)', async () => {
    expect(await t.stats(first)).toMatchObject({ sent: 5, delivered: 3, bounced: 2, bounce_rate: 40, opened: 0, clicked: 0 });
  });

  it('the bounced contacts are BOUNCED; the others stay SUBSCRIBED', async () => {
    for (const email of [rcpt5xx, data5xx]) expect((await t.getContact(email)).status).toBe('BOUNCED');
    for (const email of [ok, rcpt4xx, data4xx]) expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
  });

  it('a later campaign to the same list skips the bounced contacts', async () => {
    const second = (await t.campaign(sendable([list]))).id;
    expect((await t.send(second)).total_recipients).toBe(3);
    expect((await t.waitForStatus(second, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect(recipientsOf(sink, second)).toEqual([data4xx, ok, rcpt4xx].sort());
    expect([...(await recipientRows(server, second)).keys()].sort()).toEqual([data4xx, ok, rcpt4xx].sort());
    expect(await t.stats(second)).toMatchObject({ sent: 3, delivered: 3, bounced: 0 });
  });
});

describe('a mail server that is down: FAILED past the budget, then resumed (D13)', () => {
  let sink: SmtpSink;
  let server: TestServer;
  let t: Tenant;
  const at = addressMaker('down');
  const everyone = ['a', 'b', 'c', 'd', 'e', 'f'].map(at);
  let id: number;
  /** the two recipients the first round reached */
  let sentFirst: string[] = [];

  beforeAll(async () => {
    sink = await startSmtpSink();
    // Driven round by round (runOnce(0): one batch per round): 2 recipients per round, one at a time; 2 transport failures fail the campaign.
    server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_BATCH_SIZE: '2', SEND_CONCURRENCY: '1', SEND_FAILURE_BUDGET: '2' });
    t = await tenant(server);
    id = (await t.campaign(sendable([await listOf(t, 'Six', everyone)]))).id;
  });
  afterAll(async () => {
    await server?.close();
    await sink?.close();
  });

  it('while the server answers, a round sends a batch', async () => {
    expect((await t.send(id)).total_recipients).toBe(6);
    expect(await server.sender.dispatcher.runOnce(0)).toBe(2);
    const rows = [...(await recipientRows(server, id)).values()];
    sentFirst = rows.filter((r) => r.status === 'SENT').map((r) => r.email).sort();
    expect(sentFirst).toHaveLength(2);
    expect(recipientsOf(sink, id)).toEqual(sentFirst);
  });

  it('with the server gone, failures past SEND_FAILURE_BUDGET make the campaign FAILED with `error`', async () => {
    await sink.close();
    await server.sender.dispatcher.runOnce();
    const failed = await t.getCampaign(id);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toEqual(expect.stringContaining('ECONNREFUSED'));
    expect(failed.sent_at).toBeNull();
    const rows = [...(await recipientRows(server, id)).values()];
    expect(rows.map((r) => r.status)).toEqual(['SENT', 'SENT', 'PENDING', 'PENDING', 'PENDING', 'PENDING']);
    expect(rows.map((r) => r.attempts)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(rows[2].last_error).toContain('ECONNREFUSED');
    // statistics wait for SENT
    expect((await t.call('GET', `/api/v1/campaigns/${id}/statistics`)).body.error.code).toBe('CAMPAIGN_NOT_SENT');
  });

  it('a FAILED campaign is not sent on by itself', async () => {
    sink = await startSmtpSink({ port: sink.port });
    expect(await server.sender.dispatcher.runOnce()).toBe(0);
    expect((await t.getCampaign(id)).status).toBe('FAILED');
    expect(sink.messages).toEqual([]);
  });

  it('POST /send resumes it: only the recipients not yet sent get mail, no one twice', async () => {
    const resumed = await t.send(id);
    expect(resumed).toMatchObject({ status: 'SENDING', error: null, total_recipients: 6 });
    server.sender.dispatcher.start();
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect(recipientsOf(sink, id)).toEqual(everyone.filter((e) => !sentFirst.includes(e)).sort());
    expect([...(await recipientRows(server, id)).values()].map((r) => r.status)).toEqual(Array(6).fill('SENT'));
    expect(await t.stats(id)).toMatchObject({ sent: 6, delivered: 6, bounced: 0 });
  });
});

describe('a server answering 421 to every connection: a transport failure, not a bounce', () => {
  let sink: SmtpSink;
  let server: TestServer;
  let t: Tenant;
  const at = addressMaker('greet');
  const everyone = ['a', 'b', 'c'].map(at);
  let id: number;

  beforeAll(async () => {
    sink = await startSmtpSink({ respond: ({ stage }) => (stage === 'connect' ? { code: 421, message: 'Too busy, try later' } : undefined) });
    server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_FAILURE_BUDGET: '3' });
    server.sender.dispatcher.start();
    t = await tenant(server);
    id = (await t.campaign(sendable([await listOf(t, 'Three', everyone)]))).id;
  });
  afterAll(async () => {
    await server?.close();
    await sink?.close();
  });

  it('goes FAILED with the reason; contacts are not BOUNCED', async () => {
    await t.send(id);
    const failed = await t.waitForStatus(id, ['FAILED', 'SENT']);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toEqual(expect.stringContaining('421'));
    for (const row of (await recipientRows(server, id)).values()) {
      expect(row.status).toBe('PENDING');
      expect(row.sent_at).toBeNull();
    }
    for (const email of everyone) expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
  });

  it('once the server answers again, /send delivers each recipient once', async () => {
    sink.respond(undefined);
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect(recipientsOf(sink, id)).toEqual([...everyone].sort());
    expect(await t.stats(id)).toMatchObject({ sent: 3, delivered: 3, bounced: 0 });
  });
});

describe('SMTP AUTH (SMTP_URL with user:pass)', () => {
  let sink: SmtpSink;
  const servers: TestServer[] = [];
  const at = addressMaker('auth');

  beforeAll(async () => {
    sink = await startSmtpSink({ auth: { user: 'mailer', pass: 'p@ss word' } });
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await sink?.close();
  });

  async function sendOne(smtpUrl: string, email: string) {
    const server = await startTestServer({ SMTP_URL: smtpUrl, ...FAST_SENDING, SEND_FAILURE_BUDGET: '2' });
    servers.push(server);
    server.sender.dispatcher.start();
    const t = await tenant(server);
    const id = (await t.campaign(sendable([await listOf(t, 'One', [email])]))).id;
    await t.send(id);
    return { server, t, id, final: await t.waitForStatus(id, ['SENT', 'FAILED']) };
  }

  it('with the right credentials, mail arrives', async () => {
    expect(sink.url).toMatch(/^smtp:\/\/mailer:p%40ss%20word@127\.0\.0\.1:\d+$/);
    const email = at('right');
    const { final, id } = await sendOne(sink.url, email);
    expect(final.status).toBe('SENT');
    expect(recipientsOf(sink, id)).toEqual([email]);
    expect(sink.events).toContainEqual({ stage: 'auth', address: 'mailer', code: 235 });
  });

  it('with a wrong password, nothing is delivered: deferred as a transport failure, never bounced', async () => {
    const email = at('wrong');
    const { final, server, t, id } = await sendOne(sink.url.replace('p%40ss%20word', 'nope'), email);
    expect(final.status).toBe('FAILED');
    expect(final.error).toEqual(expect.stringContaining('535'));
    expect(sink.to(email)).toEqual([]);
    expect(sink.events).toContainEqual({ stage: 'auth', address: 'mailer', code: 535 });
    const row = (await recipientRows(server, id)).get(email)!;
    expect(row).toMatchObject({ status: 'PENDING', sent_at: null, bounced_at: null, attempts: 2 });
    expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
  });
});
