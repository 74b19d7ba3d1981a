/**
 * Rate limits (spec "Limits", D8, D10): one budget per account shared by its keys, a per-second
 * burst and a per-minute window, RateLimit-* headers on every authenticated response (never on
 * Enterprise), 429 with Retry-After and the four body fields. Every test uses a fresh account, so
 * budgets never leak between tests. The only waits are for windows to roll over.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/api-keys/key-format.ts';
import type { Plan } from '../../src/domain/accounts/plans.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const server = await startTestServer();
afterAll(() => server.close());

/** The documented integration routes (none yet is fine: an unknown /v1 path shows the flat form). */
const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
const integrationRoutes = Object.entries<any>(doc?.paths ?? {})
  .filter(([path]) => path.startsWith('/v1/'))
  .flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{\w+\}/g, '1') })));

const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Just over a second: the per-second window has surely rolled over. */
const nextSecond = () => sleep(1100);

const account = (plan: Plan) => server.createAccountWithKey(['*'], plan);
const get = (key: string, path = '/api/v1/lists') => server.request('GET', path, { key });
const burst = (n: number, key: string | string[], path?: string) =>
  Promise.all(Array.from({ length: n }, (_, i) => get(Array.isArray(key) ? key[i % key.length] : key, path)));

const header = (res: ApiResponse, name: string) => res.headers.get(name);
const remainingOf = (responses: ApiResponse[]) => responses.map((r) => Number(header(r, 'RateLimit-Remaining'))).sort((x, y) => y - x);
const range = (from: number, downTo: number) => Array.from({ length: from - downTo + 1 }, (_, i) => from - i);

function expectStatuses(responses: ApiResponse[], status: number) {
  expect(responses.map((r) => r.status)).toEqual(responses.map(() => status));
}

/** The RateLimit-* headers of the minute window (D10). */
function expectRateHeaders(res: ApiResponse, limit: number, remaining?: number) {
  expect(header(res, 'RateLimit-Limit')).toBe(String(limit));
  const left = Number(header(res, 'RateLimit-Remaining'));
  expect(Number.isInteger(left) && left >= 0 && left <= limit, `RateLimit-Remaining ${header(res, 'RateLimit-Remaining')}`).toBe(true);
  if (remaining !== undefined) expect(left).toBe(remaining);
  const reset = Number(header(res, 'RateLimit-Reset'));
  expect(Number.isInteger(reset) && reset >= 0 && reset <= 60, `RateLimit-Reset ${header(res, 'RateLimit-Reset')}`).toBe(true);
}

function expectNoRateHeaders(res: ApiResponse) {
  for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) expect(header(res, h), h).toBeNull();
}

/**
 * D10's 429: Retry-After in whole seconds >= 1, equal to `retryAfter`; `limit` and `remaining` of the
 * exceeded window; `resetAt` in D1's form, no earlier than now and no later than Retry-After allows.
 */
function expect429(res: ApiResponse, opts: { limit: number; flat?: boolean; sentAt: number }) {
  expect(res.status, res.text).toBe(429);
  const retryAfter = Number(header(res, 'Retry-After'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${header(res, 'Retry-After')}`).toBe(true);
  const error = opts.flat
    ? { error: 'Too Many Requests', code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) }
    : { error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) } };
  expect(res.body).toEqual({ success: false, ...error, retryAfter, limit: opts.limit, remaining: 0, resetAt: expect.stringMatching(D1_TIMESTAMP) });
  const resetAt = Date.parse(res.body.resetAt + 'Z');
  expect(resetAt).toBeGreaterThanOrEqual(Math.floor(opts.sentAt / 1000) * 1000);
  expect(resetAt).toBeLessThanOrEqual(Date.now() + retryAfter * 1000 + 1000);
  return retryAfter;
}

interface BurstResult {
  batch: ApiResponse[];
  extra: ApiResponse;
  sentAt: number;
}

/**
 * `n` requests at once (rotating over the keys `setup` makes on a fresh account), then one more.
 * A burst proves something only if it fits its one-second window; on a machine so loaded that it
 * did not, the attempt is repeated on a fresh account (at most 3 attempts, then judged as it is).
 */
async function burstAndOneMore(n: number, setup: () => Promise<string[]>, path = '/api/v1/lists'): Promise<BurstResult> {
  for (let attempt = 1; ; attempt++) {
    const keys = await setup();
    // Warm the key cache so the burst does no key lookups.
    for (const k of keys) await server.core.apiKeys.authenticate(k);
    const started = Date.now();
    const batch = await burst(n, keys, path);
    const sentAt = Date.now();
    const extra = await get(keys[0], path);
    if (Date.now() - started < 1000 || attempt === 3) return { batch, extra, sentAt };
  }
}
const freshKey = (plan: Plan) => async () => [(await account(plan)).key];

describe('Free plan: 10 per second, 60 per minute (spec Limits, D10)', () => {
  it('the 11th request within a second is 429 with Retry-After, the four fields and the RateLimit-* headers; after Retry-After it passes', async () => {
    let key = '';
    const { batch: ten, extra: eleventh, sentAt } = await burstAndOneMore(10, async () => [(key = (await account('free')).key)]);
    expectStatuses(ten, 200);
    expect(remainingOf(ten)).toEqual(range(59, 50));
    for (const res of ten) expectRateHeaders(res, 60);

    const retryAfter = expect429(eleventh, { limit: 10, sentAt });
    // The burst window was exceeded; the headers still describe the minute window, which the rejected request did not spend.
    expectRateHeaders(eleventh, 60, 50);

    await sleep(retryAfter * 1000);
    const later = await get(key);
    expect(later.status).toBe(200);
    expectRateHeaders(later, 60, 49);
  });

  it('the minute window: 60 requests spread over 6 seconds pass, the 61st is 429 with limit 60', async () => {
    const { key } = await account('free');
    const all: ApiResponse[] = [];
    for (let second = 0; second < 6; second++) {
      if (second > 0) await nextSecond();
      const ten = await burst(10, key);
      expectStatuses(ten, 200);
      all.push(...ten);
    }
    expect(remainingOf(all)).toEqual(range(59, 0));
    for (const res of all) expectRateHeaders(res, 60);

    await nextSecond();
    const sentAt = Date.now();
    const sixtyFirst = await get(key);
    const retryAfter = expect429(sixtyFirst, { limit: 60, sentAt });
    expectRateHeaders(sixtyFirst, 60, 0);
    // The minute window is the one exceeded: its reset and Retry-After agree.
    expect(Number(header(sixtyFirst, 'RateLimit-Reset'))).toBe(retryAfter);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('every authenticated response carries the RateLimit-* headers, whatever its status', async () => {
    const { accountId, key } = await account('free');
    const narrow = await server.createKey(accountId, ['contacts.read'], { name: 'no lists.read' });
    const ok = await get(key);
    const invalid = await get(key, '/api/v1/lists?size=0');
    const unknown = await get(key, '/api/v1/no-such-route');
    const denied = await get(narrow.key);
    const missing = await get(key, '/api/v1/lists/987654');
    await nextSecond();
    const malformed = await server.request('POST', '/api/v1/lists', { key, rawBody: '{"name":' });
    const notJson = await server.request('POST', '/api/v1/lists', { key, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    const tooLarge = await server.request('POST', '/api/v1/lists', { key, rawBody: JSON.stringify({ name: 'x', pad: 'x'.repeat(1024 * 1024) }) });
    const badPath = await get(key, '/api/v1/contacts/%E0%A4%A');
    const all = [ok, invalid, unknown, denied, missing, malformed, notJson, tooLarge, badPath];
    expect(all.map((r) => r.status)).toEqual([200, 400, 404, 403, 404, 400, 415, 413, 400]);
    all.forEach((res, i) => expectRateHeaders(res, 60, 59 - i));
  });

  it('all keys of one account share one budget', async () => {
    const { accountId, key } = await account('free');
    const second = await server.createKey(accountId, ['*'], { name: 'second key' });
    expectRateHeaders(await get(key), 60, 59);
    expectRateHeaders(await get(second.key), 60, 58);

    const twoKeys = async () => {
      const acc = await account('free');
      return [(await server.createKey(acc.accountId, ['*'], { name: 'second key' })).key, acc.key];
    };
    const { batch, extra, sentAt } = await burstAndOneMore(10, twoKeys);
    expectStatuses(batch, 200);
    expect(remainingOf(batch)).toEqual(range(59, 50));
    expect429(extra, { limit: 10, sentAt });
  });

  it('another account is unaffected by one that is over its limit', async () => {
    const { extra, sentAt } = await burstAndOneMore(10, freshKey('free'));
    expect429(extra, { limit: 10, sentAt });
    const other = await account('free');
    const res = await get(other.key);
    expect(res.status).toBe(200);
    expectRateHeaders(res, 60, 59);
  });

  it('unauthenticated requests are not counted and carry no RateLimit-* headers (D8)', async () => {
    const { accountId, key } = await account('free');
    const off = await server.createKey(accountId, ['*'], { name: 'deactivated' });
    await server.core.apiKeys.deactivate(SYSTEM_ACTING, accountId, off.id);
    const refused = [
      ...(await burst(30, off.key)),
      ...(await burst(10, generateKey())),
      ...(await Promise.all(Array.from({ length: 5 }, () => server.request('GET', '/api/v1/lists')))),
    ];
    expectStatuses(refused, 401);
    refused.forEach(expectNoRateHeaders);
    const res = await get(key);
    expect(res.status).toBe(200);
    expectRateHeaders(res, 60, 59);
  });

  it('requests refused for a missing permission are counted, and the limit is checked before the permission (D8)', async () => {
    const narrowKey = async () => [(await server.createKey((await account('free')).accountId, ['contacts.read'], { name: 'no lists.read' })).key];
    const { batch, extra, sentAt } = await burstAndOneMore(10, narrowKey);
    expectStatuses(batch, 403);
    expect(remainingOf(batch)).toEqual(range(59, 50));
    expect429(extra, { limit: 10, sentAt });
  });
});

describe('other plans', () => {
  it('Starter: a burst of 50 per second, 300 per minute', async () => {
    const { batch: fifty, extra: res, sentAt } = await burstAndOneMore(50, freshKey('starter'));
    expectStatuses(fifty, 200);
    for (const r of fifty) expectRateHeaders(r, 300);
    expect(remainingOf(fifty)).toEqual(range(299, 250));
    expect429(res, { limit: 50, sentAt });
    expectRateHeaders(res, 300, 250);
  });

  it('Business: a burst of 100 per second, 1200 per minute', async () => {
    const { batch: hundred, extra: res, sentAt } = await burstAndOneMore(100, freshKey('business'));
    expectStatuses(hundred, 200);
    expect(remainingOf(hundred)).toEqual(range(1199, 1100));
    expect429(res, { limit: 100, sentAt });
    expectRateHeaders(res, 1200, 1100);
  });

  it('Enterprise is never limited and carries no RateLimit-* headers', async () => {
    const { key } = await account('enterprise');
    const many = await burst(150, key);
    expectStatuses(many, 200);
    many.forEach(expectNoRateHeaders);
  });
});

describe('integration endpoints (/v1): the flat error form plus the four fields (D7, D10)', () => {
  it('an unknown /v1 route with a valid key answers the flat 404, counts, and past the limit the flat 429', async () => {
    const { batch, extra: res, sentAt } = await burstAndOneMore(10, freshKey('free'), '/v1/no-such-route');
    expectStatuses(batch, 404);
    for (const r of batch) expect(r.body).toEqual({ success: false, error: 'Not Found', code: 'NOT_FOUND', message: expect.any(String) });
    expect(remainingOf(batch)).toEqual(range(59, 50));
    expect429(res, { limit: 10, flat: true, sentAt });
    expectRateHeaders(res, 60, 50);
  });

  it.skipIf(integrationRoutes.length === 0)('every documented /v1 route answers the flat 429 past the limit', async () => {
    for (const route of integrationRoutes) {
      const { key } = await account('free');
      const send = () => server.request(route.method, route.path, { key, body: route.method === 'GET' ? undefined : {} });
      const ten = await Promise.all(Array.from({ length: 10 }, send));
      for (const res of ten) expectRateHeaders(res, 60);
      expect429(await send(), { limit: 10, flat: true, sentAt: Date.now() });
    }
  });
});
