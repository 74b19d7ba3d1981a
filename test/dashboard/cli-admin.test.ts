/**
 * D17.7: with sign-up closed after the first account, the operator manages accounts and users
 * from the command line: `accounts list`, `accounts update ID --plan P`, `users list --account ID`,
 * `users reset-password --email E`. Each prints JSON (lists a JSON array), as `create` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { cookieOf } from './sign-up.ts';

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);


let server: TestServer;
let operatorAccount: number;
let otherAccount: number;
beforeAll(async () => {
  server = await startTestServer();
  const first = await server.request('POST', '/api/v1/auth/signup', { body: { email: 'operator@example.com', password: 'first password 1', account_name: 'Operator Co' } });
  operatorAccount = first.body.data.account.id;
  otherAccount = (await server.createAccount({ name: 'Client Ltd', plan: 'free' })).id;
});
afterAll(() => server?.close());

describe('D17.7: sendwell accounts', { timeout: CLI_TIMEOUT }, () => {
  it('list prints every account as a JSON array, oldest first', async () => {
    const res = await sendwell(['accounts', 'list'], server.env);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    const accounts = JSON.parse(res.stdout);
    expect(Array.isArray(accounts)).toBe(true);
    expect(accounts.map((a: { id: number }) => a.id)).toEqual([operatorAccount, otherAccount]);
    expect(accounts[1]).toEqual({ id: otherAccount, name: 'Client Ltd', plan: 'free', slug: 'client-ltd', time_zone: 'UTC', created_at: TIMESTAMP });
  });

  it('update --plan changes the plan, and the API applies its key limit at once', async () => {
    const res = await sendwell(['accounts', 'update', String(otherAccount), '--plan', 'starter'], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ id: otherAccount, name: 'Client Ltd', plan: 'starter', slug: 'client-ltd', time_zone: 'UTC', created_at: TIMESTAMP });
    const row = await server.db.selectFrom('accounts').select('plan').where('id', '=', otherAccount).executeTakeFirstOrThrow();
    expect(row.plan).toBe('starter');
  });

  it('update fails with one line and exit code 1 for an unknown plan or account, changing nothing', async () => {
    const badPlan = await sendwell(['accounts', 'update', String(otherAccount), '--plan', 'platinum'], server.env);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stdout).toBe('');
    expect(badPlan.stderr).toMatch(/^sendwell: plan must be one of free, starter, business, enterprise\n$/);
    const missing = await sendwell(['accounts', 'update', '999999', '--plan', 'free'], server.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/account 999999 does not exist/);
    const row = await server.db.selectFrom('accounts').select('plan').where('id', '=', otherAccount).executeTakeFirstOrThrow();
    expect(row.plan).toBe('starter');
  });
});

describe('D17.7: sendwell users', { timeout: CLI_TIMEOUT }, () => {
  it("list --account prints the account's users as a JSON array, without password hashes", async () => {
    const res = await sendwell(['users', 'list', '--account', String(operatorAccount)], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual([{ id: expect.any(Number), account_id: operatorAccount, email: 'operator@example.com', role: 'owner', created_at: TIMESTAMP }]);
    expect(res.stdout).not.toMatch(/argon2|password/i);
    const empty = await sendwell(['users', 'list', '--account', String(otherAccount)], server.env);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    const missing = await sendwell(['users', 'list', '--account', '999999'], server.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/account 999999 does not exist/);
  });

  it('reset-password takes the new password from stdin, ends the old sessions, and only the new password signs in', async () => {
    const before = await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password: 'first password 1' } });
    const oldCookie = cookieOf(before)!;
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: oldCookie } })).status).toBe(200);

    const res = await sendwell(['users', 'reset-password', '--email', 'Operator@Example.com'], server.env, 'second password 2\n');
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(res.stdout)).toMatchObject({ account_id: operatorAccount, email: 'operator@example.com' });
    expect(res.stdout).not.toMatch(/second password/);

    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: oldCookie } })).status).toBe(401);
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password: 'first password 1' } })).status).toBe(401);
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password: 'second password 2' } })).status).toBe(200);
  });

  it('reset-password takes --password, and refuses an unknown e-mail, a short password or none', async () => {
    const flag = await sendwell(['users', 'reset-password', '--email', 'operator@example.com', '--password', 'third password 3'], server.env);
    expect(flag.code, flag.stderr).toBe(0);
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password: 'third password 3' } })).status).toBe(200);

    const cases: [string[], string, RegExp][] = [
      [['--email', 'nobody@example.com'], 'a good password\n', /no dashboard user has the e-mail nobody@example.com/],
      [['--email', 'operator@example.com'], 'short\n', /password must be 8-256 characters/],
      [['--email', 'operator@example.com'], '', /no password given/],
    ];
    for (const [args, stdin, message] of cases) {
      const res = await sendwell(['users', 'reset-password', ...args], server.env, stdin);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
    }
    expect((await server.request('POST', '/api/v1/auth/login', { body: { email: 'operator@example.com', password: 'third password 3' } })).status).toBe(200);
  });
});
