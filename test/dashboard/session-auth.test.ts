/**
 * Dashboard sign-in (issue 6 §1): sign-up, sign-in, sign-out, the session cookie, CSRF on every
 * state-changing request made with the session, rate-limited attempts, and API keys unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/rate-limit/sign-in-rate-limiter.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { signUpAndConfirm } from './sign-up.ts';

let server: TestServer;
let n = 0;
const uniqueEmail = () => `owner${++n}-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';

/** The session cookie's `name=value` from a Set-Cookie header. */
function sessionCookieOf(setCookie: string | null): string {
  const m = /(sendwell_session=[^;]+)/.exec(setCookie ?? '');
  if (!m) throw new Error(`no session cookie in ${setCookie}`);
  return m[1];
}

/** A new account, signed in (after the first sign-up, through the mailed link: issue 14 L5). */
async function signUp(email = uniqueEmail()) {
  const res = await signUpAndConfirm(server, { email, password: PASSWORD, account_name: 'Acme' });
  expect(res.status).toBe(200);
  return { email, cookie: sessionCookieOf(res.headers.get('set-cookie')), csrf: res.body.data.csrf_token as string, body: res.body, setCookie: res.headers.get('set-cookie')! };
}

beforeAll(async () => {
  server = await startTestServer({ ALLOW_SIGNUP: 'true' }) // D17.7: these tests sign up several accounts;
});
afterAll(async () => {
  await server.close();
});

describe('sign-up', () => {
  it('creates an account on the Free plan with its first user, signed in by an httpOnly SameSite=Lax cookie', async () => {
    const s = await signUp();
    expect(s.body.data.user.email).toBe(s.email);
    expect(s.body.data.account).toMatchObject({ name: 'Acme', plan: 'free' });
    expect(s.setCookie).toMatch(/HttpOnly/i);
    expect(s.setCookie).toMatch(/SameSite=Lax/i);
    expect(s.setCookie).toMatch(/Path=\//);
    expect(s.setCookie).not.toMatch(/Secure/i);
    const me = await server.request('GET', '/api/v1/auth/me', { headers: { cookie: s.cookie } });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ user: { email: s.email }, account: { plan: 'free' }, csrf_token: s.csrf });
  });

  it('stores the password as argon2id and the session only as a hash', async () => {
    const s = await signUp();
    const user = await server.db.selectFrom('users').selectAll().where('email', '=', s.email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(user.password_hash).not.toContain(PASSWORD);
    const token = decodeURIComponent(s.cookie.split('=')[1]);
    const sessions = await server.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0].id).not.toBe(token);
    expect(sessions[0].id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not say an e-mail is taken (issue 14 L5: the same answer as any later sign-up), and refuses a short password or bad e-mail with 400', async () => {
    const s = await signUp();
    const again = await server.request('POST', '/api/v1/auth/signup', { body: { email: s.email.toUpperCase(), password: PASSWORD } });
    expect(again.status).toBe(200);
    expect(again.body.data.confirmation).toBe('SENT');
    expect(again.body.data).toEqual({ email: s.email, confirmation: 'SENT' });
    const short = await server.request('POST', '/api/v1/auth/signup', { body: { email: uniqueEmail(), password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe('INVALID_REQUEST');
    const bad = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'not-an-email', password: PASSWORD } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/email/);
  });
});

describe('sign-in and sign-out', () => {
  it('signs in with the right password only, without saying which part was wrong', async () => {
    const s = await signUp();
    const ok = await server.request('POST', '/api/v1/auth/login', { body: { email: s.email.toUpperCase(), password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(sessionCookieOf(ok.headers.get('set-cookie'))).not.toBe(s.cookie);
    const wrong = await server.request('POST', '/api/v1/auth/login', { body: { email: s.email, password: 'wrong password' } });
    const unknown = await server.request('POST', '/api/v1/auth/login', { body: { email: uniqueEmail(), password: PASSWORD } });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({ code: 'INVALID_CREDENTIALS', message: 'the e-mail or the password is wrong' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('sign-out ends the session on the server: the old cookie no longer works', async () => {
    const s = await signUp();
    const out = await server.request('POST', '/api/v1/auth/logout', { headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/sendwell_session=;/);
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: s.cookie } })).status).toBe(401);
    expect((await server.request('GET', '/api/v1/lists', { headers: { cookie: s.cookie } })).status).toBe(401);
    const user = await server.db.selectFrom('users').select('id').where('email', '=', s.email).executeTakeFirstOrThrow();
    expect(await server.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  it('sign-out without the CSRF token is refused and the session stays', async () => {
    const s = await signUp();
    const out = await server.request('POST', '/api/v1/auth/logout', { headers: { cookie: s.cookie } });
    expect(out.status).toBe(403);
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: s.cookie } })).status).toBe(200);
  });

  it('me and logout without a session: 401', async () => {
    expect((await server.request('GET', '/api/v1/auth/me')).status).toBe(401);
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: 'sendwell_session=forged' } })).status).toBe(401);
    expect((await server.request('POST', '/api/v1/auth/logout')).status).toBe(401);
  });
});

describe('the session on the REST API', () => {
  it('reads and writes as its account with every permission, writes carrying X-CSRF-Token', async () => {
    const s = await signUp();
    const created = await server.request('POST', '/api/v1/lists', { body: { name: 'Newsletter' }, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    expect(created.status).toBe(200);
    const keys = await server.request('POST', '/api/v1/api-keys', { body: { name: 'k', permissions: ['lists.read'] }, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    expect(keys.status).toBe(200);
    const lists = await server.request('GET', '/api/v1/lists', { key: keys.body.data.key });
    expect(lists.body.data.lists.map((l: any) => l.name)).toEqual(['Newsletter']);
    // Another account's data stays invisible (D3).
    const other = await signUp();
    const seen = await server.request('GET', '/api/v1/lists', { headers: { cookie: other.cookie } });
    expect(seen.body.data.lists).toEqual([]);
  });

  it('refuses state-changing requests without the CSRF token, with a wrong one, or from another Origin: 403 CSRF_TOKEN_INVALID', async () => {
    const s = await signUp();
    const cases: Record<string, string>[] = [
      { cookie: s.cookie },
      { cookie: s.cookie, 'x-csrf-token': 'nope' },
      { cookie: s.cookie, 'x-csrf-token': (await signUp()).csrf },
      { cookie: s.cookie, 'x-csrf-token': s.csrf, origin: 'https://evil.example' },
    ];
    for (const headers of cases) {
      for (const [method, path] of [
        ['POST', '/api/v1/lists'],
        ['PUT', '/api/v1/lists/1'],
        ['DELETE', '/api/v1/contacts/a%40example.com'],
      ]) {
        const res = await server.request(method, path, { body: { name: 'x' }, headers });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.body).toEqual({ success: false, error: { code: 'CSRF_TOKEN_INVALID', message: expect.any(String) } });
      }
    }
    expect((await server.request('GET', '/api/v1/lists', { headers: { cookie: s.cookie } })).body.data.totalElements).toBe(0);
    // The same Origin as the server is accepted.
    const ok = await server.request('POST', '/api/v1/lists', { body: { name: 'ok' }, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, origin: server.url } });
    expect(ok.status).toBe(200);
  });

  it('an API-key request ignores the cookie: a bad key with a good session is still 401, and key permissions still apply', async () => {
    const s = await signUp();
    const bad = await server.request('GET', '/api/v1/lists', { key: 'sw_nope', headers: { cookie: s.cookie } });
    expect(bad.status).toBe(401);
    const account = await server.createAccountWithKey(['contacts.read']);
    const denied = await server.request('GET', '/api/v1/lists', { key: account.key, headers: { cookie: s.cookie } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
  });

  it('a sign-in form posted from another site is refused', async () => {
    const s = await signUp();
    const res = await server.request('POST', '/api/v1/auth/login', { body: { email: s.email, password: PASSWORD }, headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_TOKEN_INVALID');
  });
});

describe('failed sign-ins are throttled (issue 14 M3; test/http/sign-in-throttle.test.ts has the rest)', () => {
  it(`per e-mail and IP: after ${SIGN_IN_LIMITS.freeFailures} failures, the next attempt waits (429 with Retry-After), even with the right password`, async () => {
    const s = await signUp();
    for (let i = 0; i < SIGN_IN_LIMITS.freeFailures; i++) {
      expect((await server.request('POST', '/api/v1/auth/login', { body: { email: s.email, password: 'wrong password' } })).status).toBe(401);
    }
    const limited = await server.request('POST', '/api/v1/auth/login', { body: { email: s.email, password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it(`per IP: after ${SIGN_IN_LIMITS.perIpFailures} failures across e-mails, 429`, async () => {
    const fresh = await startTestServer();
    try {
      const statuses: number[] = [];
      for (let i = 0; i <= SIGN_IN_LIMITS.perIpFailures; i++) {
        statuses.push((await fresh.request('POST', '/api/v1/auth/login', { body: { email: `nobody${i}@example.com`, password: 'wrong password' } })).status);
      }
      expect(statuses.slice(0, SIGN_IN_LIMITS.perIpFailures).every((s) => s === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await fresh.close();
    }
  });
});

describe('PUBLIC_URL on https', () => {
  it('marks the session cookie Secure', async () => {
    const secure = await startTestServer({ PUBLIC_URL: 'https://mail.example.com' });
    try {
      const res = await secure.request('POST', '/api/v1/auth/signup', { body: { email: uniqueEmail(), password: PASSWORD } });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    } finally {
      await secure.close();
    }
  });
});
