/**
 * The delivery worker against a real local receiver (issue 5 §3): signed JSON POSTs, the delivery
 * log, retries with backoff, giving up after the window, timeouts, capped answers, no redirects.
 * WEBHOOKS_ALLOW_PRIVATE is on here (the receiver is on 127.0.0.1); private-addresses.test.ts
 * checks the refusal without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountClients, type Client } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, startReceiver, status, verifySignature, type Receiver } from './receiver.ts';

const FAST = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_TIMEOUT_MS: '1500' };

let receiver: Receiver;
let server: TestServer;
const { newAccount } = accountClients(() => server);

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer(FAST);
  server.sender.webhookDelivery.start();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

let seq = 0;
/** An endpoint on its own receiver path; returns its id, path and secret. */
async function endpoint(c: Client, eventTypes = ['email.sent']) {
  const path = `/hook-${++seq}`;
  const res = await c.call('POST', '/api/v1/webhooks', { url: receiver.url + path, event_types: eventTypes });
  expect(res.status, res.text).toBe(200);
  return { id: res.body.data.id as number, path, secret: res.body.data.secret as string };
}

async function sendTest(c: Client, id: number) {
  const res = await c.call('POST', `/api/v1/webhooks/${id}/test`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.id as number;
}

async function deliveryLog(c: Client, id: number): Promise<any[]> {
  const res = await c.call('GET', `/api/v1/webhooks/${id}/deliveries?size=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.deliveries;
}

/** Polls the log until the delivery has one of `statuses`. */
function settled(c: Client, endpointId: number, deliveryId: number, statuses: string[] = ['DELIVERED', 'FAILED']) {
  return eventually(async () => (await deliveryLog(c, endpointId)).find((d) => d.id === deliveryId && statuses.includes(d.status)), `delivery ${deliveryId} to be ${statuses.join(' or ')}`);
}

describe('a delivery', () => {
  it('is a signed JSON POST with the event, delivery and user-agent headers, and is logged DELIVERED', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    const deliveryId = await sendTest(c, ep.id);
    const done = await settled(c, ep.id, deliveryId);
    const [hook] = receiver.on(ep.path);
    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers['sendwell-event']).toBe('webhook.test');
    expect(hook.headers['sendwell-delivery']).toBe(String(deliveryId));
    expect(hook.headers['user-agent']).toBe('Sendwell-Webhooks');
    expect(hook.headers['sendwell-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(hook.body)).toEqual({
      id: done.event_id,
      type: 'webhook.test',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      account_id: c.accountId,
      data: { webhook_id: ep.id, message: expect.any(String) },
    });
    expect(done).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: expect.any(String) });
    expect(done.attempt_log).toEqual([{ attempted_at: expect.any(String), status_code: 200, error: null, duration_ms: expect.any(Number), response_excerpt: 'ok' }]);
  });

  it('verifies with the documented procedure; a changed body, another secret or an old timestamp does not', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    await settled(c, ep.id, await sendTest(c, ep.id));
    const [hook] = receiver.on(ep.path);
    const signature = hook.headers['sendwell-signature'];
    expect(verifySignature(ep.secret, signature, hook.body)).toBe(true);
    const tampered = hook.body.replace(`"account_id":${c.accountId}`, `"account_id":${c.accountId + 1}`);
    expect(tampered).not.toBe(hook.body);
    expect(verifySignature(ep.secret, signature, tampered)).toBe(false);
    expect(verifySignature(ep.secret, signature, hook.body + ' ')).toBe(false);
    expect(verifySignature(`${ep.secret}x`, signature, hook.body)).toBe(false);
    expect(verifySignature(ep.secret, signature, hook.body, Date.now() + 10 * 60_000)).toBe(false);
  });

  it('is signed with the secret in force when it is made: after a rotation, the new one', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    await settled(c, ep.id, await sendTest(c, ep.id));
    const rotated = (await c.call('POST', `/api/v1/webhooks/${ep.id}/rotate-secret`)).body.data.secret;
    await settled(c, ep.id, await sendTest(c, ep.id));
    const [before, after] = receiver.on(ep.path);
    expect(verifySignature(ep.secret, before.headers['sendwell-signature'], before.body)).toBe(true);
    expect(verifySignature(rotated, after.headers['sendwell-signature'], after.body)).toBe(true);
    expect(verifySignature(ep.secret, after.headers['sendwell-signature'], after.body)).toBe(false);
  });

  it('goes to the endpoint whose secret signs it: two endpoints, two secrets', async () => {
    const c = await newAccount();
    const one = await endpoint(c);
    const two = await endpoint(c);
    await settled(c, one.id, await sendTest(c, one.id));
    await settled(c, two.id, await sendTest(c, two.id));
    const [a] = receiver.on(one.path);
    const [b] = receiver.on(two.path);
    expect(verifySignature(one.secret, a.headers['sendwell-signature'], a.body)).toBe(true);
    expect(verifySignature(two.secret, b.headers['sendwell-signature'], b.body)).toBe(true);
    expect(verifySignature(one.secret, b.headers['sendwell-signature'], b.body)).toBe(false);
  });
});

describe('failures', () => {
  it('retries after 500s with backoff: 500, 500, 200 is DELIVERED after 3 attempts, each in the log', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    receiver.answer(ep.path, (res, n) => status(n < 2 ? 500 : 200, n < 2 ? 'try later' : 'thanks')(res));
    const done = await settled(c, ep.id, await sendTest(c, ep.id));
    expect(done).toMatchObject({ status: 'DELIVERED', attempts: 3, last_status_code: 200, last_error: null });
    expect(done.attempt_log.map((a: any) => [a.status_code, a.error, a.response_excerpt])).toEqual([
      [500, 'the receiver answered 500', 'try later'],
      [500, 'the receiver answered 500', 'try later'],
      [200, null, 'thanks'],
    ]);
    // The same bytes each time (a new signature timestamp, the same event).
    const bodies = receiver.on(ep.path).map((h) => h.body);
    expect(new Set(bodies).size).toBe(1);
  });

  it('does not follow redirects: a 302 is a failed attempt, and its target gets nothing', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    receiver.answer(ep.path, (res, n) => (n === 0 ? res.writeHead(302, { location: `${ep.path}-elsewhere` }).end() : status(204)(res)));
    const done = await settled(c, ep.id, await sendTest(c, ep.id));
    expect(done.attempt_log.map((a: any) => a.status_code)).toEqual([302, 204]);
    expect(receiver.on(`${ep.path}-elsewhere`)).toEqual([]);
  });

  it('records a receiver that never answers as timed out, and retries it', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    receiver.answer(ep.path, (res, n) => {
      if (n > 0) status(200)(res); // the first request is left hanging
    });
    const done = await settled(c, ep.id, await sendTest(c, ep.id));
    expect(done.status).toBe('DELIVERED');
    expect(done.attempt_log).toHaveLength(2);
    expect(done.attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/^timed out/), response_excerpt: null });
    expect(done.attempt_log[0].duration_ms).toBeGreaterThanOrEqual(1000);
  });

  it('cuts off an oversized answer and still records the delivery', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    const huge = 'x'.repeat(8 * 1024 * 1024);
    receiver.answer(ep.path, (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(huge));
    const done = await settled(c, ep.id, await sendTest(c, ep.id));
    expect(done.status).toBe('DELIVERED');
    const [attempt] = done.attempt_log;
    expect(attempt.status_code).toBe(200);
    expect(attempt.response_excerpt.startsWith('x'.repeat(1024))).toBe(true);
    expect(attempt.response_excerpt).toMatch(/cut off after 65536 bytes/);
    expect(attempt.response_excerpt.length).toBeLessThan(1200);
  });

  it('reports a connection refused as a network error and keeps retrying', async () => {
    const c = await newAccount();
    // A port nothing listens on: the receiver's own port closed is not certain to stay free, so use port 9 (discard), refused on loopback.
    const res = await c.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/nothing', event_types: ['email.sent'] });
    const id = res.body.data.id;
    const deliveryId = await sendTest(c, id);
    const pending = await eventually(async () => (await deliveryLog(c, id)).find((d) => d.id === deliveryId && d.attempts >= 2), 'two attempts');
    expect(pending).toMatchObject({ status: 'PENDING', last_status_code: null, last_error: expect.stringMatching(/^network error: ECONNREFUSED/) });
    expect(pending.next_attempt_at).toEqual(expect.any(String));
  });
});

describe('claims', () => {
  it("leaves a live claim alone and takes back a crashed worker's claim once its lease has passed", async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    await server.sender.webhookDelivery.stop();
    const deliveryId = await sendTest(c, ep.id);
    // As a worker that died mid-delivery leaves it: claimed, with a lease still running for a moment.
    const leaseEnds = Date.now() + 1500;
    await server.db.updateTable('webhook_deliveries').set({ locked_until: new Date(leaseEnds).toISOString() }).where('id', '=', deliveryId).execute();
    server.sender.webhookDelivery.start();
    // Another delivery going through shows the worker has looked while the lease held.
    const other = await endpoint(c);
    await settled(c, other.id, await sendTest(c, other.id));
    if (Date.now() < leaseEnds) {
      expect((await deliveryLog(c, ep.id))[0]).toMatchObject({ id: deliveryId, status: 'PENDING', attempts: 0 });
      expect(receiver.on(ep.path)).toEqual([]);
    }
    const done = await settled(c, ep.id, deliveryId);
    expect(done).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(Date.parse(done.attempt_log[0].attempted_at + 'Z')).toBeGreaterThanOrEqual(Math.floor(leaseEnds / 1000) * 1000);
  });

  it('holds deliveries of an inactive endpoint until it is activated again', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    expect((await c.call('PUT', `/api/v1/webhooks/${ep.id}`, { is_active: false })).status).toBe(200);
    const deliveryId = await sendTest(c, ep.id);
    // A delivery queued after this one, to an active endpoint, going through shows the worker has looked.
    const other = await endpoint(c);
    await settled(c, other.id, await sendTest(c, other.id));
    expect((await deliveryLog(c, ep.id))[0]).toMatchObject({ id: deliveryId, status: 'PENDING', attempts: 0 });
    expect(receiver.on(ep.path)).toEqual([]);
    expect((await c.call('PUT', `/api/v1/webhooks/${ep.id}`, { is_active: true })).status).toBe(200);
    expect((await settled(c, ep.id, deliveryId)).status).toBe('DELIVERED');
  });
});

describe('the retry window', () => {
  it('marks a delivery FAILED once the window since the event has passed', async () => {
    const short = await startTestServer({ ...FAST, WEBHOOK_RETRY_WINDOW_MS: '300' });
    try {
      short.sender.webhookDelivery.start();
      const { key } = await short.createAccountWithKey();
      const call = (method: string, path: string, body?: unknown) => short.request(method, path, { key, body });
      const path = `/hook-${++seq}`;
      receiver.answer(path, status(503, 'down'));
      const { id } = (await call('POST', '/api/v1/webhooks', { url: receiver.url + path, event_types: ['email.sent'] })).body.data;
      const deliveryId = (await call('POST', `/api/v1/webhooks/${id}/test`)).body.data.id;
      const failed = await eventually(async () => (await call('GET', `/api/v1/webhooks/${id}/deliveries`)).body.data.deliveries.find((d: any) => d.id === deliveryId && d.status === 'FAILED'), 'FAILED');
      expect(failed.attempts).toBeGreaterThanOrEqual(2);
      expect(failed.attempt_log).toHaveLength(failed.attempts);
      expect(failed).toMatchObject({ last_status_code: 503, last_error: 'the receiver answered 503', next_attempt_at: null, delivered_at: null });
      // No attempt after FAILED: the attempts logged are all the receiver saw.
      expect(receiver.on(path)).toHaveLength(failed.attempts);
    } finally {
      await short.close();
    }
  });
});

describe('a hanging endpoint', () => {
  it('takes at most half the slots: another endpoint is delivered while its attempts hang', async () => {
    const small = await startTestServer({ ...FAST, WEBHOOK_CONCURRENCY: '2', WEBHOOK_TIMEOUT_MS: '3000' });
    try {
      const { key } = await small.createAccountWithKey();
      const call = (method: string, path: string, body?: unknown) => small.request(method, path, { key, body });
      const hangingPath = `/hook-${++seq}`;
      const goodPath = `/hook-${++seq}`;
      receiver.answer(hangingPath, () => undefined); // never answers
      const hanging = (await call('POST', '/api/v1/webhooks', { url: receiver.url + hangingPath, event_types: ['email.sent'] })).body.data.id;
      const good = (await call('POST', '/api/v1/webhooks', { url: receiver.url + goodPath, event_types: ['email.sent'] })).body.data.id;
      // Queued first, so without a per-endpoint share they would fill both slots.
      for (let i = 0; i < 3; i++) await call('POST', `/api/v1/webhooks/${hanging}/test`);
      const goodDelivery = (await call('POST', `/api/v1/webhooks/${good}/test`)).body.data.id;
      small.sender.webhookDelivery.start();
      await eventually(async () => (await call('GET', `/api/v1/webhooks/${good}/deliveries`)).body.data.deliveries.find((d: any) => d.id === goodDelivery && d.status === 'DELIVERED'), 'the good delivery');
      // The hanging endpoint has had one request at a time, none finished yet.
      expect(receiver.on(hangingPath)).toHaveLength(1);
      const hangingLog = (await call('GET', `/api/v1/webhooks/${hanging}/deliveries`)).body.data.deliveries;
      expect(hangingLog.map((d: any) => d.attempts)).toEqual([0, 0, 0]);
    } finally {
      await small.close();
    }
  });
});

describe('the delivery log', () => {
  it('drops finished deliveries past WEBHOOK_LOG_RETENTION_DAYS with their attempts; keeps pending and recent ones', async () => {
    const c = await newAccount();
    const ep = await endpoint(c);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await sendTest(c, ep.id));
    for (const id of ids) await settled(c, ep.id, id);
    await server.sender.webhookDelivery.stop();
    const pending = await sendTest(c, ep.id);
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const [old, failedOld, recent] = ids;
    await server.db.updateTable('webhook_deliveries').set({ created_at: longAgo }).where('id', 'in', [old, failedOld, pending]).execute();
    await server.db.updateTable('webhook_deliveries').set({ status: 'FAILED' }).where('id', '=', failedOld).execute();
    // The worker prunes as it starts (then hourly); the pending one keeps it busy, so stop it after.
    server.sender.webhookDelivery.start();
    await eventually(async () => (await deliveryLog(c, ep.id)).length === 2, 'the old deliveries to go');
    expect((await deliveryLog(c, ep.id)).map((d) => d.id).sort()).toEqual([recent, pending].sort());
    expect(await server.db.selectFrom('webhook_delivery_attempts').select('id').where('delivery_id', 'in', [old, failedOld]).execute()).toEqual([]);
  });
});

describe('two workers on one database', () => {
  it('deliver each delivery exactly once between them', async () => {
    const other = await startTestServer({ ...server.env, ...FAST });
    try {
      other.sender.webhookDelivery.start();
      const c = await newAccount();
      const one = await endpoint(c);
      const two = await endpoint(c);
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) for (const ep of [one, two]) ids.push(await sendTest(c, ep.id));
      for (const ep of [one, two]) await eventually(async () => (await deliveryLog(c, ep.id)).every((d) => d.status === 'DELIVERED'), 'all delivered');
      const seen = [...receiver.on(one.path), ...receiver.on(two.path)].map((h) => Number(h.headers['sendwell-delivery']));
      expect(seen.sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
      const logs = [...(await deliveryLog(c, one.id)), ...(await deliveryLog(c, two.id))];
      expect(logs.every((d) => d.attempts === 1 && d.attempt_log.length === 1)).toBe(true);
    } finally {
      await other.close({ keepData: true });
    }
  });
});
