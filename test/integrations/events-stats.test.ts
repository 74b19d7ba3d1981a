import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

// D14: POST /v1/events and GET /v1/campaigns/{id}/stats.

let server: TestServer;
let sink: SmtpSink;
let t: Tenant;
const at = addressMaker('events');
const post = (body: unknown, key = t.key, auth: 'x-api-key' | 'bearer' = 'x-api-key') => server.request('POST', '/v1/events', { key, auth, body });

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sending rounds, by hand, until one sends nothing. */
async function sendAll(): Promise<void> {
  for (let round = 0; round < 20; round++) if ((await server.sender.dispatcher.runOnce(0)) === 0) return;
}

describe('D14 POST /v1/events', () => {
  it('stores the event (202 { success, id }) and creates an unknown contact, SUBSCRIBED and waiting for consent (issue 30 item 6)', async () => {
    const res = await post({ email: ` ${at('New').toUpperCase()}`, event: 'order_placed', data: { total: 42, items: [{ sku: 'a' }] } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, id: expect.any(Number) });
    const contact = await t.getContact(at('new'));
    expect(contact.status).toBe('SUBSCRIBED');
    const stored = await server.db.selectFrom('events').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ name: 'order_placed', contact_id: contact.id });
    expect(JSON.parse(stored.data)).toEqual({ total: 42, items: [{ sku: 'a' }] });
  });

  it('issue 30 item 6: a contact an event created records where it came from, and is mailed by no segment or list until it subscribes', async () => {
    const created = at('from-event');
    const known = at('from-api');
    expect((await post({ email: created, event: 'visited' })).status).toBe(202);
    await t.contact({ email: known });
    // Its consent record names no list: it says where the contact came from, and that no one consented.
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(created)}/consents`)).body.data.consents).toEqual([
      { source: 'EVENT', form_id: null, list_ids: [], ip: null, user_agent: null, statement: null, at: expect.any(String) },
    ]);
    // "Status is SUBSCRIBED" does not hold it: it waits, as an unconfirmed double opt-in does.
    const segment = (await t.call('POST', '/api/v1/segments', { name: 'Subscribed from events', filter: { all: [{ field: 'status', op: 'eq', value: 'SUBSCRIBED' }, { field: 'email', op: 'contains', value: 'from-' }] } })).body.data;
    const first = await t.campaign(sendable([], { segment_ids: [segment.id] }));
    await t.send(first.id);
    await sendAll();
    expect((await t.getCampaign(first.id)).status).toBe('SENT');
    const firstTo = messagesOfCampaign(sink.messages, first.id).flatMap((m) => m.envelope.to);
    expect(firstTo).toContain(known);
    expect(firstTo).not.toContain(created);

    // Subscribed by the account's own API add to a list, it is mailed like anyone.
    const list = await t.list('Customers');
    await t.addToList(list, [created]);
    const second = await t.campaign(sendable([list]));
    await t.send(second.id);
    await sendAll();
    expect(sink.to(created)).toHaveLength(1);
  });

  it('uses the existing contact and accepts no data', async () => {
    const existing = await t.contact({ email: at('known'), first_name: 'K' });
    const res = await post({ email: at('known'), event: 'login' });
    expect(res.status).toBe(202);
    const stored = await server.db.selectFrom('events').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(Number(stored.contact_id)).toBe(existing.id);
    expect(stored.data).toBe('{}');
  });

  it('event names of 128 characters are accepted, 129 and empty are 400', async () => {
    expect((await post({ email: at('len'), event: 'e'.repeat(128) })).status).toBe(202);
    for (const name of ['e'.repeat(129), '']) {
      const res = await post({ email: at('len'), event: name });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'Bad Request', code: 'INVALID_REQUEST', message: expect.stringContaining('event') });
    }
  });

  it('data up to 64 KiB as JSON is accepted, one byte more is 400; data must be an object', async () => {
    const sized = (bytes: number) => ({ p: 'x'.repeat(bytes - '{"p":""}'.length) });
    expect(JSON.stringify(sized(65536)).length).toBe(65536);
    expect((await post({ email: at('size'), event: 'big', data: sized(65536) })).status).toBe(202);
    const over = await post({ email: at('size'), event: 'big', data: sized(65537) });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/data/);
    expect((await post({ email: at('size'), event: 'big', data: [1, 2] })).status).toBe(400);
    expect((await post({ email: at('size'), event: 'big', data: 'text' })).status).toBe(400);
  });

  it('an invalid e-mail is 400 and nothing is stored', async () => {
    const before = await server.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await post({ email: 'nope', event: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST');
    const after = await server.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('needs contacts.write AND automation.write (403 for either alone, even with a bad body); both auth forms', async () => {
    for (const permissions of [['contacts.write'], ['automation.write'], ['contacts.read', 'automation.read']]) {
      const { key } = await server.createKey(t.accountId, permissions);
      const res = await post({ nonsense: true }, key);
      expect(res.status, permissions.join()).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: 'Forbidden', code: 'PERMISSION_DENIED' });
    }
    const both = await server.createKey(t.accountId, ['contacts.write', 'automation.write']);
    expect((await post({ email: at('perm'), event: 'ok' }, both.key)).status).toBe(202);
    expect((await post({ email: at('perm'), event: 'ok' }, both.key, 'bearer')).status).toBe(202);
    expect((await post({ email: at('perm'), event: 'ok' }, 'sw_wrong')).status).toBe(401);
  });
});

describe('D14 GET /v1/campaigns/{id}/stats', () => {
  it('answers the statistics flat, in camelCase', async () => {
    server.sender.dispatcher.start();
    try {
      const listId = await t.list('stats list');
      for (const name of ['s1', 's2']) await t.contact({ email: at(name), list_id: listId });
      const campaign = await t.campaign(sendable([listId]));
      await t.send(campaign.id);
      await t.waitForStatus(campaign.id, 'SENT');
      const res = await server.request('GET', `/v1/campaigns/${campaign.id}/stats`, { key: t.key, auth: 'bearer' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        sent: 2,
        delivered: 2,
        opened: 0,
        clicked: 0,
        bounced: 0,
        complained: 0,
        unsubscribed: 0,
        openRate: 0,
        clickRate: 0,
        bounceRate: 0,
        clickToOpenRate: 0,
        unsubscribeRate: 0,
      });
    } finally {
      await server.sender.dispatcher.stop();
    }
  });

  it('a campaign not sent is 409 CAMPAIGN_NOT_SENT; a missing one 404; a bad id 400; needs campaigns.read', async () => {
    const draft = await t.campaign({});
    const notSent = await server.request('GET', `/v1/campaigns/${draft.id}/stats`, { key: t.key });
    expect(notSent.status).toBe(409);
    expect(notSent.body).toMatchObject({ success: false, error: 'Conflict', code: 'CAMPAIGN_NOT_SENT' });
    const missing = await server.request('GET', '/v1/campaigns/999999/stats', { key: t.key });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'CAMPAIGN_NOT_FOUND' });
    expect((await server.request('GET', '/v1/campaigns/abc/stats', { key: t.key })).status).toBe(400);
    const writer = await server.createKey(t.accountId, ['campaigns.write']);
    expect((await server.request('GET', `/v1/campaigns/${draft.id}/stats`, { key: writer.key })).status).toBe(403);
  });
});
