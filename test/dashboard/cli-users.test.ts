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
  it('reads the password from stdin, prints the user as JSON without the hash, and the user can sign in; the first user is the owner (D24.1)', async () => {
    const res = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'Admin@Example.com'], server.env, 'from stdin 123\n');
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    const user = JSON.parse(res.stdout);
    expect(user).toEqual({ id: expect.any(Number), account_id: accountId, email: 'admin@example.com', role: 'owner', created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/) });
    expect(res.stdout).not.toMatch(/argon2|password/i);
    const signedIn = await signIn('admin@example.com', 'from stdin 123');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.account.id).toBe(accountId);
  });

  it('takes --password too; a later user is a viewer unless --role says otherwise (D24.1)', async () => {
    const res = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'ops@example.com', '--password', 'from the flag 1'], server.env);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).role).toBe('viewer');
    const signedIn = await signIn('ops@example.com', 'from the flag 1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user.role).toBe('viewer');
    const manager = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'manager@example.com', '--role', 'manager', '--password', 'from the flag 2'], server.env);
    expect(manager.code, manager.stderr).toBe(0);
    expect(JSON.parse(manager.stdout).role).toBe('manager');
  });

  it('refuses an unknown role, and a role other than owner for an account\'s first user (D24.1)', async () => {
    const bad = await sendwell(['users', 'create', '--account', String(accountId), '--email', 'bad-role@example.com', '--role', 'boss', '--password', 'from the flag 3'], server.env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/boss/);
    const fresh = (await server.createAccount({ plan: 'free' })).id;
    const first = await sendwell(['users', 'create', '--account', String(fresh), '--email', 'first@example.com', '--role', 'admin', '--password', 'from the flag 4'], server.env);
    expect(first.code).not.toBe(0);
    expect(first.stderr).toMatch(/first user of an account is its owner/);
    const owner = await sendwell(['users', 'create', '--account', String(fresh), '--email', 'first@example.com', '--role', 'owner', '--password', 'from the flag 4'], server.env);
    expect(JSON.parse(owner.stdout).role).toBe('owner');
    // Recorded as the system's (D24.8).
    const audit = await server.db.selectFrom('audit_log').select(['action', 'actor_type', 'target_id']).where('account_id', '=', fresh).execute();
    expect(audit).toEqual([{ action: 'member.joined', actor_type: 'system', target_id: String(JSON.parse(owner.stdout).id) }]);
  });

  it('users list shows each user with its role', async () => {
    const res = await sendwell(['users', 'list', '--account', String(accountId)], server.env);
    expect(res.code).toBe(0);
    const roles = Object.fromEntries(JSON.parse(res.stdout).map((u: any) => [u.email, u.role]));
    expect(roles).toMatchObject({ 'admin@example.com': 'owner', 'ops@example.com': 'viewer', 'manager@example.com': 'manager' });
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
