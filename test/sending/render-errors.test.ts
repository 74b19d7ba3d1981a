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
  server.deps.dispatcher.start();
  t = await tenant(server);
  list = await t.list('Render errors');
  for (const email of people) await t.contact({ email, first_name: 'F', list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('content that cannot be rendered', () => {
  it('a Liquid syntax error: the campaign goes FAILED with the reason; nothing is sent, every recipient stays PENDING', async () => {
    const { id } = await t.campaign(sendable([list], { html: '<p>Hi {{ first_name </p>' }));
    expect((await t.send(id)).total_recipients).toBe(3);
    const failed = await t.waitForStatus(id, ['FAILED', 'SENT']);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toContain('the content cannot be rendered');
    const rows = [...(await recipientRows(server, id)).values()];
    expect(rows.map((r) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(rows.map((r) => r.claimed_until)).toEqual([null, null, null]);
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
