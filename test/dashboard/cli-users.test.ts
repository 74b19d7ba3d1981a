/**
 * `sendwell users create` (issue 6 §1): self-hosters make a dashboard user from the command line;
 * the user then signs in through the API like one who signed up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';



let server: TestServer;
let accountId: number;
beforeAll(async () => {
  server = await startTestServer();
  accountId = (await server.createAccount({ plan: 'free' })).id;
});
afterAll(() => server?.close());

const signIn = (email: string, password: string) => server.request('POST', '/api/v1/auth/login', { body: { email, password } });

describe('sendwell users create', { timeout: CLI_TIMEOUT }, () => {
  it('reads the password from stdin, prints the user as JSON without the hash, and the user can sign in', async () => {
    const res = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'Admin@Example.com'], server.env, 'from stdin 123\n');
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    const user = JSON.parse(res.stdout);
    expect(user).toEqual({ id: expect.any(Number), account_id: accountId, email: 'admin@example.com', role: 'owner', created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/) });
    expect(res.stdout).not.toMatch(/argon2|password/i);
    const signedIn = await signIn('admin@example.com', 'from stdin 123');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.account.id).toBe(accountId);
  });

  it('takes --password too', async () => {
    const res = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'ops@example.com', '--password', 'from the flag 1'], server.env);
    expect(res.code).toBe(0);
    expect((await signIn('ops@example.com', 'from the flag 1')).status).toBe(200);
  });

  it('fails with one line for a taken e-mail, a missing account, a short password or no password', async () => {
    const cases: [string[], string, RegExp][] = [
      [['--account', String(accountId), '--email', 'admin@example.com'], 'another password\n', /already exists/],
      [['--account', '999999', '--email', 'new@example.com'], 'another password\n', /account 999999 does not exist/],
      [['--account', String(accountId), '--email', 'new@example.com'], 'short\n', /password must be 8-256 characters/],
      [['--account', String(accountId), '--email', 'new@example.com'], '', /no password given/],
    ];
    for (const [args, stdin, message] of cases) {
      const res = await sendwell(['users', 'create', ...args], server.env, stdin);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    }
    expect((await signIn('new@example.com', 'another password')).status).toBe(401);
  });
});
