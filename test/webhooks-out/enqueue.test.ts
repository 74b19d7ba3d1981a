/**
 * enqueueWebhookEvent(s), the one way every part of the service emits an event: a delivery row per
 * (event, active endpoint of the event's account subscribed to its type), in the caller's
 * transaction, so a rolled-back change sends nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueWebhookEvent, enqueueWebhookEvents, type WebhookEvent } from '../../src/domain/outbound-webhooks/enqueue.ts';
import { startTestServer } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());

async function account(endpoints: { types: string[]; active?: boolean }[]) {
  const { accountId, key } = await server.createAccountWithKey();
  const ids: number[] = [];
  for (const [i, e] of endpoints.entries()) {
    const res = await server.request('POST', '/api/v1/webhooks', { key, body: { url: `https://hooks.example.com/${i}`, event_types: e.types, is_active: e.active ?? true } });
    expect(res.status, res.text).toBe(200);
    ids.push(res.body.data.id);
  }
  return { accountId, endpoints: ids };
}

async function deliveriesOf(endpointIds: number[]) {
  const rows = await server.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', 'in', endpointIds).orderBy('id').execute();
  return rows.map((r) => ({ endpoint: Number(r.endpoint_id), type: r.event_type, body: JSON.parse(r.payload), status: r.status, eventId: r.event_id }));
}

describe('fan-out', () => {
  it('gives each subscribed active endpoint of the account one delivery per event, and no one else any', async () => {
    const a = await account([{ types: ['email.sent', 'email.opened'] }, { types: ['email.sent'] }, { types: ['email.sent'], active: false }, { types: ['contact.created'] }]);
    const b = await account([{ types: ['email.sent'] }]);
    const events: WebhookEvent[] = [
      { accountId: a.accountId, type: 'email.sent', data: { n: 1 } },
      { accountId: a.accountId, type: 'email.opened', data: { n: 2 } },
      { accountId: a.accountId, type: 'email.sent', data: { n: 3 } },
      { accountId: b.accountId, type: 'email.opened', data: { n: 4 } },
      { accountId: b.accountId, type: 'email.sent', data: { n: 5 } },
      { accountId: a.accountId, type: 'campaign.sent', data: { n: 6 } },
    ];
    await server.db.transaction().execute((trx) => enqueueWebhookEvents(trx, events));
    const [a0, a1, a2, a3] = a.endpoints;
    const got = await deliveriesOf([...a.endpoints, ...b.endpoints]);
    const summary = got.map((d) => `${d.endpoint === b.endpoints[0] ? 'b0' : `a${a.endpoints.indexOf(d.endpoint)}`} ${d.type} ${d.body.data.n}`).sort();
    expect(summary).toEqual(['a0 email.opened 2', 'a0 email.sent 1', 'a0 email.sent 3', 'a1 email.sent 1', 'a1 email.sent 3', 'b0 email.sent 5']);
    expect(got.every((d) => d.status === 'PENDING')).toBe(true);
    expect(got.filter((d) => [a2, a3].includes(d.endpoint))).toEqual([]);
    // One event, one id, whichever endpoint gets it; the body carries it and the account.
    const first = got.filter((d) => d.body.data.n === 1);
    expect(new Set(first.map((d) => d.eventId)).size).toBe(1);
    expect(first.map((d) => d.endpoint).sort()).toEqual([a0, a1].sort());
    expect(first[0].body).toEqual({ id: first[0].eventId, type: 'email.sent', created_at: expect.any(String), account_id: a.accountId, data: { n: 1 } });
  });

  it('splits a large batch over several statements without losing any', async () => {
    const a = await account([{ types: ['email.sent'] }]);
    const events = Array.from({ length: 450 }, (_, n): WebhookEvent => ({ accountId: a.accountId, type: 'email.sent', data: { n } }));
    await server.db.transaction().execute((trx) => enqueueWebhookEvents(trx, events));
    const got = await deliveriesOf(a.endpoints);
    expect(got.map((d) => d.body.data.n).sort((x, y) => x - y)).toEqual(events.map((_, n) => n));
  });

  it('writes nothing when the transaction rolls back', async () => {
    const a = await account([{ types: ['email.sent'] }]);
    await expect(
      server.db.transaction().execute(async (trx) => {
        await enqueueWebhookEvent(trx, { accountId: a.accountId, type: 'email.sent', data: {} });
        await enqueueWebhookEvents(trx, [{ accountId: a.accountId, type: 'email.sent', data: {} }, { accountId: a.accountId, type: 'email.sent', data: {} }]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await deliveriesOf(a.endpoints)).toEqual([]);
  });

  it('does nothing for an account without endpoints, or an empty batch', async () => {
    const a = await account([]);
    await enqueueWebhookEvents(server.db, []);
    await enqueueWebhookEvents(server.db, [{ accountId: a.accountId, type: 'email.sent', data: {} }, { accountId: a.accountId, type: 'email.opened', data: {} }]);
    await enqueueWebhookEvent(server.db, { accountId: a.accountId, type: 'email.sent', data: {} });
    const mine = await server.db.selectFrom('webhook_deliveries').innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id').select('webhook_deliveries.id').where('webhook_endpoints.account_id', '=', a.accountId).execute();
    expect(mine).toEqual([]);
  });
});
