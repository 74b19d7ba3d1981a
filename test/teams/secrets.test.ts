/**
 * Issue 32's "an audit search for every secret that must never appear in it", and the house rule
 * "secrets never reach logs" (D24.8, docs/CONTRACT.md): one team's whole life in one server, every
 * secret value it produced collected, then none of them found in the audit_log table (every
 * column of every row), in GET /api/v1/audit-log (every page), nor in what the server logged (at
 * debug level, through the production logger's redaction). Mail goes to a real SMTP server.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { as, inviteTokenIn, signedIn, type Member } from './team.ts';

const PUBLIC_URL = 'https://app.example.test';
let sink: SmtpSink;
let server: TestServer;
/** Every line the server logged. */
const logLines: string[] = [];
/** Every secret value the team's life produced, by what it is. */
const secrets = new Map<string, string>();
let accountId: number;
const ownerEmail = `owner-${randomBytes(4).toString('hex')}@example.com`;

const keep = (what: string, value: unknown) => {
  expect(typeof value, what).toBe('string');
  expect((value as string).length, what).toBeGreaterThanOrEqual(6);
  secrets.set(what, value as string);
  return value as string;
};
const unique = (what: string) => `${what}-${randomBytes(9).toString('base64url')}`;
const ok = (res: ApiResponse) => {
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
/** A member's cookie and CSRF token kept as secrets: the cookie's value, not its name. */
const keepSession = (what: string, member: Member) => {
  keep(`${what}: session cookie token`, member.cookie.slice(member.cookie.indexOf('=') + 1));
  keep(`${what}: CSRF token`, member.csrf);
  return member;
};
/** The code of the step `steps` away from now, as an authenticator app would show it. */
const codeAt = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

/** The newest mail to `email` (the n-th), once it has arrived. */
async function mailTo(email: string, n: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (sink.to(email).length < n) {
    if (Date.now() > deadline) throw new Error(`no mail ${n} for ${email}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return sink.to(email).at(-1)!.text!;
}

/**
 * Where `value` appears in `text`. A short value (a six-digit code) counts only standing alone,
 * not inside a longer run of digits or letters such as a timestamp.
 */
function appears(text: string, value: string): boolean {
  if (value.length >= 12) return text.includes(value);
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`).test(text);
}
const found = (text: string) => [...secrets].filter(([, value]) => appears(text, value)).map(([what]) => what);

beforeAll(async () => {
  sink = await startSmtpSink();
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_FROM: 'team@mail.example.test', PUBLIC_URL, LOG_LEVEL: 'debug' }, { logStream });
  await live();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** One team's life, through the API as its people would live it; every secret kept on the way. */
async function live() {
  const memberEmail = `member-${randomBytes(4).toString('hex')}@example.com`;

  // The first sign-up on an empty instance makes the account and signs its owner in (D17.7, D24.1).
  const signUpPassword = keep('owner sign-up password', unique('sign-up password'));
  const signUp = await server.request('POST', '/api/v1/auth/signup', { body: { email: ownerEmail, password: signUpPassword, account_name: 'Secret Keepers' } });
  const firstSession = keepSession('owner sign-up', signedIn(signUp));
  accountId = (await server.db.selectFrom('users').select('account_id').where('email', '=', ownerEmail).executeTakeFirstOrThrow()).account_id;

  // A wrong password, then the right one.
  const wrongPassword = keep('wrong password tried at sign-in', unique('wrong password'));
  const refused = await server.request('POST', '/api/v1/auth/login', { body: { email: ownerEmail, password: wrongPassword } });
  expect(refused.status, refused.text).toBe(401);
  let owner = keepSession('owner sign-in', signedIn(await server.request('POST', '/api/v1/auth/login', { body: { email: ownerEmail, password: signUpPassword } })));
  expect(owner.cookie).not.toBe(firstSession.cookie);

  // An API key, created and regenerated.
  const created = ok(await as(server, owner)('POST', '/api/v1/api-keys', { body: { name: 'ops key', permissions: ['*'] } }));
  const apiKey = keep('API key (created)', created.key);
  keep('API key (regenerated)', ok(await as(server, owner)('POST', `/api/v1/api-keys/${created.id}/regenerate`)).key);
  expect(secrets.get('API key (regenerated)')).not.toBe(apiKey);
  const key = secrets.get('API key (regenerated)')!;

  // A webhook endpoint's secret, and the one its rotation gives.
  const endpoint = ok(await server.request('POST', '/api/v1/webhooks', { key, body: { url: 'https://hooks.example.com/sendwell', event_types: ['email.bounced'] } }));
  keep('webhook endpoint secret', endpoint.secret);
  keep('webhook endpoint secret (rotated)', ok(await server.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { key })).secret);

  // An invitation, resent (a new link), accepted with the invitee's password.
  const invitation = ok(await as(server, owner)('POST', '/api/v1/invitations', { body: { email: memberEmail, role: 'admin' } }));
  keep('invitation token', inviteTokenIn(await mailTo(memberEmail, 1)));
  ok(await as(server, owner)('POST', `/api/v1/invitations/${invitation.id}/resend`));
  const resentToken = keep('resent invitation token', inviteTokenIn(await mailTo(memberEmail, 2)));
  expect(resentToken).not.toBe(secrets.get('invitation token'));
  const memberPassword = keep('invitee password', unique('invitee password'));
  const member = keepSession('invitee joining', signedIn(await server.request('POST', '/api/v1/auth/invitations/accept', { body: { token: resentToken, password: memberPassword } })));

  // The member turns two-factor on (with the code of the step before now, so the current one stays unused).
  const setup = ok(await as(server, member)('POST', '/api/v1/auth/totp/setup'));
  const totpSecret = keep('TOTP secret', setup.secret);
  const enableCode = keep('TOTP code used to enable', codeAt(totpSecret, -1));
  const recoveryCodes: string[] = ok(await as(server, member)('POST', '/api/v1/auth/totp/enable', { body: { code: enableCode } })).recovery_codes;
  expect(recoveryCodes).toHaveLength(10);
  recoveryCodes.forEach((code, i) => keep(`recovery code ${i + 1}`, code));

  // Signs in with a code, then with a recovery code.
  const logInMember = async (what: string) => {
    const res = ok(await server.request('POST', '/api/v1/auth/login', { body: { email: memberEmail, password: memberPassword } }));
    expect(res.two_factor_required).toBe(true);
    return keep(what, res.challenge);
  };
  const challenge = await logInMember('login challenge');
  const signInCode = keep('TOTP code used to sign in', codeAt(totpSecret));
  keepSession('invitee two-factor sign-in', signedIn(await server.request('POST', '/api/v1/auth/login/totp', { body: { challenge, code: signInCode } })));
  const secondChallenge = await logInMember('second login challenge');
  const usedRecoveryCode = recoveryCodes[3];
  keepSession('invitee recovery-code sign-in', signedIn(await server.request('POST', '/api/v1/auth/login/totp', { body: { challenge: secondChallenge, recovery_code: usedRecoveryCode } })));

  // The owner forgets the password: a reset link by mail, a new password, a sign-in with it.
  ok(await server.request('POST', '/api/v1/auth/password-reset', { body: { email: ownerEmail } }));
  const resetToken = keep('password-reset token', new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/reset/([A-Za-z0-9_-]+)`).exec(await mailTo(ownerEmail, 1))![1]);
  const resetPassword = keep('password set by reset', unique('reset password'));
  ok(await server.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: resetToken, password: resetPassword } }));
  owner = keepSession('owner after reset', signedIn(await server.request('POST', '/api/v1/auth/login', { body: { email: ownerEmail, password: resetPassword } })));

  // Then changes it: the old one (the reset's) and a new one.
  const changedPassword = keep('password set by change', unique('changed password'));
  ok(await as(server, owner)('POST', '/api/v1/auth/password', { body: { current_password: resetPassword, new_password: changedPassword } }));
  keepSession('owner after change', signedIn(await server.request('POST', '/api/v1/auth/login', { body: { email: ownerEmail, password: changedPassword } })));

  // A contact erased (D21): its address is gone, from the audit log and the logs alike.
  const erasedAddress = keep('erased contact address', `${unique('erase-me').toLowerCase()}@example.com`);
  ok(await server.request('POST', '/api/v1/contacts', { key, body: { email: erasedAddress } }));
  ok(await server.request('POST', `/api/v1/contacts/${encodeURIComponent(erasedAddress)}/erase`, { key }));
}

describe('issue 32: no secret of a team\'s life reaches the audit log or the logs (D24.8, "secrets never reach logs")', () => {
  it('collected every secret the life produced', () => {
    // 5 passwords (sign-up, wrong, invitee's, reset's, change's); 7 sessions' cookies and CSRF tokens; 2 key values;
    // 2 webhook secrets; 2 invitation tokens; the TOTP secret, 2 codes, 10 recovery codes, 2 challenges; the reset token;
    // the erased address.
    expect(secrets.size).toBe(5 + 14 + 2 + 2 + 2 + 15 + 1 + 1);
  });

  it('the audit log holds the life: its actions, each in this account', async () => {
    const actions = new Set((await server.db.selectFrom('audit_log').select('action').where('account_id', '=', accountId).execute()).map((r) => r.action));
    for (const action of [
      'auth.signed_in',
      'auth.sign_in_failed',
      'api_key.created',
      'api_key.regenerated',
      'webhook.created',
      'webhook.secret_rotated',
      'member.invited',
      'member.invitation_resent',
      'member.joined',
      'auth.totp_enabled',
      'auth.password_reset',
      'auth.password_changed',
      'contact.created',
      'contact.erased',
    ]) {
      expect(actions, action).toContain(action);
    }
  });

  it('(a) no secret in any column of any row of audit_log', async () => {
    const rows = await server.db.selectFrom('audit_log').selectAll().execute();
    expect(rows.length).toBeGreaterThan(15);
    expect(found(JSON.stringify(rows))).toEqual([]);
  });

  it('(b) no secret in any page of GET /api/v1/audit-log', async () => {
    const owner = signedIn(await server.request('POST', '/api/v1/auth/login', { body: { email: ownerEmail, password: secrets.get('password set by change')! } }));
    const pages: string[] = [];
    let total = 0;
    for (let page = 0; ; page++) {
      const res = await as(server, owner)('GET', `/api/v1/audit-log?size=5&page=${page}`);
      const data = ok(res);
      pages.push(res.text);
      total += data.entries.length;
      if (page + 1 >= data.totalPages) {
        expect(total).toBe(data.totalElements);
        break;
      }
    }
    expect(pages.length).toBeGreaterThan(2);
    expect(found(pages.join('\n'))).toEqual([]);
  });

  it('(c) no secret in the server\'s log lines, which did receive the life', () => {
    expect(logLines.length).toBeGreaterThan(20);
    const all = logLines.join('\n');
    // The life's requests are there, so a secret logged with them would be found.
    for (const route of ['/api/v1/auth/login', '/api/v1/auth/login/totp', '/api/v1/auth/password-reset/confirm', '/api/v1/contacts/:email/erase']) {
      expect(all, route).toContain(`"route":"${route}"`);
    }
    expect(found(all)).toEqual([]);
  });
});
