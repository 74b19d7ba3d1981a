/**
 * Issue 14 M3: five wrong passwords from anyone locked the real user out for 15 minutes, and behind
 * a proxy every client shared one IP bucket because trustProxy was never set. Now failures are
 * counted per e-mail and client IP (and per IP across e-mails, more loosely), a success resets its
 * e-mail+IP, and past the free failures each attempt waits its turn: 429 with Retry-After 1 s,
 * 2 s, 4 s, ... The client IP comes from X-Forwarded-For only with TRUST_PROXY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/rate-limit/sign-in-rate-limiter.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const PASSWORD = 'the real owner password';
let behindProxy: TestServer;
let direct: TestServer;
let n = 0;

beforeAll(async () => {
  [behindProxy, direct] = await Promise.all([startTestServer({ TRUST_PROXY: '127.0.0.1' }), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([behindProxy?.close(), direct?.close()]);
});

/** A dashboard user made as the CLI makes one. */
async function owner(server: TestServer): Promise<string> {
  const email = `owner${++n}@example.com`;
  const account = await server.createAccount({ plan: 'free' });
  await server.core.users.create(SYSTEM_ACTING, account.id, { email, password: PASSWORD });
  return email;
}

const logIn = (server: TestServer, email: string, password: string, clientIp: string) =>
  server.request('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': clientIp } });

async function failFreely(server: TestServer, email: string, clientIp: string) {
  for (let i = 0; i < SIGN_IN_LIMITS.freeFailures; i++) expect((await logIn(server, email, 'wrong password', clientIp)).status).toBe(401);
}

/** Polls with wrong passwords until the wait is over (the answer is no longer 429); bounded. */
async function failOnceTheWaitIsOver(server: TestServer, email: string, clientIp: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await logIn(server, email, 'wrong password', clientIp);
    if (res.status !== 429) return expect(res.status).toBe(401);
    if (Date.now() > deadline) throw new Error('the wait never ended');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ATTACKER = '203.0.113.7';
const OWNER = '198.51.100.9';

describe('M3: failed sign-ins slow the one who fails, never lock the owner out', () => {
  it("after an attacker's failures, the owner signs in from another IP", async () => {
    const email = await owner(behindProxy);
    await failFreely(behindProxy, email, ATTACKER);
    for (let i = 0; i < 3; i++) await logIn(behindProxy, email, 'wrong password', ATTACKER);
    const ok = await logIn(behindProxy, email, PASSWORD, OWNER);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/sendwell_session=/);
  });

  it('past the free failures, the attacker waits 1 s, then 2 s, then 4 s, even with the right password', async () => {
    const email = await owner(behindProxy);
    await failFreely(behindProxy, email, ATTACKER);
    const retryAfters: number[] = [];
    for (let step = 0; step < 3; step++) {
      const waiting = await logIn(behindProxy, email, PASSWORD, ATTACKER);
      expect(waiting.status).toBe(429);
      expect(waiting.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(waiting.body.retryAfter).toBe(Number(waiting.headers.get('retry-after')));
      retryAfters.push(waiting.body.retryAfter);
      if (step < 2) await failOnceTheWaitIsOver(behindProxy, email, ATTACKER);
    }
    expect(retryAfters).toEqual([1, 2, 4]);
  });

  it('a success resets the count for its e-mail and IP', async () => {
    const email = await owner(behindProxy);
    for (let i = 0; i < SIGN_IN_LIMITS.freeFailures - 1; i++) await logIn(behindProxy, email, 'typo', OWNER);
    expect((await logIn(behindProxy, email, PASSWORD, OWNER)).status).toBe(200);
    // The free failures are whole again: none of these waits.
    await failFreely(behindProxy, email, OWNER);
    expect((await logIn(behindProxy, email, PASSWORD, OWNER)).status).toBe(429);
  });

  it('one IP failing across many e-mails is stopped by the looser per-IP bucket; other IPs are not', async () => {
    const spray = '192.0.2.44';
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_LIMITS.perIpFailures; i++) statuses.push((await logIn(behindProxy, `nobody${i}@example.com`, 'guess', spray)).status);
    expect(statuses.slice(0, SIGN_IN_LIMITS.perIpFailures).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const email = await owner(behindProxy);
    expect((await logIn(behindProxy, email, PASSWORD, spray)).status).toBe(429);
    expect((await logIn(behindProxy, email, PASSWORD, OWNER)).status).toBe(200);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: both "clients" are the connection\'s address', async () => {
    const email = await owner(direct);
    await failFreely(direct, email, ATTACKER);
    const res = await logIn(direct, email, PASSWORD, OWNER);
    expect(res.status).toBe(429);
  });
});
