/**
 * Issue 14 L5: sign-up revealed which addresses had accounts (409 USER_ALREADY_EXISTS) and never
 * checked that the address was the person's. The first sign-up on an empty instance (the
 * operator's, D17.7) is still signed in at once, without mail; any later one answers the same 200 `confirmation: SENT` in the
 * same words whether or not the address has an account, and the account exists only once the
 * link mailed to the address is followed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { cookieOf, tokenIn } from './sign-up.ts';

const PASSWORD = 'a long enough password';
let server: TestServer;
let operator: { accountId: number; cookie: string; key: string };
let n = 0;
const uniqueEmail = () => `person${++n}-${Date.now()}@example.com`;

const signUp = (on: TestServer, email: string, password = PASSWORD) => on.request('POST', '/api/v1/auth/signup', { body: { email, password, account_name: 'Acme' } });
const confirm = (on: TestServer, token: string) => on.request('POST', '/api/v1/auth/signup/confirm', { body: { token } });

/** Mail the dev inbox of `accountId` holds for `to`, newest first. */
async function inboxFor(accountId: number, to: string): Promise<{ subject: string; text: string; from: string }[]> {
  const { key } = accountId === operator.accountId ? operator : await server.createKey(accountId, ['*']);
  const res = await server.request('GET', '/api/v1/dev/inbox?size=100', { key });
  expect(res.status).toBe(200);
  return res.body.data.messages.filter((m: any) => m.to === to);
}

beforeAll(async () => {
  server = await startTestServer({ ALLOW_SIGNUP: 'true' }) // D17.7: the confirmation flow of later sign-ups;
  // The operator's sign-up comes first on this empty instance.
  const first = await signUp(server, 'operator@example.com');
  expect(first.status, first.text).toBe(200);
  operator = { accountId: first.body.data.account.id, cookie: cookieOf(first)!, key: (await server.createKey(first.body.data.account.id, ['*'])).key };
});
afterAll(() => server?.close());

describe('L5: sign-up answers the same whether or not the address has an account, and confirms it by mail', () => {
  it('the first sign-up on an empty instance is signed in at once, with no mail (the operator, D17.7)', async () => {
    expect(operator.cookie).toMatch(/^sendwell_session=/);
    expect(await server.db.selectFrom('dev_inbox').select('id').execute()).toEqual([]);
    const me = await server.request('GET', '/api/v1/auth/me', { headers: { cookie: operator.cookie } });
    expect(me.body.data.user.email).toBe('operator@example.com');
  });

  it('a later sign-up answers 200 confirmation SENT and creates nothing until the mailed link is followed', async () => {
    const email = uniqueEmail();
    const res = await signUp(server, email);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.confirmation).toBe('SENT');
    expect(res.body).toEqual({ success: true, data: { email, confirmation: 'SENT' }, message: expect.stringMatching(/check your mail/) });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
    // Not yet an account: signing in with the password is refused.
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);

    // Without SMTP_URL the mail is captured in the operator's dev inbox: the new account does not exist yet.
    const [mail] = await inboxFor(operator.accountId, email);
    expect(mail.subject).toMatch(/Confirm your e-mail address/);
    expect(mail.text).toContain(`${server.core.config.publicUrl}/signup/confirm#`);
    const confirmed = await confirm(server, tokenIn(mail.text));
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data).toMatchObject({ user: { email }, account: { name: 'Acme', plan: 'free' } });
    const cookie = cookieOf(confirmed);
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: cookie! } })).body.data.user.email).toBe(email);
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    // The link works once.
    expect((await confirm(server, tokenIn(mail.text))).status).toBe(404);
    expect(await server.db.selectFrom('signup_requests').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it('a registered address (in any case) gets the same answer, no second account, and its owner a note instead of a link', async () => {
    const fresh = uniqueEmail();
    const registered = 'operator@example.com';
    const forFresh = await signUp(server, fresh);
    const forRegistered = await signUp(server, registered.toUpperCase(), 'another password entirely');
    expect(forRegistered.status).toBe(forFresh.status);
    expect(forRegistered.body).toEqual({ ...forFresh.body, data: { ...forFresh.body.data, email: registered } });
    expect(forRegistered.headers.get('set-cookie')).toBeNull();
    expect(await server.db.selectFrom('users').select('id').where('email', '=', registered).execute()).toHaveLength(1);
    expect(await server.db.selectFrom('signup_requests').select('id').where('email', '=', registered).execute()).toEqual([]);
    const [note] = await inboxFor(operator.accountId, registered);
    expect(note.subject).toMatch(/tried to create a Sendwell account with your address/);
    expect(note.text).not.toMatch(/signup\/confirm/);
    // The owner's password is unchanged.
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email: registered, password: PASSWORD } })).status).toBe(200);
  });

  it('someone else asking for an address cannot block its owner: whichever link the owner follows makes the account', async () => {
    const email = uniqueEmail();
    expect((await signUp(server, email, 'the squatter password')).body.data.confirmation).toBe('SENT');
    expect((await signUp(server, email, PASSWORD)).body.data.confirmation).toBe('SENT');
    const mails = await inboxFor(operator.accountId, email);
    expect(mails).toHaveLength(2);
    // Newest first: the owner's own request.
    expect((await confirm(server, tokenIn(mails[0].text))).status).toBe(200);
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    expect((await confirm(server, tokenIn(mails[1].text))).status).toBe(404);
  });

  it('an unknown, altered or expired link is 404 and creates nothing', async () => {
    const email = uniqueEmail();
    await signUp(server, email);
    const token = tokenIn((await inboxFor(operator.accountId, email))[0].text);
    for (const bad of ['nope', token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')]) {
      const res = await confirm(server, bad);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    await server.db.updateTable('signup_requests').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('email', '=', email).execute();
    expect((await confirm(server, token)).status).toBe(404);
    expect(await server.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it('the dashboard serves the page the link opens', async () => {
    const page = await server.request('GET', '/signup/confirm');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('L5: with SMTP_URL, the confirmation goes through the mail server', () => {
  let sink: SmtpSink;
  let withSmtp: TestServer;
  beforeAll(async () => {
    sink = await startSmtpSink();
    withSmtp = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL: 'https://mail.example.test', MAIL_FROM: 'Accounts@Mail.Example.TEST', ALLOW_SIGNUP: 'true' });
  });
  afterAll(async () => {
    await withSmtp?.close();
    await sink?.close();
  });

  it('mails the link from MAIL_FROM, and following it signs in', async () => {
    expect((await signUp(withSmtp, 'operator@example.com')).status).toBe(200);
    const email = uniqueEmail();
    expect((await signUp(withSmtp, email)).body.data.confirmation).toBe('SENT');
    const [mail] = await sink.waitFor(1);
    expect(mail.envelope).toEqual({ from: 'accounts@mail.example.test', to: [email] });
    // Issue 29 item 5: the Message-ID names the sender's domain as every domain of an address is taken, lower-cased.
    expect(mail.messageId).toMatch(/^<account\.[0-9a-f-]+@mail\.example\.test>$/);
    expect(mail.text).toContain('https://mail.example.test/signup/confirm#');
    expect((await confirm(withSmtp, tokenIn(mail.text!))).status).toBe(200);
  });
});
