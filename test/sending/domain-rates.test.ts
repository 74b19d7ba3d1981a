/**
 * D23: SEND_DOMAIN_RATES caps messages per second per recipient domain, across all senders
 * (through Redis in the scale-out run, in this process otherwise). A message to a capped domain
 * without a token is held back and tried again a moment later, without an attempt counted or an
 * error, and it does not keep a concurrency slot from mail to other domains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { FAST_SENDING, messagesOfCampaign, recipientOf, recipientRows, sendable, tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await startSmtpSink();
  // Batches of 10: the capped domain's recipients fill the first three, ahead of the others'.
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_DOMAIN_RATES: 'capped.test=10', SEND_BATCH_SIZE: '10' });
  server.sender.dispatcher.start();
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** sendwell_messages_paced_total for a domain, as GET /metrics shows it. */
async function pacedCount(domain: string): Promise<number> {
  const res = await server.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`sendwell_messages_paced_total{domain="${domain}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('D23: per-recipient-domain caps', () => {
  it('sends 30 recipients of a domain capped at 10/s exactly once each, holding some back, while another domain goes ahead', async () => {
    const t = await tenant(server);
    const list = await t.list('Capped');
    const capped = Array.from({ length: 30 }, (_, i) => `c${i}@capped.test`);
    const free = Array.from({ length: 30 }, (_, i) => `f${i}@free.test`);
    // The capped domain's recipients come first in the queue.
    for (const email of [...capped, ...free]) await t.contact({ email, list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    expect((await t.waitForStatus(campaign.id, ['SENT', 'FAILED'], 30_000)).status).toBe('SENT');

    const received = messagesOfCampaign(sink.messages, campaign.id).map(recipientOf);
    expect([...received].sort()).toEqual([...capped, ...free].sort());
    // Held back is not an attempt and not an error.
    for (const row of (await recipientRows(server, campaign.id)).values()) expect([row.status, row.attempts, row.last_error]).toEqual(['SENT', 1, null]);
    // The limiter was asked, and said no to some: 30 messages cannot go through 10 tokens a second at once.
    expect(await pacedCount('capped.test')).toBeGreaterThan(0);
    expect(await pacedCount('free.test')).toBe(0);
    // Mail to the uncapped domain was not held up behind the capped one it queued after: it was
    // all in before the capped domain's third second (its last ten messages).
    const lastFree = Math.max(...free.map((e) => received.indexOf(e)));
    const cappedOrder = received.filter((e) => e.endsWith('@capped.test'));
    expect(lastFree).toBeLessThan(received.indexOf(cappedOrder[20]));
  });
});
