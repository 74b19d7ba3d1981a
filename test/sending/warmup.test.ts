/**
 * D23 warm-up: while a sending domain's plan is on, its campaigns send at most
 * round(start * factor^(days since started_at)) messages per UTC day, counted across its
 * campaigns and across sender processes; the rest stay PENDING (the campaign SENDING) and go on a
 * later day. Rounds are run by hand (runOnce), so "nothing more was sent" is exact, not timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../src/domain/domains/warmup.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let second: TestServer;
let t: Tenant;
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

// Small batches, so a cap is reached over several claims.
const SENDING = { ...FAST_SENDING, SEND_BATCH_SIZE: '2' };

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...SENDING });
  // A second sender process on the same database: the scale-out setup's, on PostgreSQL. (Two
  // servers on one SQLite file in one thread would block each other's write transactions; SQLite
  // installations run one sender.)
  if (onPostgres) second = await startTestServer({ ...server.env, SMTP_URL: sink.url, ...SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await second?.close({ keepData: true });
  await server?.close();
  await sink?.close();
});

/** Sending rounds on the given senders, together, until a round of them all sends nothing. */
async function drain(senders: TestServer[] = [server]): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const handled = await Promise.all(senders.map((s) => s.sender.dispatcher.runOnce(0)));
    if (handled.every((n) => n === 0)) return;
  }
  throw new Error('sending never settled');
}

async function warmingDomain(domain: string, warmup: Record<string, unknown>) {
  const res = await t.call('POST', '/api/v1/domains', { domain, warmup });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: number };
}

async function campaignTo(count: number, fromEmail: string) {
  const to = addressMaker('warm');
  const list = await t.list(`Warm-up ${fromEmail} ${to('list')}`);
  for (let i = 0; i < count; i++) await t.contact({ email: to(`r${i}`), list_id: list });
  const campaign = await t.campaign(sendable([list], { from_email: fromEmail }));
  await t.send(campaign.id);
  return campaign.id as number;
}

const statusesOf = async (campaignId: number) => [...(await recipientRows(server, campaignId)).values()].map((r) => r.status).sort();
const domainOf = async (id: number) => (await t.call('GET', `/api/v1/domains/${id}`)).body.data;

describe('the warm-up cap (D23)', () => {
  it('a campaign from a warming domain sends exactly the cap today; the rest stay PENDING, the campaign SENDING, and go the next day', async () => {
    const domain = await warmingDomain('warm.test', { enabled: true, start: 3, factor: 2 });
    const first = await campaignTo(5, 'news@Warm.test');
    await drain();
    expect(messagesOfCampaign(sink.messages, first)).toHaveLength(3);
    expect(await statusesOf(first)).toEqual(['PENDING', 'PENDING', 'SENT', 'SENT', 'SENT']);
    // D26.2: it says why it waits, and until the cap grows at the next UTC midnight.
    const tomorrow = `${utcDay(new Date(Date.now() + 86_400_000))}T00:00:00`;
    expect(await t.getCampaign(first)).toMatchObject({ status: 'SENDING', held: { reason: 'warmup', until: tomorrow } });
    expect(await domainOf(domain.id)).toMatchObject({ warmup_cap_today: 3, sent_today: 3 });

    // The cap is the domain's, not the campaign's: another campaign from it waits too.
    const later = await campaignTo(2, 'hello@warm.test');
    await drain();
    expect(messagesOfCampaign(sink.messages, later)).toHaveLength(0);
    expect(await statusesOf(later)).toEqual(['PENDING', 'PENDING']);

    // The next day: today's count is yesterday's, and the plan is a day older (cap 3 * 2 = 6).
    const yesterday = utcDay(new Date(Date.now() - 86_400_000));
    await server.db.updateTable('warmup_days').set({ day: yesterday }).where('domain_id', '=', domain.id).execute();
    expect((await t.call('PUT', `/api/v1/domains/${domain.id}`, { warmup: { started_at: `${yesterday}T12:00:00` } })).body.data.warmup_cap_today).toBe(6);
    await drain();
    expect(messagesOfCampaign(sink.messages, first)).toHaveLength(5);
    expect(messagesOfCampaign(sink.messages, later)).toHaveLength(2);
    for (const id of [first, later]) expect(await t.getCampaign(id)).toMatchObject({ status: 'SENT', held: null });
    expect(await domainOf(domain.id)).toMatchObject({ warmup_cap_today: 6, sent_today: 4 });
  });

  it('mail from another domain, or from a domain whose warm-up is off, is not capped', async () => {
    await warmingDomain('capped.test', { enabled: true, start: 1 });
    await warmingDomain('cool.test', { enabled: false, start: 1 });
    const ids = [await campaignTo(4, 'news@elsewhere.test'), await campaignTo(4, 'news@cool.test')];
    await drain();
    for (const id of ids) {
      expect(messagesOfCampaign(sink.messages, id)).toHaveLength(4);
      expect((await t.getCampaign(id)).status).toBe('SENT');
    }
  });

  it('rows held back for their recipient domain\'s pace (SEND_DOMAIN_RATES) give their claims back: the day\'s cap is still reached', async () => {
    // Its own server and sink: the pace is a process setting, and campaign ids are per database.
    // Recipients are all at example.org, capped at 2 a second.
    const pacedSink = await startSmtpSink();
    const paced = await startTestServer({ SMTP_URL: pacedSink.url, ...SENDING, SEND_DOMAIN_RATES: 'example.org=2' });
    try {
      const pt = await tenant(paced);
      const domain = (await pt.call('POST', '/api/v1/domains', { domain: 'paced-warm.test', warmup: { enabled: true, start: 6, factor: 1 } })).body.data;
      const to = addressMaker('pacedwarm');
      const list = await pt.list('Paced warm-up');
      for (let i = 0; i < 10; i++) await pt.contact({ email: to(`r${i}`), list_id: list });
      const campaign = await pt.campaign(sendable([list], { from_email: 'news@paced-warm.test' }));
      await pt.send(campaign.id);
      // Held rows come due within a few seconds; rounds go on until the cap's 6 are sent (or clearly never will be).
      for (let round = 0; round < 400 && messagesOfCampaign(pacedSink.messages, campaign.id).length < 6; round++) {
        await paced.sender.dispatcher.runOnce(0);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(messagesOfCampaign(pacedSink.messages, campaign.id)).toHaveLength(6);
      // And never more: the cap holds once the held rows are all accounted for.
      for (let round = 0; round < 20; round++) await paced.sender.dispatcher.runOnce(0);
      expect(messagesOfCampaign(pacedSink.messages, campaign.id)).toHaveLength(6);
      expect((await pt.call('GET', `/api/v1/domains/${domain.id}`)).body.data).toMatchObject({ warmup_cap_today: 6, sent_today: 6 });
    } finally {
      await paced.close();
      await pacedSink.close();
    }
  });

  it('D26.2: only messages handed to the mail server count: a 5xx counts; a 4xx and a suppressed address do not', async () => {
    // Its own server: a 4xx is given up at once (SEND_MAX_ATTEMPTS=1), so every outcome is final after one round.
    const countSink = await startSmtpSink();
    const counting = await startTestServer({ SMTP_URL: countSink.url, ...SENDING, SEND_MAX_ATTEMPTS: '1' });
    try {
      const ct = await tenant(counting);
      const domain = (await ct.call('POST', '/api/v1/domains', { domain: 'counted.test', warmup: { enabled: true, start: 4, factor: 1 } })).body.data;
      const to = addressMaker('counted');
      const [deferred, refused, suppressed] = [to('deferred'), to('refused'), to('suppressed')];
      const accepted = [to('a1'), to('a2'), to('a3')];
      countSink.respond(({ stage, address }) => {
        if (stage === 'rcpt' && address === deferred) return { code: 451, message: 'try later' };
        if (stage === 'rcpt' && address === refused) return { code: 550, message: 'no such user' };
      });
      const list = await ct.list('Counted warm-up');
      for (const email of [deferred, refused, suppressed, ...accepted]) await ct.contact({ email, list_id: list });
      const campaign = await ct.campaign(sendable([list], { from_email: 'news@counted.test' }));
      await ct.send(campaign.id);
      // Suppressed after the snapshot: dropped when claimed, never handed over.
      expect((await ct.call('POST', '/api/v1/suppressions', { value: suppressed })).status).toBe(200);
      for (let round = 0; round < 30; round++) if ((await counting.sender.dispatcher.runOnce(0)) === 0) break;

      // The cap (4) was reached by what the server took: the refused one and the three accepted.
      expect(messagesOfCampaign(countSink.messages, campaign.id)).toHaveLength(3);
      const statuses = new Map([...(await recipientRows(counting, campaign.id)).values()].map((r) => [r.email, r.status]));
      expect(Object.fromEntries(statuses)).toMatchObject({ [deferred]: 'FAILED', [refused]: 'BOUNCED', [accepted[2]]: 'SENT' });
      expect((await ct.call('GET', `/api/v1/domains/${domain.id}`)).body.data).toMatchObject({ warmup_cap_today: 4, sent_today: 4 });
      expect((await ct.getCampaign(campaign.id)).status).toBe('SENT');
    } finally {
      await counting.close();
      await countSink.close();
    }
  });

  it.runIf(onPostgres)('two sender processes on one PostgreSQL database together send no more than the cap', async () => {
    const domain = await warmingDomain('shared-cap.test', { enabled: true, start: 5, factor: 1 });
    const id = await campaignTo(12, 'news@shared-cap.test');
    await drain([server, second]);
    expect(messagesOfCampaign(sink.messages, id)).toHaveLength(5);
    expect((await statusesOf(id)).filter((s) => s === 'PENDING')).toHaveLength(7);
    expect(await domainOf(domain.id)).toMatchObject({ warmup_cap_today: 5, sent_today: 5 });
  });
});
