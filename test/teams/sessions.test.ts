/**
 * D24.5 own security: changing one's password (the current one checked, other sessions ended, this
 * one kept), listing one's sessions and ending one (another user's: 404 SESSION_NOT_FOUND), and
 * D24.8's sign-in entries. API keys get 401 on these routes: they act on the signed-in person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { auditOf, isLive, logIn, makeUser, signIn, withSession } from './security-helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const changePassword = (s: Parameters<typeof withSession>[1], current_password: string, new_password: string) =>
  withSession(server, s, 'POST', '/api/v1/auth/password', { body: { current_password, new_password } });

describe('D24.5: changing the password', () => {
  it('with the right current password: sets the new one, ends the other sessions, keeps this one, records auth.password_changed', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const elsewhere = await signIn(server, user);
    const res = await changePassword(here, user.password, 'the second password');
    expect(res.status, res.text).toBe(200);
    expect(await isLive(server, here)).toBe(true);
    expect(await isLive(server, elsewhere)).toBe(false);
    expect((await logIn(server, user.email, user.password)).status).toBe(401);
    expect((await logIn(server, user.email, 'the second password')).status).toBe(200);
    const entries = await auditOf(server, user.accountId);
    expect(entries.find((e) => e.action === 'auth.password_changed')).toMatchObject({ actor_type: 'user', actor_id: String(user.id), actor_label: user.email, target_type: 'user' });
    expect(JSON.stringify(entries)).not.toContain('the second password');
  });

  it('a wrong current password is 400 INVALID_CREDENTIALS and changes nothing', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const elsewhere = await signIn(server, user);
    const res = await changePassword(here, 'not the password', 'the second password');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) } });
    expect(await isLive(server, elsewhere)).toBe(true);
    expect((await logIn(server, user.email, user.password)).status).toBe(200);
  });

  it('a new password of fewer than 8 or more than 256 characters is 400 naming new_password', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    for (const bad of ['short', 'y'.repeat(257)]) {
      const res = await changePassword(here, user.password, bad);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/new_password/);
    }
  });

  it('needs the CSRF token, and a session: no session or an API key is 401', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const noCsrf = await server.request('POST', '/api/v1/auth/password', { body: { current_password: user.password, new_password: 'the second password' }, headers: { cookie: here.cookie } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('CSRF_TOKEN_INVALID');
    const { key } = await server.createKey(user.accountId, ['*']);
    for (const opts of [{}, { key }]) {
      const res = await server.request('POST', '/api/v1/auth/password', { ...opts, body: { current_password: user.password, new_password: 'the second password' } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await logIn(server, user.email, user.password)).status).toBe(200);
  });
});

describe('D24.5: own sessions', () => {
  it("lists the user's own live sessions, newest first, with the current one marked, ip and user agent, and never another user's", async () => {
    const user = await makeUser(server);
    const other = await makeUser(server, 'other');
    const older = await signIn(server, user, { 'user-agent': 'Older Browser/1.0' });
    const current = await signIn(server, user, { 'user-agent': 'Current Browser/2.0' });
    await signIn(server, other);
    const res = await withSession(server, current, 'GET', '/api/v1/auth/sessions');
    expect(res.status, res.text).toBe(200);
    const { sessions, totalElements } = res.body.data;
    expect(totalElements).toBe(2);
    expect(sessions.map((s: any) => s.user_agent).sort()).toEqual(['Current Browser/2.0', 'Older Browser/1.0']);
    expect(sessions[0].user_agent).toBe('Current Browser/2.0');
    const mine = sessions.find((s: any) => s.current);
    expect(mine).toMatchObject({ user_agent: 'Current Browser/2.0', ip: expect.stringMatching(/127\.0\.0\.1/), created_at: expect.any(String), last_seen_at: expect.any(String) });
    expect(sessions.filter((s: any) => s.current)).toHaveLength(1);
    // The id is the public one, not the cookie's token nor the stored hash.
    const stored = await server.db.selectFrom('sessions').select(['id', 'public_id']).where('user_id', '=', user.id).execute();
    for (const s of sessions) {
      expect(stored.map((r) => r.public_id)).toContain(s.id);
      expect(stored.map((r) => r.id)).not.toContain(s.id);
      expect(older.cookie).not.toContain(s.id);
    }
    expect(Object.keys(mine).sort()).toEqual(['created_at', 'current', 'id', 'ip', 'last_seen_at', 'user_agent']);
  });

  it('pages (D6)', async () => {
    const user = await makeUser(server);
    for (let i = 0; i < 3; i++) await signIn(server, user);
    const s = await signIn(server, user);
    const res = await withSession(server, s, 'GET', '/api/v1/auth/sessions?size=3&page=1');
    expect(res.body.data).toMatchObject({ page: 1, size: 3, totalElements: 4, totalPages: 2 });
    expect(res.body.data.sessions).toHaveLength(1);
  });

  it("ends one of the user's sessions by its id, records auth.session_ended; the others stay", async () => {
    const user = await makeUser(server);
    const victim = await signIn(server, user);
    const here = await signIn(server, user);
    const list = (await withSession(server, here, 'GET', '/api/v1/auth/sessions')).body.data.sessions;
    const target = list.find((s: any) => !s.current);
    const res = await withSession(server, here, 'DELETE', `/api/v1/auth/sessions/${target.id}`);
    expect(res.status, res.text).toBe(200);
    expect(await isLive(server, victim)).toBe(false);
    expect(await isLive(server, here)).toBe(true);
    expect((await auditOf(server, user.accountId)).find((e) => e.action === 'auth.session_ended')).toMatchObject({ target_type: 'session', target_id: target.id, actor_id: String(user.id) });
    // Once ended, it is unknown: 404.
    const again = await withSession(server, here, 'DELETE', `/api/v1/auth/sessions/${target.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('SESSION_NOT_FOUND');
  });

  it("another user's session id is 404 SESSION_NOT_FOUND, as an unknown one, and that session lives on", async () => {
    const user = await makeUser(server);
    const other = await makeUser(server, 'other');
    const theirs = await signIn(server, other);
    const theirId = (await withSession(server, theirs, 'GET', '/api/v1/auth/sessions')).body.data.sessions[0].id;
    const mine = await signIn(server, user);
    for (const id of [theirId, 'no-such-session']) {
      const res = await withSession(server, mine, 'DELETE', `/api/v1/auth/sessions/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'SESSION_NOT_FOUND', message: expect.any(String) } });
    }
    expect(await isLive(server, theirs)).toBe(true);
  });

  it('ending the current session signs this browser out', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const mine = (await withSession(server, here, 'GET', '/api/v1/auth/sessions')).body.data.sessions[0];
    expect((await withSession(server, here, 'DELETE', `/api/v1/auth/sessions/${mine.id}`)).status).toBe(200);
    expect(await isLive(server, here)).toBe(false);
  });

  it('keeps last_seen_at fresh, written at most once a minute', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const old = new Date(Date.now() - 5 * 60_000).toISOString();
    await server.db.updateTable('sessions').set({ last_seen_at: old }).where('user_id', '=', user.id).execute();
    await isLive(server, here);
    const [row] = await server.db.selectFrom('sessions').select('last_seen_at').where('user_id', '=', user.id).execute();
    const seen = new Date(row.last_seen_at!).getTime();
    expect(seen).toBeGreaterThan(Date.now() - 60_000);
    // Seen 30 s ago: not written again.
    const recent = new Date(Date.now() - 30_000).toISOString();
    await server.db.updateTable('sessions').set({ last_seen_at: recent }).where('user_id', '=', user.id).execute();
    await isLive(server, here);
    const [again] = await server.db.selectFrom('sessions').select('last_seen_at').where('user_id', '=', user.id).execute();
    expect(new Date(again.last_seen_at!).toISOString()).toBe(recent);
  });

  it('the list and the delete are 401 for an API key and without a session; the delete needs the CSRF token', async () => {
    const user = await makeUser(server);
    const here = await signIn(server, user);
    const { key } = await server.createKey(user.accountId, ['*']);
    for (const [method, path] of [['GET', '/api/v1/auth/sessions'], ['DELETE', '/api/v1/auth/sessions/anything']]) {
      for (const opts of [{}, { key }]) {
        const res = await server.request(method, path, opts);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body.error.code).toBe('UNAUTHORIZED');
      }
    }
    const id = (await withSession(server, here, 'GET', '/api/v1/auth/sessions')).body.data.sessions[0].id;
    const noCsrf = await server.request('DELETE', `/api/v1/auth/sessions/${id}`, { headers: { cookie: here.cookie } });
    expect(noCsrf.status).toBe(403);
    expect(await isLive(server, here)).toBe(true);
  });
});

describe('D24.8: sign-in entries', () => {
  it('a sign-in records auth.signed_in as the user and sets last_sign_in_at; a wrong password records auth.sign_in_failed; an unknown address records nothing', async () => {
    const user = await makeUser(server);
    expect((await logIn(server, user.email, 'wrong password here')).status).toBe(401);
    await signIn(server, user, { 'user-agent': 'Audit Browser/1.0' });
    expect((await logIn(server, 'nobody-at-all@example.com', 'wrong password here')).status).toBe(401);
    // The user's own sign-ins (making the user is its own entry, member.joined by the system).
    const entries = (await auditOf(server, user.accountId)).filter((e) => e.action.startsWith('auth.'));
    expect(entries.map((e) => e.action)).toEqual(['auth.sign_in_failed', 'auth.signed_in']);
    for (const e of entries) expect(e).toMatchObject({ actor_type: 'user', actor_id: String(user.id), actor_label: user.email, target_type: 'user', target_id: String(user.id) });
    expect(entries[1].user_agent).toBe('Audit Browser/1.0');
    expect(JSON.stringify(entries)).not.toContain('wrong password here');
    expect(JSON.stringify(entries)).not.toContain(user.password);
    const row = await server.db.selectFrom('users').select('last_sign_in_at').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(new Date(row.last_sign_in_at!).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await server.db.selectFrom('audit_log').select('id').where('actor_label', '=', 'nobody-at-all@example.com').execute()).toEqual([]);
  });
});
