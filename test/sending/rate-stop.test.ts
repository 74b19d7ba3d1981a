/**
 * D23's automatic stop: a SENDING campaign whose bounce rate over its latest 500 messages passes
 * 8% (or complaint rate 0.3%), counted once 100 have gone, goes FAILED with the reason in `error`;
 * `/send` resumes it and the counting starts afresh. A stop never loses a message in flight: its
 * outcome is recorded when the server answers, and `/send` does not mail it again (issue 19's
 * mended CampaignLifecycleService.fail, test/sending/fail-in-flight.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimRecipients, markBounced, markSentMany } from '../../src/domain/campaigns/recipients.repo.ts';
import { feedbackSecret } from '../../src/feedback/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { FAST_SENDING, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  // Each accepted message is held a moment, so the stop comes while messages are in flight.
  sink = await startSmtpSink({ dataDelayMs: 30 });
  // Small batches: the rates are looked at before each one. A 4xx is retried only after ten minutes.
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_BATCH_SIZE: '10', SEND_RETRY_BASE_MS: '600000' });
  t = await tenant(server);
  // The sender starts in the tests: the first sets up its moment before it runs.
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** A list of the given addresses (imported in one request, in this order) and a campaign to it. */
async function campaignTo(name: string, emails: string[]) {
  const list = await t.list(name);
  const res = await t.call('POST', '/v1/contacts/bulk', { listId: String(list), contacts: emails.map((email) => ({ email })) });
  expect(res.status, res.text).toBe(200);
  return t.campaign(sendable([list]));
}

/** How often the sink was asked to take each address (RCPT TO), whatever it answered. */
function rcptCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of sink.events) if (e.stage === 'rcpt') counts.set(e.address, (counts.get(e.address) ?? 0) + 1);
  return counts;
}

describe('D23: the automatic stop', () => {
  it('never loses a message in flight: its outcome is recorded after the stop, and /send does not mail it again', async () => {
    // As in fail-in-flight.test.ts, the moment is set up through the sender's own steps: 100
    // messages went, 20 of them bounced, and one more is in flight when the sender next looks.
    const emails = Array.from({ length: 110 }, (_, i) => `r${String(i).padStart(3, '0')}@flight.test`);
    const campaign = await campaignTo('In flight', emails);
    await t.send(campaign.id); // snapshot; the sender is not running yet
    const { db, dialect } = server.core.handle;
    const claim = async (limit: number) => {
      const now = new Date();
      return claimRecipients(db, dialect, { campaignId: campaign.id, limit, now: now.toISOString(), leaseUntil: new Date(now.getTime() + 600_000).toISOString() });
    };
    const gone = await claim(100);
    const now = new Date().toISOString();
    await db.transaction().execute(async (trx) => {
      for (const row of gone.slice(0, 20)) await markBounced(trx, row, `<bounced.${row.id}@flight.test>`, '550 5.1.1 no such user', now);
      await markSentMany(trx, gone.slice(20).map((row) => ({ row, messageId: `<sent.${row.id}@flight.test>` })), now);
    });
    const [inFlight] = await claim(1);

    await server.sender.dispatcher.runOnce(0); // one turn: it looks at the rates before claiming
    const stopped = await t.getCampaign(campaign.id);
    expect(stopped).toMatchObject({ status: 'FAILED', error: 'bounce rate 20.0% over the latest 100 messages (the limit is 8%)' });
    // The server accepts the message in flight: its record lands on the row still claimed.
    const recorded = await db.transaction().execute((trx) => markSentMany(trx, [{ row: inFlight, messageId: '<in-flight@flight.test>' }], new Date().toISOString()));
    expect(recorded).toHaveLength(1);

    await t.send(campaign.id);
    server.sender.dispatcher.start();
    expect((await t.waitForStatus(campaign.id, ['SENT', 'FAILED'], 30_000)).status).toBe('SENT');
    // The sender mailed the 9 never claimed, and no one else.
    const handled = new Set([...gone, inFlight].map((r) => r.email));
    const mailed = new Set(sink.messages.flatMap((m) => m.envelope.to));
    expect(emails.filter((e) => mailed.has(e))).toEqual(emails.filter((e) => !handled.has(e)));
    const rows = [...(await recipientRows(server, campaign.id)).values()];
    expect(rows.filter((r) => r.status === 'SENT').length).toBe(90);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });

  it('stops a campaign whose server refuses one in five with the bounce rate; /send resumes it afresh, mailing no one twice', async () => {
    // 200 recipients, every fifth refused with a 550.
    const emails = Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? `gone${i}@stop.test` : `ok${i}@stop.test`));
    sink.respond(({ stage, address }) => (stage === 'rcpt' && address.startsWith('gone') ? { code: 550, message: '5.1.1 no such user' } : undefined));
    const campaign = await campaignTo('Bouncy', emails);
    await t.send(campaign.id);
    server.sender.dispatcher.start();

    const failed = await t.waitForStatus(campaign.id, ['FAILED', 'SENT'], 60_000);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toMatch(/^bounce rate (\d+\.\d)% over the latest (\d+) messages \(the limit is 8%\)$/);
    const [, rate, over] = /^bounce rate (\d+\.\d)% over the latest (\d+) messages/.exec(failed.error)!;
    expect(Number(rate)).toBeGreaterThan(8);
    expect(Number(over)).toBeGreaterThanOrEqual(100);
    expect(Number(over)).toBeLessThan(200);

    // The operator deals with the cause; the resumed send is judged afresh, not on the old bounces.
    sink.respond(undefined);
    await t.send(campaign.id);
    expect((await t.waitForStatus(campaign.id, ['FAILED', 'SENT'], 60_000)).status).toBe('SENT');

    const asked = rcptCounts();
    for (const email of emails) expect(asked.get(email), email).toBe(1);
    const rows = [...(await recipientRows(server, campaign.id)).values()];
    const byEmail = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(rows.map((r) => [r.email, r.status, r.attempts]).sort(byEmail)).toEqual(emails.map((email) => [email, email.startsWith('gone') ? 'BOUNCED' : 'SENT', 1]).sort(byEmail));
    expect(await t.stats(campaign.id)).toMatchObject({ sent: 200, bounced: 40 });
  });

  it('stops a campaign with the complaint rate once complaints of two recipients come in through the provider feedback webhook', async () => {
    // 120 delivered, 10 deferred (451) and due again only in ten minutes: the campaign stays SENDING.
    const emails = [...Array.from({ length: 120 }, (_, i) => `fine${i}@complaint.test`), ...Array.from({ length: 10 }, (_, i) => `later${i}@complaint.test`)];
    sink.respond(({ stage, address }) => (stage === 'rcpt' && address.startsWith('later') ? { code: 451, message: '4.7.1 try again later' } : undefined));
    const campaign = await campaignTo('Complained', emails);
    await t.send(campaign.id);
    server.sender.dispatcher.start();
    for (const deadline = Date.now() + 30_000; ; ) {
      const rows = [...(await recipientRows(server, campaign.id)).values()];
      if (rows.filter((r) => r.status === 'SENT').length === 120 && rows.filter((r) => r.status === 'PENDING' && r.attempts === 1).length === 10) break;
      if (Date.now() > deadline) throw new Error('the campaign never reached 120 sent and 10 deferred');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await t.getCampaign(campaign.id)).status).toBe('SENDING');

    // Issue 28: one reporter never stops a campaign alone; a provider's authenticated report is its recipient's own.
    const rows = await recipientRows(server, campaign.id);
    const complainers = [rows.get('fine7@complaint.test')!, rows.get('fine8@complaint.test')!];
    const body = { events: complainers.map((c) => ({ type: 'complaint', message_id: c.message_id, email: c.email })) };
    const res = await server.request('POST', `/webhooks/generic?token=${feedbackSecret('test-secret')}`, { body });
    expect(res.status, res.text).toBe(200);

    const failed = await t.waitForStatus(campaign.id, ['FAILED'], 30_000);
    expect(failed.error).toBe('complaint rate 1.67% over the latest 120 messages (the limit is 0.3%)');
    sink.respond(undefined);
  });
});
