import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// Content that cannot be rendered (the sender renders on its render thread, src/sending/message-renderer.ts):
// - a Liquid syntax error breaks every recipient's message: the campaign goes FAILED with the
//   reason, and its recipients stay unsent (PENDING) for a resend;
// - an error while rendering one recipient's message (here a tag that reaches for a file, which
//   the sandbox refuses) is that recipient's FAILED row with the reason; the send goes on and ends.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('render');
const people = ['ann', 'bob', 'cy'].map(at);

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  list = await t.list('Render errors');
  for (const email of people) await t.contact({ email, first_name: 'F', list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('content that cannot be rendered', () => {
  it('a Liquid syntax error in a draft saved before D17.4: /send refuses it (400 naming the field); nothing is snapshotted or sent', async () => {
    const { id } = await t.campaign(sendable([list]));
    await server.db.updateTable('campaigns').set({ html: '<p>Hi {{ first_name </p>' }).where('id', '=', id).execute();
    const res = await t.call('POST', `/api/v1/campaigns/${id}/send`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^html has a Liquid syntax error/);
    expect((await t.getCampaign(id)).status).toBe('DRAFT');
    expect((await recipientRows(server, id)).size).toBe(0);
    expect(messagesOfCampaign(sink.messages, id)).toEqual([]);
  });

  it('an error rendering a recipient\'s message: that recipient is FAILED with the reason, and the campaign ends', async () => {
    const { id } = await t.campaign(sendable([list], { html: "<p>Hi</p>{% include 'header' %}" }));
    await t.send(id);
    expect((await t.waitForStatus(id, ['FAILED', 'SENT'])).status).toBe('SENT');
    for (const row of (await recipientRows(server, id)).values()) {
      expect(row.status).toBe('FAILED');
      expect(row.last_error).toContain('could not render the message');
      expect(row.sent_at).toBeNull();
    }
    expect(messagesOfCampaign(sink.messages, id)).toEqual([]);
    expect(await t.stats(id)).toMatchObject({ sent: 0, delivered: 0 });
  });
});
