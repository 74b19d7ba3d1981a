/**
 * D17.7: anyone who reached a public instance could sign up and send through the operator's mail
 * server. Now the first dashboard sign-up on an empty instance is open (the operator's), and after
 * it sign-up is 403 SIGNUP_CLOSED unless the server runs with ALLOW_SIGNUP=true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { cookieOf } from './sign-up.ts';

const password = 'correct horse battery';

describe('D17.7: sign-up closes after the first account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('an empty instance says sign-up is open for the first account, and the first sign-up is signed in at once', async () => {
    const before = await server.request('GET', '/api/v1/auth/signup');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ open: true, first_account: true, sso: false });

    const first = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'operator@example.com', password } });
    expect(first.status, first.text).toBe(200);
    expect(cookieOf(first)).not.toBeNull();

    const after = await server.request('GET', '/api/v1/auth/signup');
    expect(after.body.data).toEqual({ open: false, first_account: false, sso: false });
  });

  it('a later sign-up is 403 SIGNUP_CLOSED: no account, no user, no mail', async () => {
    const accountsBefore = await server.db.selectFrom('accounts').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'stranger@example.com', password } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SIGNUP_CLOSED');
    expect(res.body.error.message).toMatch(/ALLOW_SIGNUP/);
    expect(cookieOf(res)).toBeNull();
    const accountsAfter = await server.db.selectFrom('accounts').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(accountsAfter.n)).toBe(Number(accountsBefore.n));
    expect(await server.db.selectFrom('users').selectAll().where('email', '=', 'stranger@example.com').executeTakeFirst()).toBeUndefined();
    expect(await server.db.selectFrom('dev_inbox').selectAll().where('to_address', '=', 'stranger@example.com').executeTakeFirst()).toBeUndefined();
    expect(await server.db.selectFrom('signup_requests').selectAll().executeTakeFirst()).toBeUndefined();
  });

  it('the registered address gets the same 403, so the answer tells nobody who has an account', async () => {
    const res = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'Operator@Example.com', password } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SIGNUP_CLOSED');
  });

  it('the operator still signs in', async () => {
    const res = await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password } });
    expect(res.status).toBe(200);
  });
});

describe('D17.7: two first sign-ups at once make one operator', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('exactly one is signed in; the others are 403 SIGNUP_CLOSED', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.request('POST', '/api/v1/auth/signup', { body: { email: `first${i}@example.com`, password } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 403, 403, 403, 403]);
    const users = await server.db.selectFrom('users').select('email').execute();
    expect(users).toHaveLength(1);
  });
});

describe('D17.7: an instance whose account was made with the CLI is not empty', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('the first dashboard sign-up after `accounts create` is 403 SIGNUP_CLOSED, and the status says closed', { timeout: CLI_TIMEOUT }, async () => {
    // README's "First calls": the operator makes an account and a key, and never signs up.
    const cli = await sendwell(['accounts', 'create', '--name', 'Operator API'], server.env);
    expect(cli.code, cli.stderr).toBe(0);
    expect((await server.request('GET', '/api/v1/auth/signup')).body.data).toEqual({ open: false, first_account: false, sso: false });
    const res = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'stranger@example.com', password } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SIGNUP_CLOSED');
    expect(await server.db.selectFrom('users').selectAll().execute()).toEqual([]);
  });
});

describe('D17.7: ALLOW_SIGNUP=true keeps sign-up open, each later one confirmed by mail', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ALLOW_SIGNUP: 'true' });
  });
  afterAll(() => server.close());

  it('after the first account the status says open, and a later sign-up is asked to confirm', async () => {
    expect((await server.request('POST', '/api/v1/auth/signup', { body: { email: 'operator@example.com', password } })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/auth/signup')).body.data).toEqual({ open: true, first_account: false, sso: false });
    const later = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'newcomer@example.com', password } });
    expect(later.status).toBe(200);
    expect(later.body.data).toEqual({ email: 'newcomer@example.com', confirmation: 'SENT' });
  });
});

describe('D17.7: ALLOW_SIGNUP takes only true or false', () => {
  it('refuses anything else at start', async () => {
    await expect(startTestServer({ ALLOW_SIGNUP: 'yes' })).rejects.toThrow(/ALLOW_SIGNUP must be true or false/);
  });
});
