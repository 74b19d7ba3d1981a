/**
 * Issue 34 (16): the dashboard's first request, GET /api/v1/auth/session, answers 200 whether or not
 * the browser is signed in (a 401 is a console error on every signed-out load). Only the session
 * cookie counts: beside an API key, or with an ended session, the answer is "not signed in".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

let n = 0;
async function signedIn(accountName: string) {
  const account = await server.createAccount({ name: accountName });
  const user = { email: `probe-${++n}-${Date.now()}@example.com`, password: 'a probe password' };
  await server.core.users.create(SYSTEM_ACTING, account.id, user);
  const res = await server.request('POST', '/api/v1/auth/login', { body: user });
  expect(res.status, res.text).toBe(200);
  return { accountId: account.id, email: user.email, cookie: /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1], csrf: res.body.data.csrf_token as string };
}

const probe = (headers: Record<string, string> = {}, key?: string) => server.request('GET', '/api/v1/auth/session', { headers, key });

describe('GET /api/v1/auth/session (issue 34)', () => {
  it('signed out: 200, not signed in, no session', async () => {
    const res = await probe();
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ signed_in: false, session: null });
    expect((await probe({ cookie: 'sendwell_session=not-a-session' })).body.data).toEqual({ signed_in: false, session: null });
  });

  it("signed in: the session /me answers, each user's own account", async () => {
    const a = await signedIn('Probe A');
    const b = await signedIn('Probe B');
    const inA = await probe({ cookie: a.cookie });
    expect(inA.status).toBe(200);
    expect(inA.body.data.signed_in).toBe(true);
    expect(inA.body.data.session).toEqual((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: a.cookie } })).body.data);
    expect(inA.body.data.session.account).toMatchObject({ id: a.accountId, name: 'Probe A' });
    expect(inA.body.data.session.user.email).toBe(a.email);
    const inB = (await probe({ cookie: b.cookie })).body.data.session;
    expect(inB.account).toMatchObject({ id: b.accountId, name: 'Probe B' });
    expect(inB.csrf_token).not.toBe(inA.body.data.session.csrf_token);
  });

  it('an API key is no session: signed out, with a key alone or beside a cookie', async () => {
    const a = await signedIn('Probe keyed');
    const { key } = await server.createKey(a.accountId, ['*']);
    for (const auth of ['x-api-key', 'bearer'] as const) {
      const alone = await server.request('GET', '/api/v1/auth/session', { key, auth });
      expect(alone.status, alone.text).toBe(200);
      expect(alone.body.data).toEqual({ signed_in: false, session: null });
      const beside = await server.request('GET', '/api/v1/auth/session', { key, auth, headers: { cookie: a.cookie } });
      expect(beside.body.data).toEqual({ signed_in: false, session: null });
    }
  });

  it('after sign-out the same cookie is signed out', async () => {
    const a = await signedIn('Probe out');
    expect((await probe({ cookie: a.cookie })).body.data.signed_in).toBe(true);
    const out = await server.request('POST', '/api/v1/auth/logout', { headers: { cookie: a.cookie, 'x-csrf-token': a.csrf } });
    expect(out.status, out.text).toBe(200);
    expect((await probe({ cookie: a.cookie })).body.data).toEqual({ signed_in: false, session: null });
  });
});
