import { spawn } from 'node:child_process';
import SQLite from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell, sendwellProcess, type CliResult } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
// Most commands run in this process (runCli, as bin/sendwell calls it); the help, the first
// commands on an empty DATA_DIR and `serve` run the real script in a process of its own.
const CLI_TEST_TIMEOUT = CLI_TIMEOUT;

/** Success: exit 0, nothing on stderr, exactly one line of JSON on stdout. */
function jsonOf(res: CliResult): any {
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  expect(res.stdout.endsWith('\n')).toBe(true);
  expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(res.stdout);
}

/** Failure: non-zero exit, nothing on stdout, one line on stderr (no stack trace). */
function expectFailure(res: CliResult, mentions?: RegExp) {
  expect(res.code).not.toBe(0);
  expect(res.stdout).toBe('');
  const lines = res.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0].length).toBeGreaterThan(0);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  if (mentions) expect(lines[0]).toMatch(mentions);
}

let server: TestServer;
let dataDir: string;
/** The environment that points a CLI process at the running server's data (DATA_DIR, and DATABASE_URL on PostgreSQL). */
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-cli-'));
  server = await startTestServer({ DATA_DIR: dataDir });
  env = server.env;
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const countRows = async (table: 'accounts' | 'api_keys') =>
  Number((await server.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('sendwell --help', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('lists the commands and exits 0', async () => {
    const res = await sendwellProcess(['--help'], env);
    expect(res.code).toBe(0);
    for (const command of ['serve', 'migrate', 'accounts', 'keys']) expect(res.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('keys create --help lists its options', async () => {
    const res = await sendwellProcess(['keys', 'create', '--help'], env);
    expect(res.code).toBe(0);
    for (const option of ['--account', '--name', '--permissions', '--description', '--expires-at']) expect(res.stdout).toContain(option);
  });

  it('an unknown command exits non-zero with one line on stderr', async () => {
    expectFailure(await sendwellProcess(['frobnicate'], env));
  });
});

describe('sendwell accounts create', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('prints one JSON object with id, name, plan (default free) and slug (D22)', async () => {
    const account = jsonOf(await sendwell(['accounts', 'create', '--name', 'Acme Ltd'], env));
    expect(account).toMatchObject({ name: 'Acme Ltd', plan: 'free', slug: 'acme-ltd' });
    expect(account.id).toBeTypeOf('number');
    expect(account.created_at).toMatch(D1_TIMESTAMP);
    const row = await server.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect({ name: row.name, plan: row.plan }).toEqual({ name: 'Acme Ltd', plan: 'free' });
  });

  it('takes --plan', async () => {
    for (const plan of ['starter', 'business', 'enterprise']) {
      const account = jsonOf(await sendwell(['accounts', 'create', '--name', `On ${plan}`, '--plan', plan], env));
      expect(account).toMatchObject({ name: `On ${plan}`, plan });
    }
  });

  it('a bad plan or a missing name exits non-zero with one line on stderr, creating nothing', async () => {
    const before = await countRows('accounts');
    expectFailure(await sendwell(['accounts', 'create', '--name', 'X', '--plan', 'platinum'], env), /plan/);
    expectFailure(await sendwell(['accounts', 'create'], env), /--name/);
    expect(await countRows('accounts')).toBe(before);
  });
});

describe('sendwell keys create', { timeout: CLI_TEST_TIMEOUT }, () => {
  const createAccount = async (plan = 'free') => jsonOf(await sendwell(['accounts', 'create', '--name', 'Key owner', '--plan', plan], env)).id as number;
  const createKey = (account: number, ...extra: string[]) => sendwell(['keys', 'create', '--account', String(account), '--name', 'cli key', ...extra], env);

  it('prints JSON with id and the full key; the key works against the running server at once', async () => {
    const account = await createAccount();
    const res = await createKey(account, '--permissions', 'contacts.read,lists.read', '--description', 'made by the CLI', '--expires-at', '2031-03-01T10:00:00+01:00');
    const key = jsonOf(res);
    expect(key).toMatchObject({
      name: 'cli key',
      description: 'made by the CLI',
      permissions: ['contacts.read', 'lists.read'],
      status: 'Active',
      permanently_revoked: false,
      expires_at: '2031-03-01T09:00:00',
    });
    expect(key.id).toBeTypeOf('number');
    // D9: sw_ + base62, masked as first 7 + ... + last 4.
    expect(key.key).toMatch(/^sw_[0-9A-Za-z]{38,}$/);
    expect(key.masked_key).toBe(`${key.key.slice(0, 7)}...${key.key.slice(-4)}`);

    // The server holds the same database open; the new key is accepted, with its permissions.
    expect((await server.request('GET', '/api/v1/lists', { key: key.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/contacts', { key: key.key, auth: 'bearer' })).status).toBe(200);
    const denied = await server.request('GET', '/api/v1/campaigns', { key: key.key });
    expect({ status: denied.status, code: denied.body.error.code }).toEqual({ status: 403, code: 'PERMISSION_DENIED' });
  });

  it("'*' grants key management; the key's account is the one given", async () => {
    const account = await createAccount('enterprise');
    const key = jsonOf(await createKey(account, '--permissions', '*'));
    expect(key).toMatchObject({ permissions: ['*'], description: null, expires_at: null });
    const res = await server.request('GET', '/api/v1/api-keys', { key: key.key });
    expect(res.status).toBe(200);
    // The listed key is the CLI's, masked; the value itself is never shown again.
    expect(res.body.data.api_keys).toHaveLength(1);
    expect(res.body.data.api_keys[0]).toMatchObject({ id: key.id, name: 'cli key', masked_key: key.masked_key });
    expect(res.text).not.toContain(key.key);
    const row = await server.db.selectFrom('api_keys').select('account_id').where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(Number(row.account_id)).toBe(account);
  });

  it("the free plan's third key fails with a non-zero exit; keys made over HTTP count too (D9)", async () => {
    const account = await createAccount('free');
    const first = jsonOf(await createKey(account, '--permissions', '*'));
    const second = await server.request('POST', '/api/v1/api-keys', { key: first.key, body: { name: 'over http', permissions: ['lists.read'] } });
    expect(second.status).toBe(200);
    expectFailure(await createKey(account, '--permissions', 'lists.read'));
    const keys = await server.db.selectFrom('api_keys').select('id').where('account_id', '=', account).execute();
    expect(keys).toHaveLength(2);
    // Deleting one frees the slot for the CLI as well.
    expect((await server.request('DELETE', `/api/v1/api-keys/${second.body.data.id}`, { key: first.key })).status).toBe(200);
    const third = jsonOf(await createKey(account, '--permissions', 'lists.read'));
    expect((await server.request('GET', '/api/v1/lists', { key: third.key })).status).toBe(200);
  });

  it('an unknown account, bad permissions or a past --expires-at exit non-zero with one line, creating nothing', async () => {
    const account = await createAccount('enterprise');
    const before = await countRows('api_keys');
    const failures = await Promise.all([
      createKey(999_999, '--permissions', '*'),
      createKey(account, '--permissions', 'lists.read,lists.admin'),
      createKey(account, '--permissions', ','),
      createKey(account, '--permissions', '*', '--expires-at', '2020-01-01T00:00:00'),
      createKey(account, '--permissions', '*', '--expires-at', 'soon'),
      sendwell(['keys', 'create', '--account', 'abc', '--name', 'x', '--permissions', '*'], env),
      sendwell(['keys', 'create', '--account', String(account), '--name', 'x'], env),
    ]);
    const [unknownAccount, badPermission, noPermission, pastExpiry, badExpiry, badAccountId, missingPermissions] = failures;
    expectFailure(unknownAccount, /account/);
    expectFailure(badPermission, /lists\.admin/);
    expectFailure(noPermission, /permission/);
    expectFailure(pastExpiry, /expires_at/);
    expectFailure(badExpiry, /expires_at/);
    expectFailure(badAccountId, /--account/);
    expectFailure(missingPermissions, /--permissions/);
    expect(await countRows('api_keys')).toBe(before);
  });

  it('writes while the server keeps serving requests on the same data (SQLite: no "database is locked")', async () => {
    const { key: busyKey } = await server.createAccountWithKey(['*']);
    const account = await createAccount('enterprise');
    // Keep the server reading and writing while the CLI creates a key.
    let stop = false;
    const statuses: number[] = [];
    const traffic = (async () => {
      for (let i = 0; !stop; i++) {
        const res = await server.request('POST', '/api/v1/lists', { key: busyKey, body: { name: `busy ${i}` } });
        statuses.push(res.status);
      }
    })();
    // Several CLI processes at once: each reads (account, key count) and then writes, as the server
    // does. Processes of their own: SQLite's busy wait would block this process's server too.
    const created = await Promise.all([1, 2, 3].map(() => sendwellProcess(['keys', 'create', '--account', String(account), '--name', 'cli key', '--permissions', 'lists.read'], env)));
    stop = true;
    await traffic;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const res of created) {
      const key = jsonOf(res);
      expect((await server.request('GET', '/api/v1/lists', { key: key.key })).status).toBe(200);
    }
  });
});

describe('sendwell before the server starts', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('migrate, accounts create and keys create on an empty DATA_DIR; a server started on it accepts the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sendwell-cli-fresh-'));
    // Plain SQLite in `dir`, whichever database the rest of the suite uses.
    const fresh = { DATA_DIR: dir, DATABASE_URL: '' };
    try {
      expect(jsonOf(await sendwellProcess(['migrate'], fresh))).toEqual({ migrated: true });
      // D22: the built-in templates are written right after migrating, compiled
      const db = new SQLite(join(dir, 'sendwell.db'), { readonly: true });
      try {
        const builtins = db.prepare('select builtin_key, compiled_html from templates where account_id is null').all() as { builtin_key: string; compiled_html: string }[];
        expect(builtins.map((b) => b.builtin_key)).toEqual(expect.arrayContaining(['newsletter', 'announcement', 'product', 'welcome', 'event', 'plain']));
        expect(builtins.every((b) => b.compiled_html.includes('style='))).toBe(true);
      } finally {
        db.close();
      }
      const account = jsonOf(await sendwellProcess(['accounts', 'create', '--name', 'Early bird'], fresh));
      expect(account).toMatchObject({ id: 1, name: 'Early bird', plan: 'free' });
      const key = jsonOf(await sendwellProcess(['keys', 'create', '--account', '1', '--name', 'first', '--permissions', '*'], fresh));
      expect(key).toMatchObject({ id: 1, name: 'first' });

      const later = await startTestServer(fresh);
      try {
        const res = await later.request('GET', '/api/v1/api-keys/1', { key: key.key });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ id: 1, name: 'first', masked_key: key.masked_key, request_count: 1 });
      } finally {
        await later.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A README command line as its words: quotes as a shell reads them, and a `#` comment left out. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === '#' && word === null) break;
    else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

// Issue 30: a newcomer follows the README on a fresh data folder; the account its "First calls"
// make closes dashboard sign-up (D17.7), and the user they make signs in to the dashboard.
describe("the README's first calls, on a fresh data folder", { timeout: CLI_TEST_TIMEOUT }, () => {
  it('make the account, its key and its dashboard user, who signs in while sign-up stays closed', async () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## First calls'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
    const commands = block.split('\n').filter((line) => line.startsWith('./bin/sendwell ')).map((line) => shellWords(line).slice(1));
    expect(commands.map((args) => args.slice(0, 2).join(' '))).toEqual(['accounts create', 'keys create', 'users create']);

    const dir = mkdtempSync(join(tmpdir(), 'sendwell-readme-'));
    // Plain SQLite in `dir`, as `npm start` with no settings.
    const fresh = { DATA_DIR: dir, DATABASE_URL: '' };
    const password = 'the newcomer password';
    const later = await startTestServer(fresh);
    try {
      const printed: any[] = [];
      // `users create` asks for the password: typed, or piped in as here.
      for (const args of commands) printed.push(jsonOf(await sendwell(args, fresh, args[0] === 'users' ? `${password}\n` : undefined)));
      const [account, key, user] = printed;
      const option = (args: string[], name: string) => args[args.indexOf(name) + 1];
      const email = option(commands[2], '--email');
      expect(user).toMatchObject({ account_id: account.id, email });

      const signUp = await later.request('POST', '/api/v1/auth/signup', { body: { email: 'newcomer@example.com', password } });
      expect(signUp.status).toBe(403);
      expect(signUp.body.error.code).toBe('SIGNUP_CLOSED');
      const signIn = await later.request('POST', '/api/v1/auth/login', { body: { email, password } });
      expect(signIn.status, signIn.text).toBe(200);
      expect(signIn.body.data.account).toMatchObject({ id: account.id, name: option(commands[0], '--name') });
      expect(signIn.headers.get('set-cookie')).toMatch(/sendwell_session=/);
      expect((await later.request('GET', '/api/v1/lists', { key: key.key })).status).toBe(200);
    } finally {
      await later.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Starts `./bin/sendwell serve --role <role>` on the suite's data and resolves with what its process
 * was started with, read from /proc once it logs that it runs; then stops it.
 */
async function startedWith(role: 'api' | 'sender'): Promise<{ args: string[]; env: string[] }> {
  const child = spawn('./bin/sendwell', ['serve', '--role', role], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SECRET: 'test-secret' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (/sendwell (listening|sender running)/.test(output)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited (${code}) before it ran: ${output.slice(-2000)}`)));
    });
    const proc = (file: string) => readFileSync(`/proc/${child.pid}/${file}`, 'utf8').split('\0').filter(Boolean);
    return { args: proc('cmdline'), env: proc('environ') };
  } finally {
    child.kill('SIGTERM');
  }
}

describe.runIf(process.platform === 'linux')('sendwell serve: the sender role starts with its memory settings', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('a sender process runs node with --max-semi-space-size=8 and MALLOC_ARENA_MAX=2; an API process with neither', async () => {
    // The shell script execs node, so the process it started is node itself.
    const sender = await startedWith('sender');
    expect(sender.args).toContain('--max-semi-space-size=8');
    expect(sender.env).toContain('MALLOC_ARENA_MAX=2');
    const api = await startedWith('api');
    expect(api.args.some((a) => a.startsWith('--max-semi-space-size'))).toBe(false);
    expect(api.env.some((e) => e.startsWith('MALLOC_ARENA_MAX='))).toBe(process.env.MALLOC_ARENA_MAX !== undefined);
  });
});
