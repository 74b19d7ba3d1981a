/**
 * Issue 28, "one fair scheduler for every shared queue": webhook deliveries. Account A's two
 * endpoints hang until the timeout and A has a backlog due before B's one delivery. Claimed
 * oldest-first with only a per-endpoint cap, A's two endpoints held every slot and B's delivery
 * waited for A's whole backlog; claimed fairly (at most a few per account per claim, in turn
 * order, and at most one slot more than an endpoint's share per account), B's goes out at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountClients, type Client } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, startReceiver, type Receiver } from '../webhooks-out/receiver.ts';

// Four slots: two per endpoint and (after the fix) three per account. A's receivers never answer,
// so each of A's attempts holds its slot for the whole timeout.
const CONFIG = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '600000', WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_CONCURRENCY: '4' };
const BACKLOG_PER_ENDPOINT = 6;

let receiver: Receiver;
let server: TestServer;
const { newAccount } = accountClients(() => server);

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer(CONFIG);
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

async function endpoint(c: Client, path: string) {
  const res = await c.call('POST', '/api/v1/webhooks', { url: receiver.url + path, event_types: ['email.sent'] });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id as number;
}

async function sendTest(c: Client, id: number) {
  const res = await c.call('POST', `/api/v1/webhooks/${id}/test`);
  expect(res.status, res.text).toBe(200);
}

describe('issue 28: webhook deliveries are shared fairly between accounts', () => {
  it("B's delivery reaches B's receiver while A's hanging endpoints still have most of A's backlog", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const aPaths = ['/a-slow-1', '/a-slow-2'];
    for (const path of aPaths) receiver.answer(path, () => undefined); // never answers: A's attempts time out
    const aEndpoints = [await endpoint(a, aPaths[0]), await endpoint(a, aPaths[1])];
    for (let i = 0; i < BACKLOG_PER_ENDPOINT; i++) for (const id of aEndpoints) await sendTest(a, id);
    // B's one delivery is due after every one of A's.
    await sendTest(b, await endpoint(b, '/b'));

    server.sender.webhookDelivery.start();
    await eventually(() => receiver.on('/b').length > 0, "B's delivery to arrive", 30_000);
    const aSeen = aPaths.reduce((n, path) => n + receiver.on(path).length, 0);
    // A's attempts that had started when B's arrived: at most A's share of the slots, not its backlog.
    expect(aSeen).toBeLessThanOrEqual(3);
    expect(aSeen).toBeLessThan(aPaths.length * BACKLOG_PER_ENDPOINT);
  });
});
