/**
 * Issue 14 L1: dashboard sessions bypassed the plan's rate limits. A session is metered per
 * account on a budget of its own: SESSION_RATE_LIMIT_FACTOR (default 10) times the plan's API
 * rates, apart from what the account's keys may spend. This server runs the factor at 1 so the
 * Free plan's 60 a minute (10 a second) is quick to spend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../src/domain/accounts/plans.ts';
import { SESSION_RATE_FACTOR } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { cookieOf } from './sign-up.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ SESSION_RATE_LIMIT_FACTOR: '1' });
});
afterAll(() => server?.close());

/** Signs up on the server (the first sign-up on a fresh instance is signed in at once) and answers the session cookie. */
async function session(on: TestServer): Promise<{ cookie: string; accountId: number }> {
  const res = await on.request('POST', '/api/v1/auth/signup', { body: { email: `owner-${Date.now()}@example.com`, password: 'a long enough password' } });
  expect(res.status, res.text).toBe(200);
  return { cookie: cookieOf(res)!, accountId: res.body.data.account.id };
}

describe('L1: dashboard sessions are metered per account on a budget of their own', () => {
  it('a session on the Free plan that spends its budget gets 429 RATE_LIMIT_EXCEEDED; the account\'s key keeps its own budget', async () => {
    const { cookie, accountId } = await session(server);
    const { key } = await server.createKey(accountId, ['lists.read']);
    const free = PLAN_LIMITS.free.rate!;
    let limited = null;
    for (let i = 0; i <= free.perMinute && !limited; i++) {
      const res = await server.request('GET', '/api/v1/lists', { headers: { cookie } });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    expect(limited, `no 429 within ${free.perMinute + 1} requests`).not.toBeNull();
    expect(limited!.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' }, retryAfter: expect.any(Number) });
    expect([free.perSecond, free.perMinute]).toContain(limited!.body.limit);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited!.headers.get('ratelimit-limit')).toBe(String(free.perMinute));
    const byKey = await server.request('GET', '/api/v1/lists', { key });
    expect(byKey.status).toBe(200);
  });

  it(`by default a session may make ${SESSION_RATE_FACTOR} times its plan's rate`, async () => {
    const byDefault = await startTestServer();
    try {
      const { cookie } = await session(byDefault);
      const res = await byDefault.request('GET', '/api/v1/lists', { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(PLAN_LIMITS.free.rate!.perMinute * SESSION_RATE_FACTOR));
    } finally {
      await byDefault.close();
    }
  });
});
