/**
 * D24.3: invitations mailed through a real SMTP server, accepted through the API; their links
 * work 7 days and once; reach over owners' invitations; the single sign-on entry (D24.7) that
 * accepts a verified address's invitation without a password.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { accept, as, cookieOf, firstOwner, inviteTokenIn, join, PASSWORD, type Member } from './team.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const PUBLIC_URL = 'https://app.example.test';
let sink: SmtpSink;
let server: TestServer;
let accountId: number;
let key: string;
let owner: Member;
let admin: Member;
let n = 0;
const uniqueEmail = (what: string) => `${what}-${++n}@example.com`;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL, MAIL_FROM: 'Team@Mail.Example.TEST' });
  const account = await server.createAccount({ name: 'Acme Widgets' });
  accountId = account.id;
  key = (await server.createKey(accountId, ['*'], { name: 'ops key' })).key;
  owner = await firstOwner(server, accountId, 'owner@example.com');
  admin = await join(server, owner, 'admin@example.com', 'admin', sink);
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const error = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });
const invite = (by: Member | { key: string }, email: string, role = 'viewer') =>
  'key' in by ? server.request('POST', '/api/v1/invitations', { key: by.key, body: { email, role } }) : as(server, by)('POST', '/api/v1/invitations', { body: { email, role } });
const tokenMailedTo = (email: string) => inviteTokenIn(sink.to(email).at(-1)!.text!);
const invalidToken = async (token: string, what: string) => {
  const res = await accept(server, token);
  expect(res.status, `${what}: ${res.text}`).toBe(400);
  expect(res.body, what).toEqual(error('INVALID_TOKEN'));
  expect(cookieOf(res), what).toBeNull();
};
const audit = (action: string) => server.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId).where('action', '=', action).orderBy('id').execute();

describe('POST /api/v1/invitations', () => {
  it('mails {PUBLIC_URL}/invite/{token} naming the account, from MAIL_FROM; keeps only the SHA-256 of the token; valid 7 days', async () => {
    const email = uniqueEmail('invitee');
    const before = Date.now();
    const res = await invite(owner, email.toUpperCase(), 'manager');
    expect(res.status, res.text).toBe(200);
    const invitation = res.body.data;
    expect(invitation).toEqual({ id: expect.any(Number), email, role: 'manager', invited_by: owner.id, expires_at: expect.any(String), created_at: expect.any(String) });
    const expiresMs = Date.parse(`${invitation.expires_at}Z`);
    expect(expiresMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7 * 86_400_000);
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000);

    const [mail] = sink.to(email);
    expect(mail.envelope).toEqual({ from: 'team@mail.example.test', to: [email] });
    expect(mail.subject).toContain('Acme Widgets');
    expect(mail.text).toContain('Acme Widgets');
    expect(mail.text).toContain('owner@example.com');
    expect(mail.text).toMatch(new RegExp(`${PUBLIC_URL}/invite/[A-Za-z0-9_-]{40,}`));
    const token = inviteTokenIn(mail.text!);
    const row = await server.db.selectFrom('invitations').selectAll().where('id', '=', invitation.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(await server.db.selectFrom('audit_log').selectAll().execute())).not.toContain(token);
    expect(await audit('member.invited')).toContainEqual(expect.objectContaining({ actor_type: 'user', actor_id: String(owner.id), target_type: 'invitation', target_id: String(invitation.id) }));
  });

  it('a key invites with invited_by null', async () => {
    const res = await invite({ key }, uniqueEmail('by-key'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.invited_by).toBeNull();
  });

  it('409 USER_ALREADY_EXISTS for an address that is a user, of this account or another; 409 INVITATION_EXISTS for one pending', async () => {
    const other = await server.createAccount();
    const stranger = uniqueEmail('stranger');
    await server.core.users.create(SYSTEM_ACTING, other.id, { email: stranger, password: PASSWORD });
    for (const email of [admin.email, stranger]) {
      const res = await invite(owner, email);
      expect(res.status, email).toBe(409);
      expect(res.body).toEqual(error('USER_ALREADY_EXISTS'));
    }
    const email = uniqueEmail('twice');
    expect((await invite(owner, email)).status).toBe(200);
    const again = await invite(admin, email, 'author');
    expect(again.status).toBe(409);
    expect(again.body).toEqual(error('INVITATION_EXISTS'));
    expect(sink.to(email)).toHaveLength(1);
  });

  it('an admin (or a `*` key) cannot invite an owner: 403; an owner can', async () => {
    for (const by of [admin, { key }]) {
      const email = uniqueEmail('would-be-owner');
      const res = await invite(by, email, 'owner');
      expect(res.status).toBe(403);
      expect(res.body).toEqual(error('PERMISSION_DENIED'));
      expect(sink.to(email)).toEqual([]);
    }
    expect((await invite(owner, uniqueEmail('new-owner'), 'owner')).status).toBe(200);
  });

  it('an invalid address is 400 naming email', async () => {
    const res = await invite(owner, 'not-an-address');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('email');
  });
});

describe('GET /api/v1/invitations', () => {
  it('lists pending invitations only, never another account\'s', async () => {
    const pending = (await invite(owner, uniqueEmail('listed'))).body.data;
    const revoked = (await invite(owner, uniqueEmail('revoked'))).body.data;
    await as(server, owner)('DELETE', `/api/v1/invitations/${revoked.id}`);
    const res = await as(server, admin)('GET', '/api/v1/invitations?size=100');
    expect(res.status).toBe(200);
    const ids = res.body.data.invitations.map((i: any) => i.id);
    expect(ids).toContain(pending.id);
    expect(ids).not.toContain(revoked.id);
    const rows = await server.db.selectFrom('invitations').select('id').where('account_id', '=', accountId).where('status', '=', 'PENDING').execute();
    expect(res.body.data.totalElements).toBe(rows.length);
    expect(res.body.data.invitations.find((i: any) => i.id === pending.id)).toEqual(pending);
  });
});

describe('POST /api/v1/auth/invitations/accept', () => {
  it('makes the user with the address and role, signs it in (cookie, SessionInfo) and ends the invitation; the token then is 400 INVALID_TOKEN', async () => {
    const email = uniqueEmail('joiner');
    const invitation = (await invite(owner, email, 'author')).body.data;
    const token = tokenMailedTo(email);
    const res = await accept(server, token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ user: { email, role: 'author', account_id: accountId }, account: { id: accountId, name: 'Acme Widgets' }, csrf_token: expect.any(String) });
    expect(res.body.data.permissions).toEqual(expect.arrayContaining(['campaigns.write', 'automation.write']));
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    const cookie = cookieOf(res)!;
    const me = await server.request('GET', '/api/v1/auth/me', { headers: { cookie } });
    expect(me.body.data.user).toMatchObject({ email, role: 'author' });
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    const row = await server.db.selectFrom('invitations').select('status').where('id', '=', invitation.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('ACCEPTED');
    const joined = await audit('member.joined');
    expect(joined).toContainEqual(expect.objectContaining({ actor_type: 'user', actor_id: String(res.body.data.user.id), actor_label: email, target_type: 'user', target_id: String(res.body.data.user.id) }));
    await invalidToken(token, 'reused');
    expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(1);
  });

  it('an expired, forged, revoked or resent-over token is 400 INVALID_TOKEN and makes no user', async () => {
    const expired = uniqueEmail('expired');
    const expiredId = (await invite(owner, expired)).body.data.id;
    await server.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expiredId).execute();
    await invalidToken(tokenMailedTo(expired), 'expired');

    await invalidToken('forged-token-that-was-never-mailed', 'forged');
    await invalidToken(tokenMailedTo(expired).slice(0, -1) + 'A', 'altered');

    const revoked = uniqueEmail('revoked');
    const revokedId = (await invite(owner, revoked)).body.data.id;
    const res = await as(server, admin)('DELETE', `/api/v1/invitations/${revokedId}`);
    expect(res.status, res.text).toBe(200);
    await invalidToken(tokenMailedTo(revoked), 'revoked');

    const resent = uniqueEmail('resent');
    const resentId = (await invite(owner, resent)).body.data.id;
    const oldToken = tokenMailedTo(resent);
    expect((await as(server, owner)('POST', `/api/v1/invitations/${resentId}/resend`)).status).toBe(200);
    await invalidToken(oldToken, 'resent: the old link');
    for (const email of [expired, revoked, resent]) expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute(), email).toEqual([]);
    expect((await accept(server, tokenMailedTo(resent))).status).toBe(200);
  });

  it('a link followed twice at once: one joins, the other is 400 INVALID_TOKEN', async () => {
    const email = uniqueEmail('twice-at-once');
    await invite(owner, email);
    const token = tokenMailedTo(email);
    const answers = await Promise.all([accept(server, token), accept(server, token)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body).toEqual(error('INVALID_TOKEN'));
    expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(1);
  });

  it('a password outside 8-256 characters is 400 naming password, and the invitation stays usable', async () => {
    const email = uniqueEmail('short');
    await invite(owner, email);
    const token = tokenMailedTo(email);
    const res = await accept(server, token, 'short');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toContain('password');
    expect((await accept(server, token)).status).toBe(200);
  });

  it('posted from another site: 403 CSRF_TOKEN_INVALID, nothing made', async () => {
    const email = uniqueEmail('cross-site');
    await invite(owner, email);
    const res = await server.request('POST', '/api/v1/auth/invitations/accept', { body: { token: tokenMailedTo(email), password: PASSWORD }, headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(error('CSRF_TOKEN_INVALID'));
    expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it('an address that became a user meanwhile (through another account): 409 USER_ALREADY_EXISTS, the invitation left pending', async () => {
    const email = uniqueEmail('two-accounts');
    const id = (await invite(owner, email)).body.data.id;
    const other = await server.createAccount();
    await server.core.users.create(SYSTEM_ACTING, other.id, { email, password: PASSWORD });
    const res = await accept(server, tokenMailedTo(email));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(error('USER_ALREADY_EXISTS'));
    expect((await server.db.selectFrom('invitations').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('PENDING');
  });
});

describe('revoke and resend', () => {
  it('resend mails a new link and gives 7 days again, even to an expired invitation; both recorded', async () => {
    const email = uniqueEmail('again');
    const id = (await invite(owner, email)).body.data.id;
    await server.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    const res = await as(server, admin)('POST', `/api/v1/invitations/${id}/resend`);
    expect(res.status, res.text).toBe(200);
    expect(Date.parse(`${res.body.data.expires_at}Z`)).toBeGreaterThan(Date.now() + 7 * 86_400_000 - 60_000);
    expect(sink.to(email)).toHaveLength(2);
    const [first, second] = sink.to(email).map((m) => inviteTokenIn(m.text!));
    expect(second).not.toBe(first);
    expect(await audit('member.invitation_resent')).toContainEqual(expect.objectContaining({ actor_id: String(admin.id), target_type: 'invitation', target_id: String(id) }));
    expect((await accept(server, second)).status).toBe(200);
    // Accepted: no longer pending.
    for (const [method, path] of [['POST', `/api/v1/invitations/${id}/resend`], ['DELETE', `/api/v1/invitations/${id}`]] as const) {
      const gone = await as(server, owner)(method, path);
      expect(gone.status, `${method} ${path}`).toBe(404);
      expect(gone.body).toEqual(error('INVITATION_NOT_FOUND'));
    }
  });

  it('404 INVITATION_NOT_FOUND for an unknown id, another account\'s, or a revoked one', async () => {
    const other = await server.createAccount();
    const otherOwner = await firstOwner(server, other.id, uniqueEmail('other-owner'));
    const foreign = (await invite(otherOwner, uniqueEmail('foreign'))).body.data.id;
    const revoked = (await invite(owner, uniqueEmail('revoke-twice'))).body.data.id;
    expect((await as(server, owner)('DELETE', `/api/v1/invitations/${revoked}`)).status).toBe(200);
    for (const id of [987654321, foreign, revoked]) {
      for (const [method, path] of [['POST', `/api/v1/invitations/${id}/resend`], ['DELETE', `/api/v1/invitations/${id}`]] as const) {
        const res = await as(server, owner)(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual(error('INVITATION_NOT_FOUND'));
      }
    }
    expect((await server.db.selectFrom('invitations').select('status').where('id', '=', foreign).executeTakeFirstOrThrow()).status).toBe('PENDING');
    expect(await audit('member.invitation_revoked')).toContainEqual(expect.objectContaining({ actor_id: String(owner.id), target_type: 'invitation', target_id: String(revoked) }));
  });

  it("an admin can neither revoke nor resend an owner's invitation: 403", async () => {
    const email = uniqueEmail('owner-to-be');
    const id = (await invite(owner, email, 'owner')).body.data.id;
    for (const [method, path] of [['POST', `/api/v1/invitations/${id}/resend`], ['DELETE', `/api/v1/invitations/${id}`]] as const) {
      const res = await as(server, admin)(method, path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(error('PERMISSION_DENIED'));
    }
    expect(sink.to(email)).toHaveLength(1);
    expect((await accept(server, tokenMailedTo(email))).body.data.user.role).toBe('owner');
  });
});

describe('D24.7: accepting a verified address\'s invitation without a password (for single sign-on)', () => {
  it('opens a session for the invited address, with a password hash nobody knows; null without an invitation', async () => {
    const email = uniqueEmail('sso');
    await invite(owner, email, 'manager');
    const opened = await server.core.invitations.acceptPendingFor(SYSTEM_ACTING, email.toUpperCase());
    expect(opened?.session.user).toMatchObject({ email, role: 'manager', account_id: accountId });
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: `sendwell_session=${opened!.token}` } })).status).toBe(200);
    const user = await server.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(await server.core.invitations.acceptPendingFor(SYSTEM_ACTING, email)).toBeNull();
    expect(await server.core.invitations.acceptPendingFor(SYSTEM_ACTING, uniqueEmail('never-invited'))).toBeNull();
    // A user already (of another account): null, its invitation left alone.
    const taken = uniqueEmail('sso-taken');
    const id = (await invite(owner, taken)).body.data.id;
    await server.core.users.create(SYSTEM_ACTING, (await server.createAccount()).id, { email: taken, password: PASSWORD });
    expect(await server.core.invitations.acceptPendingFor(SYSTEM_ACTING, taken)).toBeNull();
    expect((await server.db.selectFrom('invitations').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('PENDING');
  });
});
