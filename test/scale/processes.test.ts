import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, spawnServer, type HttpResult, type ServerProcess } from './helpers.ts';

/**
 * Scale-out: several real `sendwell serve` processes on one PostgreSQL schema and one Redis
 * prefix behave as one service. Rate limits are shared (D10: "the limit holds across all of
 * them"), a key change made through one process holds on the others (D8), and the batched usage
 * counters of every process add up (D9). Runs only in the postgres+redis project.
 */
describe.skipIf(!process.env.TEST_REDIS_URL)('several processes on one PostgreSQL and Redis', () => {
  // The harness server owns the schema and the Redis prefix; the processes run on its env.
  let server: TestServer;
  let a: ServerProcess;
  let b: ServerProcess;

  const startPair = () => Promise.all([spawnServer(server.env), spawnServer(server.env)]);
  const get = (proc: ServerProcess, path: string, key: string) => httpRequest(proc.url, 'GET', path, { key });

  beforeAll(async () => {
    server = await startTestServer();
    [a, b] = await startPair();
    // Warm both processes (pool connections, compiled code) on an account of its own, so the
    // burst below is not slowed by first-request work; the Free account itself stays untouched.
    const warm = await server.createAccountWithKey();
    for (const proc of [a, b]) {
      const results = await Promise.all(Array.from({ length: 10 }, () => get(proc, '/api/v1/lists', warm.key)));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    }
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await killLeftovers();
    // Last: it drops the schema the processes used.
    await server?.close();
  });

  it('D10: a Free burst of 20 concurrent requests spread over two processes lets exactly 10 through', async () => {
    const account = await server.createAccount({ plan: 'free' });
    const { key } = await server.createKey(account.id, ['*']);

    // All 20 at once, alternating between the processes: the first to reach the limiter opens the
    // 1-second window, and all of them land in it. Separate budgets per process would pass all 20.
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 === 0 ? a : b, '/api/v1/lists', key)));

    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect({ ok: ok.length, limited: limited.length }).toEqual({ ok: 10, limited: 10 });

    // The minute window is shared too: the ten accepted requests spent it from 59 down to 50, once each.
    expect(ok.map((r) => r.headers['ratelimit-limit'])).toEqual(Array(10).fill('60'));
    expect(ok.map((r) => Number(r.headers['ratelimit-remaining'])).sort((x, y) => x - y)).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);

    // Each 429 names the exceeded per-second window (D10).
    for (const r of limited) {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['ratelimit-limit']).toBe('60');
      expect(r.body).toEqual({
        success: false,
        error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
        retryAfter: 1,
        limit: 10,
        remaining: 0,
        resetAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      });
    }
  });

  /** Asks `proc` every 50 ms, for at most a second, until it answers `status`; returns every status seen. */
  async function pollUntil(proc: ServerProcess, key: string, status: number): Promise<number[]> {
    const seen: number[] = [];
    const deadline = Date.now() + 1000;
    for (;;) {
      const res = await get(proc, '/api/v1/lists', key);
      seen.push(res.status);
      if (res.status === status || Date.now() >= deadline) return seen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const expectUnauthorized = (res: HttpResult) =>
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } } });

  it('D8/D9: a key deactivated through one process gets 401 from the other within a second, and works again once activated', async () => {
    // Starter: room for the key under test and a second `*` key that manages it.
    const account = await server.createAccount({ plan: 'starter' });
    const used = await server.createKey(account.id, ['*'], { name: 'used on both' });
    const admin = await server.createKey(account.id, ['*'], { name: 'admin' });

    // Both processes have the key cached as Active.
    expect((await get(a, '/api/v1/lists', used.key)).status).toBe(200);
    expect((await get(b, '/api/v1/lists', used.key)).status).toBe(200);

    const deactivated = await httpRequest(a.url, 'POST', `/api/v1/api-keys/${used.id}/deactivate`, { key: admin.key });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toMatchObject({ success: true, message: 'API key deactivated', data: { id: used.id, status: 'Revoked', permanently_revoked: false } });

    // The process that made the change refuses the key at once.
    expectUnauthorized(await get(a, '/api/v1/lists', used.key));

    // The other one hears of it through Redis: 401 within a second (its cache alone would keep it for a minute).
    const seenOnB = await pollUntil(b, used.key, 401);
    expect(seenOnB.at(-1)).toBe(401);
    expect(seenOnB.slice(0, -1).every((s) => s === 200)).toBe(true);
    expectUnauthorized(await get(b, '/api/v1/lists', used.key));

    // The other direction: activated through B, accepted again by A within a second.
    const activated = await httpRequest(b.url, 'POST', `/api/v1/api-keys/${used.id}/activate`, { key: admin.key });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ success: true, data: { id: used.id, status: 'Active' } });
    const seenOnA = await pollUntil(a, used.key, 200);
    expect(seenOnA.at(-1)).toBe(200);
    expect(seenOnA.slice(0, -1).every((s) => s === 401)).toBe(true);
  });

  it('D9: usage counted by both processes adds up exactly once they stop cleanly', async () => {
    const [c, d] = await startPair();
    const { accountId, keyId, key } = await server.createAccountWithKey();

    // 7 requests on C, 5 on D, over three routes.
    const created = [];
    for (let i = 0; i < 3; i++) {
      const res = await httpRequest(c.url, 'POST', '/api/v1/lists', { key, body: { name: `usage list ${i}` } });
      expect(res.status).toBe(200);
      created.push(res.body.data.id as number);
    }
    for (let i = 0; i < 4; i++) expect((await get(c, '/api/v1/lists', key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(d, '/api/v1/lists', key)).status).toBe(200);
    for (const id of created.slice(0, 2)) expect((await get(d, `/api/v1/lists/${id}`, key)).status).toBe(200);

    // A clean stop flushes what each process still holds in memory (D9: never lost on clean stop).
    expect(await Promise.all([c.stop(), d.stop()])).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);

    const row = await server.db.selectFrom('api_keys').select(['request_count', 'last_used_at']).where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(Number(row.request_count)).toBe(12);
    expect(row.last_used_at).not.toBeNull();

    const endpoints = await server.db
      .selectFrom('api_key_endpoint_usage')
      .select(['method', 'route', 'count'])
      .where('key_id', '=', keyId)
      .orderBy('method')
      .orderBy('route')
      .execute();
    expect(endpoints.map((e) => ({ ...e, count: Number(e.count) }))).toEqual([
      { method: 'GET', route: '/api/v1/lists', count: 7 },
      { method: 'GET', route: '/api/v1/lists/:id', count: 2 },
      { method: 'POST', route: '/api/v1/lists', count: 3 },
    ]);

    // The same totals through the API (read through the harness server, on another key).
    const admin = await server.createKey(accountId, ['*']);
    const viaApi = await server.request('GET', `/api/v1/api-keys/${keyId}`, { key: admin.key });
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.data.request_count).toBe(12);
  });
});
