/**
 * D26.2: a SENDING campaign that waits says why in `GET /api/v1/campaigns/{id}`: `held` with the
 * reason and until when. Here the pace: every recipient left waits for a retry. (The send window's
 * hold is in send-window.test.ts, the warm-up's in warmup.test.ts.) Rounds are run by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  sink = await startSmtpSink();
  // A 4xx is tried again ten minutes later: long enough to read the campaign while it waits.
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_RETRY_BASE_MS: '600000' });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('held (D26.2)', () => {
  it('is null for a draft; pacing, until the retry, when every recipient left waits for one; null again once it sends', async () => {
    const to = addressMaker('held');
    const [busy, fine] = [to('busy'), to('fine')];
    let busyAnswers = 451;
    sink.respond(({ stage, address }) => (stage === 'rcpt' && address === busy ? (busyAnswers === 451 ? { code: 451, message: 'mailbox busy' } : undefined) : undefined));
    const list = await t.list('Held by pace');
    for (const email of [busy, fine]) await t.contact({ email, list_id: list });
    const campaign = await t.campaign(sendable([list]));
    expect(campaign.held).toBeNull();
    await t.send(campaign.id);
    for (let round = 0; round < 10; round++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;

    expect(messagesOfCampaign(sink.messages, campaign.id)).toHaveLength(1);
    const row = (await recipientRows(server, campaign.id)).get(busy)!;
    expect([row.status, row.attempts]).toEqual(['PENDING', 1]);
    const waiting = await t.getCampaign(campaign.id);
    expect(waiting).toMatchObject({ status: 'SENDING', held: { reason: 'pacing', until: new Date(row.next_attempt_at!).toISOString().slice(0, 19) } });
    expect(Date.parse(`${waiting.held.until}Z`) - Date.now()).toBeGreaterThan(60_000);
    // The list page says the same.
    const listed = (await t.call('GET', '/api/v1/campaigns?limit=100')).body.data.campaigns.find((c: { id: number }) => c.id === campaign.id);
    expect(listed.held).toEqual(waiting.held);

    // Its retry comes due (moved to now here, as ten minutes passing would): it sends, and is SENT with nothing held.
    busyAnswers = 250;
    await server.db.updateTable('campaign_recipients').set({ next_attempt_at: new Date().toISOString() }).where('id', '=', row.id).execute();
    for (let round = 0; round < 10; round++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;
    expect(await t.getCampaign(campaign.id)).toMatchObject({ status: 'SENT', held: null });
  });
});
