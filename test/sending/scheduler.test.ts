import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, sendable, tenant, type Tenant } from './send-helpers.ts';

// D13 / issue item 1: the scheduler starts a SCHEDULED campaign when its time comes, even one
// that came due while no sender was running.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('sched');
const audience = [at('one'), at('two')];

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
  list = await t.list('Scheduled');
  for (const email of audience) await t.contact({ email, list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const schedule = (id: number, when: Date) => t.call('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: when.toISOString() });

describe('the scheduler (D13)', () => {
  it('starts a campaign that came due while the sender was down', async () => {
    const { id } = await t.campaign(sendable([list]));
    expect((await schedule(id, new Date(Date.now() + 3_600_000))).status).toBe(200);
    // The hour passes while no sender runs: moved into the past directly.
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    await server.db.updateTable('campaigns').set({ scheduled_at: past }).where('id', '=', id).execute();
    expect(await t.getCampaign(id)).toMatchObject({ status: 'SCHEDULED', total_recipients: 0 });

    server.sender.dispatcher.start();
    const done = await t.waitForStatus(id, ['SENT', 'FAILED']);
    expect(done).toMatchObject({ status: 'SENT', total_recipients: 2, error: null });
    expect(messagesOfCampaign(sink.messages, id).map(recipientOf).sort()).toEqual([...audience].sort());
  });

  it('starts a campaign scheduled a moment ahead by itself, and it ends SENT', async () => {
    const { id } = await t.campaign(sendable([list]));
    const res = await schedule(id, new Date(Date.now() + 1500));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'SCHEDULED', total_recipients: 0 });
    const done = await t.waitForStatus(id, ['SENT', 'FAILED']);
    expect(done).toMatchObject({ status: 'SENT', total_recipients: 2, error: null });
    expect(done.sent_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(messagesOfCampaign(sink.messages, id).map(recipientOf).sort()).toEqual([...audience].sort());
    expect(await t.stats(id)).toMatchObject({ sent: 2, delivered: 2 });
  });
});
