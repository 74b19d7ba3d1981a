import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, recipientRows, sendable, tenant } from './send-helpers.ts';

// Two senders on one database, and an SMTP server slower than the claim lease: each message
// takes 2 s to be accepted, the lease is 1.5 s (five times the 0.4 s and 0.3 s this test first used, so a
// slow or busy machine that delays the lease's renewal by a few hundred ms does not fail it). Sender A claims the whole batch; sender B
// starts once it has, and polls. Had A not renewed its lease while its first message was in
// flight, B would take the rows when the lease ran out and mail that recipient again, with no
// crash at all. With renewal, every recipient gets exactly one message, all from A.

let sink: SmtpSink;
let a: TestServer;
let b: TestServer;
const at = addressMaker('lease');
const emails = Array.from({ length: 3 }, (_, i) => at(`r${i}`));
const slowSending = { ...FAST_SENDING, SEND_LEASE_MS: '1500', SEND_BATCH_SIZE: '3', SEND_CONCURRENCY: '1' };

beforeAll(async () => {
  sink = await startSmtpSink({ dataDelayMs: 2000 });
  a = await startTestServer({ SMTP_URL: sink.url, ...slowSending });
  b = await startTestServer({ ...a.env, SMTP_URL: sink.url, ...slowSending });
});
afterAll(async () => {
  await b?.close({ keepData: true });
  await a?.close();
  await sink?.close();
});

it('keeps a batch claimed while its messages are in flight, so a second sender never mails them again', async () => {
  const t = await tenant(a);
  const list = await t.list('Slow');
  for (const email of emails) await t.contact({ email, list_id: list });
  const campaign = await t.campaign(sendable([list]));
  await t.send(campaign.id);
  a.sender.dispatcher.start();
  const claimedByA = Date.now() + 10_000;
  while (![...(await recipientRows(a, campaign.id)).values()].every((r) => r.status === 'CLAIMED')) {
    if (Date.now() > claimedByA) throw new Error('sender A never claimed the batch');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  b.sender.dispatcher.start();

  const sent = await t.waitForStatus(campaign.id, ['SENT', 'FAILED'], 30_000);
  expect(sent.status).toBe('SENT');
  const received = messagesOfCampaign(sink.messages, campaign.id).map(recipientOf).sort();
  expect(received).toEqual([...emails].sort());
});
