import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { BOMB, SPIN } from './heavy-templates.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// Issue 14 H3, H4, H5 through a real sender: what one message may cost to render is bounded, a
// message over it is its recipient's failure with a plain reason, and a campaign whose recipients
// keep hitting the limits fails early.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('limits');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** A list of plain contacts and one with `custom_fields`; returns the list and the addresses. */
async function audience(name: string, special: Record<string, unknown>) {
  const list = await t.list(name);
  const plain = [at(`${name}-a`), at(`${name}-c`)];
  const odd = at(`${name}-b`);
  await t.contact({ email: plain[0], first_name: 'A', list_id: list });
  await t.contact({ email: odd, first_name: 'B', custom_fields: special, list_id: list });
  await t.contact({ email: plain[1], first_name: 'C', list_id: list });
  return { list, plain, odd };
}

describe('H5: rendered output is bounded inside the render', () => {
  it('a 2 KB template that writes 50 MB for one contact: that recipient is FAILED with the reason, the others are sent', async () => {
    const { list, plain, odd } = await audience('bomb', { bomb: true });
    expect(BOMB.length).toBeLessThan(2048);
    const { id } = await t.campaign(sendable([list], { text: `Hi {{ first_name }}${BOMB}` }));
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect(messagesOfCampaign(sink.messages, id).map(recipientOf).sort()).toEqual([...plain].sort());
    const row = (await recipientRows(server, id)).get(odd)!;
    expect(row.status).toBe('FAILED');
    expect(row.last_error).toBe('could not render the message: the rendered text is larger than 2 MB');
  });
});

describe('H3: one render budget per message', () => {
  it('a message that renders past the budget (300 ms for the whole message): that recipient is FAILED with a plain reason, the others are sent', async () => {
    const { list, plain, odd } = await audience('spin', { spin: true });
    const { id } = await t.campaign(sendable([list], { html: `<p>Hi {{ first_name }}</p>${SPIN}` }));
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect(messagesOfCampaign(sink.messages, id).map(recipientOf).sort()).toEqual([...plain].sort());
    const row = (await recipientRows(server, id)).get(odd)!;
    expect(row.status).toBe('FAILED');
    expect(row.last_error).toBe('could not render the message: the message took longer than 300 ms to render');
  });
});

describe('H4: a campaign whose recipients keep hitting the render limit fails early', () => {
  it('after 10 recipients in a row over the limit, the campaign is FAILED with the reason; the recipients not reached stay PENDING', async () => {
    const list = await t.list('All spin');
    const everyone = Array.from({ length: 14 }, (_, i) => at(`spin${i}`));
    for (const email of everyone) await t.contact({ email, custom_fields: { spin: true }, list_id: list });
    const { id } = await t.campaign(sendable([list], { html: `<p>Hi</p>${SPIN}` }));
    await t.send(id);
    const failed = await t.waitForStatus(id, ['SENT', 'FAILED'], 30_000);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toBe('10 recipients in a row were over a render limit; the last: the message took longer than 300 ms to render');
    const rows = [...(await recipientRows(server, id)).values()];
    expect(rows.filter((r) => r.status === 'FAILED')).toHaveLength(10);
    expect(rows.filter((r) => r.status === 'PENDING')).toHaveLength(4);
    for (const r of rows.filter((r) => r.status === 'FAILED')) expect(r.last_error).toBe('could not render the message: the message took longer than 300 ms to render');
    expect(messagesOfCampaign(sink.messages, id)).toEqual([]);
  });
});
