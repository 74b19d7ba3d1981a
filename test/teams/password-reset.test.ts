/**
 * D24.4 password reset: the same 200 for any address, a link mailed only to users, valid one hour
 * and usable once, at most three mails an hour per address; setting the password ends every
 * session and signs nobody in. Mail is read from a real SMTP server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { auditOf, isLive, logIn, makeUser, PUBLIC_URL, signIn, uniqueEmail, withSession } from './security-helpers.ts';

let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_FROM: 'accounts@sendwell.test', PUBLIC_URL });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});
beforeEach(() => sink.clear());

const ask = (email: string, headers: Record<string, string> = {}) => server.request('POST', '/api/v1/auth/password-reset', { body: { email }, headers });
const confirm = (token: string, password: string) => server.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password } });

/** The token of the newest reset link mailed to `email`. */
async function linkTokenFor(email: string, count = 1): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (sink.to(email).length < count) {
    if (Date.now() > deadline) throw new Error(`no reset mail for ${email}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const mail = sink.to(email).at(-1)!;
  const m = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/reset/([A-Za-z0-9_-]+)`).exec(mail.text ?? '');
  expect(m, mail.text).not.toBeNull();
  return m![1];
}

/** Waits until the server has handed over every mail it decided to send for these requests: a stranger's address gets none. */
async function settle() {
  // A request to a user's address whose mail arrives proves earlier ones are done too (one transport, in order).
  const marker = await makeUser(server, 'marker');
  expect((await ask(marker.email)).status).toBe(200);
  await linkTokenFor(marker.email);
}

describe('D24.4: asking for a reset link', () => {
  it('answers the same 200 for a user and for an unknown address; only the user gets a mail, from MAIL_FROM, with {PUBLIC_URL}/reset/{token}', async () => {
    const user = await makeUser(server);
    const stranger = uniqueEmail('nobody');
    const forUser = await ask(user.email);
    const forStranger = await ask(stranger);
    expect(forUser.status).toBe(200);
    expect(forStranger.status).toBe(200);
    // The same words, the address aside.
    expect(forUser.text.replace(user.email, 'X')).toBe(forStranger.text.replace(stranger, 'X'));
    expect(forUser.headers.get('set-cookie')).toBeNull();
    const token = await linkTokenFor(user.email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const [mail] = sink.to(user.email);
    expect(mail.from?.value[0].address).toBe('accounts@sendwell.test');
    expect(mail.subject).toMatch(/Reset your Sendwell password/);
    await settle();
    expect(sink.to(stranger)).toEqual([]);
    // The token is kept only as its hash.
    const rows = await server.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(rows[0].expires_at).getTime() - new Date(rows[0].created_at).getTime()).toBe(60 * 60 * 1000);
  });

  it('finds the user whatever the case of the address', async () => {
    const user = await makeUser(server);
    expect((await ask(user.email.toUpperCase())).status).toBe(200);
    await linkTokenFor(user.email);
  });

  it('mails an address at most 3 times an hour: 100 requests at once make 3 links and 3 mails, each answered the same 200', async () => {
    const user = await makeUser(server);
    const answers = await Promise.all(Array.from({ length: 100 }, () => ask(user.email)));
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1);
    expect(answers[0].status).toBe(200);
    await linkTokenFor(user.email, 3);
    // A fourth request, later, still mails nothing.
    expect((await ask(user.email)).status).toBe(200);
    await settle();
    expect(sink.to(user.email)).toHaveLength(3);
    expect(await server.db.selectFrom('password_resets').select('token_hash').where('user_id', '=', user.id).execute()).toHaveLength(3);
  });

  it('counts only the last hour: links made over an hour ago leave room for new ones', async () => {
    const user = await makeUser(server);
    for (let i = 0; i < 3; i++) await ask(user.email);
    await linkTokenFor(user.email, 3);
    await ask(user.email);
    await settle();
    expect(sink.to(user.email)).toHaveLength(3);
    await server.db.updateTable('password_resets').set({ created_at: new Date(Date.now() - 61 * 60 * 1000).toISOString() }).where('user_id', '=', user.id).execute();
    await ask(user.email);
    await linkTokenFor(user.email, 4);
  });

  it('is refused from another site (login CSRF), mailing nothing', async () => {
    const user = await makeUser(server);
    const res = await ask(user.email, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_TOKEN_INVALID');
    await settle();
    expect(sink.to(user.email)).toEqual([]);
  });
});

describe('D24.4: setting the password with the link', () => {
  it('sets the password, ends every session of the user, signs nobody in, and records auth.password_reset', async () => {
    const user = await makeUser(server);
    const first = await signIn(server, user);
    const second = await signIn(server, user);
    await ask(user.email);
    const token = await linkTokenFor(user.email);
    const res = await confirm(token, 'a brand new password');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await isLive(server, first)).toBe(false);
    expect(await isLive(server, second)).toBe(false);
    expect((await logIn(server, user.email, user.password)).status).toBe(401);
    expect((await logIn(server, user.email, 'a brand new password')).status).toBe(200);
    const entry = (await auditOf(server, user.accountId)).find((e) => e.action === 'auth.password_reset');
    expect(entry).toMatchObject({ actor_type: 'user', actor_id: String(user.id), actor_label: user.email, target_type: 'user', target_id: String(user.id) });
    // Nothing secret in the log: neither the token nor either password.
    const log = JSON.stringify(await auditOf(server, user.accountId));
    for (const secret of [token, 'a brand new password', user.password]) expect(log).not.toContain(secret);
  });

  it('a used link is 400 INVALID_TOKEN, and so are the other links of the user once one is used', async () => {
    const user = await makeUser(server);
    await ask(user.email);
    const firstToken = await linkTokenFor(user.email, 1);
    await ask(user.email);
    const secondToken = await linkTokenFor(user.email, 2);
    expect((await confirm(secondToken, 'new password one')).status).toBe(200);
    for (const token of [secondToken, firstToken]) {
      const again = await confirm(token, 'new password two');
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('INVALID_TOKEN');
    }
    expect((await logIn(server, user.email, 'new password one')).status).toBe(200);
  });

  it('an expired link (past its hour) is 400 INVALID_TOKEN and changes nothing', async () => {
    const user = await makeUser(server);
    await ask(user.email);
    const token = await linkTokenFor(user.email);
    await server.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', user.id).execute();
    const res = await confirm(token, 'too late password');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_TOKEN');
    expect((await logIn(server, user.email, user.password)).status).toBe(200);
  });

  it('a forged or unknown token is 400 INVALID_TOKEN', async () => {
    for (const token of ['forged', 'A'.repeat(43)]) {
      const res = await confirm(token, 'whatever password');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: { code: 'INVALID_TOKEN', message: expect.any(String) } });
    }
  });

  it('a password of fewer than 8 or more than 256 characters is 400 naming `password`, and the link still works', async () => {
    const user = await makeUser(server);
    await ask(user.email);
    const token = await linkTokenFor(user.email);
    for (const password of ['short', 'x'.repeat(257)]) {
      const res = await confirm(token, password);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/password/);
    }
    expect((await confirm(token, 'long enough now')).status).toBe(200);
  });

  it('a signed-in user is signed out by the reset as well (a session made after the link was sent)', async () => {
    const user = await makeUser(server);
    await ask(user.email);
    const token = await linkTokenFor(user.email);
    const s = await signIn(server, user);
    expect((await withSession(server, s, 'GET', '/api/v1/auth/sessions')).status).toBe(200);
    expect((await confirm(token, 'another new password')).status).toBe(200);
    expect((await withSession(server, s, 'GET', '/api/v1/auth/sessions')).status).toBe(401);
  });
});
