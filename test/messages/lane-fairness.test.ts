/**
 * Every queue shared by accounts is fair across accounts: the transactional lane (D25.4) takes
 * its messages in turns by account. Before, it took the oldest due messages first whoever sent
 * them, so one account's burst of receipts went out ahead of another account's single message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
const to = addressMaker('fair');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const message = (address: string) => ({ to: address, from_email: 'app@example.com', subject: 'Receipt', text: 'Thanks' });

async function burst(t: Tenant, prefix: string, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 100) {
    const messages = Array.from({ length: Math.min(100, count - sent) }, (_, i) => message(to(`${prefix}${sent + i}`)));
    const res = await t.call('POST', '/api/v1/messages/batch', { messages });
    expect(res.status, res.text).toBe(200);
  }
}

/** Where the first mail to `address` arrived among the mails received since `from`. */
const arrival = (from: number, address: string) => sink.messages.slice(from).findIndex((m) => m.envelope.to.includes(address));

describe('the transactional lane is fair across accounts', () => {
  it("one account's burst of 300 queued first does not hold back another account's one message", async () => {
    const bulky = await tenant(server);
    const quiet = await tenant(server);
    await burst(bulky, 'bulk', 300);
    const single = to('single');
    expect((await quiet.call('POST', '/api/v1/messages', message(single))).status).toBe(200);

    const from = sink.messages.length;
    await server.sender.dispatcher.runOnce(0);
    expect(sink.messages.length - from).toBe(301);
    // The quiet account's message is in the lane's first take (50 messages shared by the two
    // accounts), not behind the 300: first come, first served put it last.
    expect(arrival(from, single)).toBeGreaterThanOrEqual(0);
    expect(arrival(from, single)).toBeLessThan(50);
  });

  it('serves more accounts than one take holds in rotation, and messages scheduled later hold nobody back', async () => {
    const later = await tenant(server);
    const future = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19);
    const res = await later.call('POST', '/api/v1/messages/batch', { messages: Array.from({ length: 100 }, (_, i) => ({ ...message(to(`later${i}`)), scheduled_at: future })) });
    expect(res.status, res.text).toBe(200);
    const tenants = [];
    for (let i = 0; i < 12; i++) tenants.push(await tenant(server));
    // Each of 12 accounts queues 60, then a 13th queues one: 12 x 60 = 720 ahead of it in time.
    for (const [i, t] of tenants.entries()) await burst(t, `many${i}-`, 60);
    const last = await tenant(server);
    const single = to('last');
    expect((await last.call('POST', '/api/v1/messages', message(single))).status).toBe(200);

    const from = sink.messages.length;
    await server.sender.dispatcher.runOnce(0);
    expect(sink.messages.length - from).toBe(721);
    // Takes serve 10 accounts each (5 messages apiece) in rotation: the 13th account is served
    // in the second take, not after the 720.
    expect(arrival(from, single)).toBeGreaterThanOrEqual(0);
    expect(arrival(from, single)).toBeLessThan(100);
    const scheduled = await server.db.selectFrom('messages').select('status').where('account_id', '=', later.accountId).execute();
    expect(new Set(scheduled.map((r) => r.status))).toEqual(new Set(['SCHEDULED']));
  });
});
