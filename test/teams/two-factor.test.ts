/**
 * D24.6 two-factor sign-in (TOTP, RFC 6238): setup, enable (the code used counts as used, ten
 * recovery codes shown once), the challenge in place of a session, codes accepted once within one
 * step of drift, recovery codes once ever, challenges that expire, wrong codes throttled (D17),
 * disable with the password; D24.8's entries. Codes are made with otpauth at chosen times.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/rate-limit/sign-in-rate-limiter.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { auditOf, cookieOf, isLive, logIn, makeUser, signIn, withSession, type SignedIn, type TestUser } from './security-helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** The code of the step `steps` away from now, as an authenticator app would show it. */
const codeAt = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
/** The current step, by RFC 6238. */
const stepNow = () => Math.floor(Date.now() / 30_000);

const totpSignIn = (body: Record<string, string>, headers: Record<string, string> = {}) => server.request('POST', '/api/v1/auth/login/totp', { body, headers });

interface TwoFactorUser extends TestUser {
  secret: string;
  recoveryCodes: string[];
  session: SignedIn;
}

/** A user with two-factor on, enabled with the code of the step before now (so the current step's code is still unused). */
async function withTwoFactor(tag = 'tfa'): Promise<TwoFactorUser> {
  const user = await makeUser(server, tag);
  const session = await signIn(server, user);
  const setup = await withSession(server, session, 'POST', '/api/v1/auth/totp/setup');
  expect(setup.status, setup.text).toBe(200);
  const { secret } = setup.body.data;
  const enabled = await withSession(server, session, 'POST', '/api/v1/auth/totp/enable', { body: { code: codeAt(secret, -1) } });
  expect(enabled.status, enabled.text).toBe(200);
  return { ...user, secret, recoveryCodes: enabled.body.data.recovery_codes, session };
}

/** The challenge a right password answers for a user with two-factor. */
async function challengeOf(user: TestUser, headers: Record<string, string> = {}): Promise<string> {
  const res = await logIn(server, user.email, user.password, headers);
  expect(res.status, res.text).toBe(200);
  return res.body.data.challenge;
}

describe('D24.6: setting two-factor up', () => {
  it('setup answers a base32 secret and an otpauth URL (issuer Sendwell, labelled with the e-mail); two-factor is not on until enabled', async () => {
    const user = await makeUser(server);
    const s = await signIn(server, user);
    const res = await withSession(server, s, 'POST', '/api/v1/auth/totp/setup');
    expect(res.status).toBe(200);
    const { secret, otpauth_url } = res.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe(`/Sendwell:${user.email}`);
    expect(url.searchParams.get('secret')).toBe(secret);
    expect(url.searchParams.get('issuer')).toBe('Sendwell');
    const row = await server.db.selectFrom('users').select(['totp_secret', 'totp_enabled_at']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret: secret, totp_enabled_at: null });
    // Not on yet: the password alone signs in.
    expect(cookieOf(await logIn(server, user.email, user.password))).not.toBeNull();
  });

  it('enable with a wrong code is 400 INVALID_CREDENTIALS; with a right one it answers 10 recovery codes, stored as hashes, and records auth.totp_enabled', async () => {
    const user = await makeUser(server);
    const s = await signIn(server, user);
    const { secret } = (await withSession(server, s, 'POST', '/api/v1/auth/totp/setup')).body.data;
    const right = codeAt(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const bad = await withSession(server, s, 'POST', '/api/v1/auth/totp/enable', { body: { code: wrong } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CREDENTIALS');
    const ok = await withSession(server, s, 'POST', '/api/v1/auth/totp/enable', { body: { code: right } });
    expect(ok.status, ok.text).toBe(200);
    const codes: string[] = ok.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const stored = await server.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', user.id).execute();
    expect(stored).toHaveLength(10);
    for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c);
    const entries = await auditOf(server, user.accountId);
    expect(entries.find((e) => e.action === 'auth.totp_enabled')).toMatchObject({ actor_id: String(user.id), target_type: 'user' });
    expect(JSON.stringify(entries)).not.toContain(secret);
    // On already: another setup or enable is 409 INVALID_STATE.
    for (const path of ['/api/v1/auth/totp/setup', '/api/v1/auth/totp/enable']) {
      const again = await withSession(server, s, 'POST', path, { body: path.endsWith('enable') ? { code: right } : undefined });
      expect(again.status, path).toBe(409);
      expect(again.body.error.code).toBe('INVALID_STATE');
    }
  });

  it("/auth/me says whether the signed-in user has two-factor on (the Security page reads it)", async () => {
    const user = await makeUser(server, 'me-flag');
    const session = await signIn(server, user);
    expect((await withSession(server, session, 'GET', '/api/v1/auth/me')).body.data.user.two_factor).toBe(false);
    const on = await withTwoFactor('me-flag-on');
    expect((await withSession(server, on.session, 'GET', '/api/v1/auth/me')).body.data.user.two_factor).toBe(true);
  });

  it('enable without a setup is 409 INVALID_STATE', async () => {
    const user = await makeUser(server);
    const s = await signIn(server, user);
    const res = await withSession(server, s, 'POST', '/api/v1/auth/totp/enable', { body: { code: '123456' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE');
  });

  it('the code that enabled two-factor counts as used: it does not sign in', async () => {
    const user = await makeUser(server);
    const s = await signIn(server, user);
    const { secret } = (await withSession(server, s, 'POST', '/api/v1/auth/totp/setup')).body.data;
    const code = codeAt(secret);
    expect((await withSession(server, s, 'POST', '/api/v1/auth/totp/enable', { body: { code } })).status).toBe(200);
    const res = await totpSignIn({ challenge: await challengeOf(user), code });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('setup, enable and disable are 401 for an API key and without a session', async () => {
    const user = await makeUser(server);
    const { key } = await server.createKey(user.accountId, ['*']);
    for (const [path, body] of [['/api/v1/auth/totp/setup', undefined], ['/api/v1/auth/totp/enable', { code: '123456' }], ['/api/v1/auth/totp/disable', { password: user.password }]] as const) {
      for (const opts of [{}, { key }]) {
        const res = await server.request('POST', path, { ...opts, body });
        expect(res.status, path).toBe(401);
        expect(res.body.error.code).toBe('UNAUTHORIZED');
      }
    }
  });
});

describe('D24.6: signing in with two-factor', () => {
  it('the right password answers 200 { two_factor_required, challenge } and no cookie; the challenge and a code sign in, recording auth.signed_in', async () => {
    const user = await withTwoFactor();
    const res = await logIn(server, user.email, user.password);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ two_factor_required: true, challenge: expect.any(String) });
    expect(res.headers.get('set-cookie')).toBeNull();
    // Stored hashed.
    const stored = await server.db.selectFrom('totp_challenges').select('token_hash').where('user_id', '=', user.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toBe(res.body.data.challenge);
    const before = (await auditOf(server, user.accountId)).filter((e) => e.action === 'auth.signed_in').length;
    const ok = await totpSignIn({ challenge: res.body.data.challenge, code: codeAt(user.secret) });
    expect(ok.status, ok.text).toBe(200);
    const cookie = cookieOf(ok);
    expect(cookie).not.toBeNull();
    expect(ok.body.data.user.email).toBe(user.email);
    expect(await isLive(server, { cookie: cookie!, csrf: ok.body.data.csrf_token, body: ok.body })).toBe(true);
    const entries = await auditOf(server, user.accountId);
    expect(entries.filter((e) => e.action === 'auth.signed_in')).toHaveLength(before + 1);
    // The challenge is used up.
    const again = await totpSignIn({ challenge: res.body.data.challenge, code: codeAt(user.secret, 1) });
    expect(again.status).toBe(401);
  });

  it('a wrong password is still 401, with no challenge', async () => {
    const user = await withTwoFactor();
    const res = await logIn(server, user.email, 'not the password');
    expect(res.status).toBe(401);
    expect(res.body.data).toBeUndefined();
  });

  it('refuses a replay: the same code twice is 401 the second time, and so is the code of an earlier step', async () => {
    const user = await withTwoFactor();
    const code = codeAt(user.secret);
    expect((await totpSignIn({ challenge: await challengeOf(user), code })).status).toBe(200);
    const replay = await totpSignIn({ challenge: await challengeOf(user), code });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('INVALID_CREDENTIALS');
    // The previous step's code is within the drift, but earlier than the one accepted: refused.
    const earlier = codeAt(user.secret, -1);
    if (earlier !== code) expect((await totpSignIn({ challenge: await challengeOf(user), code: earlier })).status).toBe(401);
  });

  it('two requests with one code at once: one signs in, the other is refused', async () => {
    const user = await withTwoFactor();
    const code = codeAt(user.secret);
    const [a, b] = await Promise.all([challengeOf(user), challengeOf(user)]);
    const answers = await Promise.all([totpSignIn({ challenge: a, code }), totpSignIn({ challenge: b, code })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('accepts the code of the previous step and of the next step (one step of drift); refuses codes two steps away', async () => {
    // The previous step: a user enabled two steps back, so the previous step is not yet used.
    const user = await makeUser(server);
    const s = await signIn(server, user);
    const { secret } = (await withSession(server, s, 'POST', '/api/v1/auth/totp/setup')).body.data;
    expect((await withSession(server, s, 'POST', '/api/v1/auth/totp/enable', { body: { code: codeAt(secret, -1) } })).status).toBe(200);
    // Re-marked two steps back, so the previous step's code is one not used yet.
    await server.db.updateTable('users').set({ totp_last_step: stepNow() - 3 }).where('id', '=', user.id).execute();
    const current = codeAt(secret);
    for (const far of [-2, 2]) {
      const code = codeAt(secret, far);
      // A far step's code may equal a near one's by chance; such a code would be that step's.
      if ([-1, 0, 1].some((near) => codeAt(secret, near) === code)) continue;
      expect((await totpSignIn({ challenge: await challengeOf(user), code })).status, `${far} steps`).toBe(401);
    }
    expect((await totpSignIn({ challenge: await challengeOf(user), code: codeAt(secret, -1) })).status).toBe(200);
    // The next step's (a clock ahead): accepted, and the current step's is then earlier: refused.
    expect((await totpSignIn({ challenge: await challengeOf(user), code: codeAt(secret, 1) })).status).toBe(200);
    if (current !== codeAt(secret, 1)) expect((await totpSignIn({ challenge: await challengeOf(user), code: current })).status).toBe(401);
  });

  it('a recovery code signs in once, ever; typed in capitals without the dash it is the same code', async () => {
    const user = await withTwoFactor();
    const [first, second] = user.recoveryCodes;
    const ok = await totpSignIn({ challenge: await challengeOf(user), recovery_code: first });
    expect(ok.status, ok.text).toBe(200);
    expect(cookieOf(ok)).not.toBeNull();
    const reused = await totpSignIn({ challenge: await challengeOf(user), recovery_code: first });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await totpSignIn({ challenge: await challengeOf(user), recovery_code: second.replace('-', '').toUpperCase() })).status).toBe(200);
    expect((await totpSignIn({ challenge: await challengeOf(user), recovery_code: 'aaaaa-bbbbb' })).status).toBe(401);
    const used = await server.db.selectFrom('recovery_codes').select('used_at').where('user_id', '=', user.id).where('used_at', 'is not', null).execute();
    expect(used).toHaveLength(2);
  });

  it('an expired challenge (past 5 minutes) or an unknown one is 401 INVALID_CREDENTIALS', async () => {
    const user = await withTwoFactor();
    const challenge = await challengeOf(user);
    await server.db.updateTable('totp_challenges').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', user.id).execute();
    const expired = await totpSignIn({ challenge, code: codeAt(user.secret) });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ success: false, error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) } });
    const unknown = await totpSignIn({ challenge: 'not-a-challenge', code: codeAt(user.secret) });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('INVALID_CREDENTIALS');
    // The code was not spent by either.
    expect((await totpSignIn({ challenge: await challengeOf(user), code: codeAt(user.secret) })).status).toBe(200);
  });

  it('lives 5 minutes', async () => {
    const user = await withTwoFactor();
    await challengeOf(user);
    const [row] = await server.db.selectFrom('totp_challenges').select(['created_at', 'expires_at']).where('user_id', '=', user.id).execute();
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(5 * 60_000);
  });

  it('needs code or recovery_code, not both nor neither: 400', async () => {
    const user = await withTwoFactor();
    const challenge = await challengeOf(user);
    const bodies: Record<string, string>[] = [{ challenge }, { challenge, code: codeAt(user.secret), recovery_code: user.recoveryCodes[0] }];
    for (const body of bodies) {
      const res = await totpSignIn(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('wrong codes record auth.sign_in_failed (never the code) and count in the sign-in throttle: past the free failures, 429 with Retry-After', async () => {
    const user = await withTwoFactor();
    const challenge = await challengeOf(user);
    const right = codeAt(user.secret);
    const wrongs = ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777'].filter((c) => ![-1, 0, 1].some((d) => codeAt(user.secret, d) === c));
    for (let i = 0; i < SIGN_IN_LIMITS.freeFailures; i++) expect((await totpSignIn({ challenge, code: wrongs[i] })).status, `wrong code ${i + 1}`).toBe(401);
    // Past the free failures each attempt waits its turn (1 s, doubling), even with the right code.
    const throttled = await totpSignIn({ challenge, code: right });
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Codes and passwords share the count of the e-mail and IP: the password waits too.
    expect((await logIn(server, user.email, user.password)).status).toBe(429);
    const failed = (await auditOf(server, user.accountId)).filter((e) => e.action === 'auth.sign_in_failed');
    expect(failed).toHaveLength(SIGN_IN_LIMITS.freeFailures);
    for (const e of failed) expect(e).toMatchObject({ actor_type: 'user', actor_id: String(user.id), actor_label: user.email, target_type: 'user', target_id: String(user.id) });
    // An entry has no field a code could be in: the actor, the target (the user), IP and browser only.
    for (const e of failed) expect(Object.keys(e).sort()).toEqual(['account_id', 'action', 'actor_id', 'actor_label', 'actor_type', 'at', 'id', 'ip', 'target_id', 'target_type', 'user_agent']);
  });

  it('from another IP the throttle does not apply (per e-mail and IP, as sign-in)', async () => {
    const throttled = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
    try {
      const user = await makeUser(throttled, 'proxy');
      const s = await signIn(throttled, user);
      const { secret } = (await withSession(throttled, s, 'POST', '/api/v1/auth/totp/setup')).body.data;
      expect((await withSession(throttled, s, 'POST', '/api/v1/auth/totp/enable', { body: { code: codeAt(secret, -1) } })).status).toBe(200);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const attackerChallenge = (await logIn(throttled, user.email, user.password, from('203.0.113.7'))).body.data.challenge;
      const wrong = ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777'].filter((c) => ![-1, 0, 1].some((d) => codeAt(secret, d) === c));
      for (let i = 0; i < SIGN_IN_LIMITS.freeFailures; i++) await throttled.request('POST', '/api/v1/auth/login/totp', { body: { challenge: attackerChallenge, code: wrong[i] }, headers: from('203.0.113.7') });
      expect((await throttled.request('POST', '/api/v1/auth/login/totp', { body: { challenge: attackerChallenge, code: codeAt(secret) }, headers: from('203.0.113.7') })).status).toBe(429);
      const ownerChallenge = (await logIn(throttled, user.email, user.password, from('198.51.100.9'))).body.data.challenge;
      const ok = await throttled.request('POST', '/api/v1/auth/login/totp', { body: { challenge: ownerChallenge, code: codeAt(secret) }, headers: from('198.51.100.9') });
      expect(ok.status, ok.text).toBe(200);
    } finally {
      await throttled.close();
    }
  });

  it('is refused from another site (login CSRF)', async () => {
    const user = await withTwoFactor();
    const res = await totpSignIn({ challenge: await challengeOf(user), code: codeAt(user.secret) }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_TOKEN_INVALID');
  });
});

describe('D24.6: turning two-factor off', () => {
  it('needs the password (wrong: 400 INVALID_CREDENTIALS); then the password alone signs in, the recovery codes are gone, auth.totp_disabled is recorded', async () => {
    const user = await withTwoFactor();
    const wrong = await withSession(server, user.session, 'POST', '/api/v1/auth/totp/disable', { body: { password: 'not the password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await logIn(server, user.email, user.password)).body.data.two_factor_required).toBe(true);
    const ok = await withSession(server, user.session, 'POST', '/api/v1/auth/totp/disable', { body: { password: user.password } });
    expect(ok.status, ok.text).toBe(200);
    expect(cookieOf(await logIn(server, user.email, user.password))).not.toBeNull();
    expect(await server.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', user.id).execute()).toEqual([]);
    const row = await server.db.selectFrom('users').select(['totp_secret', 'totp_enabled_at']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret: null, totp_enabled_at: null });
    const entries = await auditOf(server, user.accountId);
    expect(entries.find((e) => e.action === 'auth.totp_disabled')).toMatchObject({ actor_id: String(user.id), target_type: 'user' });
    expect(JSON.stringify(entries)).not.toContain(user.password);
  });

  it('a challenge opened before two-factor was turned off no longer signs in', async () => {
    const user = await withTwoFactor();
    const challenge = await challengeOf(user);
    expect((await withSession(server, user.session, 'POST', '/api/v1/auth/totp/disable', { body: { password: user.password } })).status).toBe(200);
    expect((await totpSignIn({ challenge, code: codeAt(user.secret) })).status).toBe(401);
  });
});
