import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatedDnsServer, type GatedDnsServer } from '../helpers/gated-dns-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, NoResponseError, spawnServer, type HttpResult } from './helpers.ts';

/**
 * D25.6 across processes: two real `sendwell serve` processes on one database (on PostgreSQL,
 * with one Redis), and a process killed with SIGKILL between the commit of a keyed request and
 * its answer. Runs in both projects: on SQLite the two processes share the database file.
 */
const scaleOut = Boolean(process.env.TEST_DATABASE_URL);

let server: TestServer;
let dns: GatedDnsServer;
beforeAll(async () => {
  dns = await startGatedDnsServer();
  server = await startTestServer();
});
afterAll(async () => {
  await killLeftovers();
  await dns.close();
  // Last: it drops the schema the processes used.
  await server?.close();
});

const keyed = (key: string) => ({ 'Idempotency-Key': key });
const replayed = (res: HttpResult) => res.headers['idempotent-replayed'] === 'true';

async function newDomain(url: string, apiKey: string): Promise<number> {
  const created = await httpRequest(url, 'POST', '/api/v1/domains', { key: apiKey, body: { domain: `d${Date.now()}.example.com` } });
  expect(created.status).toBe(200);
  return created.body.data.id as number;
}

describe('Idempotency-Key on two instances (D25.6)', () => {
  it.runIf(scaleOut)('PostgreSQL and Redis: a request with the key running on one instance makes the same on the other 409; if the hold lapses, the key\'s row decides', async () => {
    const [a, b] = await Promise.all([spawnServer(server.env, { DNS_SERVERS: dns.address }), spawnServer(server.env, { DNS_SERVERS: dns.address })]);
    const { accountId, key: apiKey } = await server.createAccountWithKey();
    const path = `/api/v1/domains/${await newDomain(a.url, apiKey)}/verify`;
    dns.hold();
    const first = httpRequest(a.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    await dns.asked();
    const second = await httpRequest(b.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    // The hold lapses (as after a process died): the other instance now runs the key too, at once.
    const redis = new Redis(server.env.REDIS_URL);
    try {
      const hold = `${server.env.REDIS_PREFIX}idempotency:${accountId}:${createHash('sha256').update('two-instances').digest('hex')}`;
      expect(await redis.del(hold)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const third = httpRequest(b.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    while (!(await dns.askedBy(2))) await new Promise((resolve) => setTimeout(resolve, 10));
    dns.release();
    const answers = await Promise.all([first, third]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    // One committed with the key; the other found its row, rolled back and answered its replay.
    expect(answers.filter(replayed)).toHaveLength(1);
    expect(answers[0].body).toEqual(answers[1].body);
    const again = await httpRequest(b.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    expect(replayed(again)).toBe(true);
    expect(again.body).toEqual(answers[0].body);
    await Promise.all([a.stop(), b.stop()]);
  });

  it.runIf(!scaleOut)('SQLite: two instances that ran the same key at once commit it once; the other answers its replay', async () => {
    const [a, b] = await Promise.all([spawnServer(server.env, { DNS_SERVERS: dns.address }), spawnServer(server.env, { DNS_SERVERS: dns.address })]);
    const { key: apiKey } = await server.createAccountWithKey();
    const path = `/api/v1/domains/${await newDomain(a.url, apiKey)}/verify`;
    dns.hold();
    // Each process holds the key in its own memory: both run, and the key's row decides.
    const first = httpRequest(a.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    const second = httpRequest(b.url, 'POST', path, { key: apiKey, headers: keyed('two-instances') });
    await dns.asked();
    while (!(await dns.askedBy(2))) await new Promise((resolve) => setTimeout(resolve, 10));
    dns.release();
    const answers = await Promise.all([first, second]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers.filter(replayed)).toHaveLength(1);
    expect(answers[0].body).toEqual(answers[1].body);
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe('Idempotency-Key across a crash (D25.6)', () => {
  it('a process killed between the commit and the answer: the retry replays the answer and the contact exists once', async () => {
    const crashKey = 'crash-between-commit-and-answer';
    const doomed = await spawnServer(server.env, { TEST_ONLY_SIGKILL_AFTER_COMMIT_OF_IDEMPOTENCY_KEY: crashKey });
    const { accountId, key: apiKey } = await server.createAccountWithKey();
    const body = { email: 'crash@example.com', first_name: 'Crash' };
    const lost = await httpRequest(doomed.url, 'POST', '/api/v1/contacts', { key: apiKey, body, headers: keyed(crashKey) }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(lost).toBeInstanceOf(NoResponseError);
    expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const restarted = await spawnServer(server.env);
    const retry = await httpRequest(restarted.url, 'POST', '/api/v1/contacts', { key: apiKey, body, headers: keyed(crashKey) });
    expect(retry.status).toBe(200);
    expect(replayed(retry)).toBe(true);
    expect(retry.body.data).toMatchObject({ email: 'crash@example.com', first_name: 'Crash' });
    const rows = await server.db.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('email', '=', 'crash@example.com').execute();
    expect(rows.map((r) => r.id)).toEqual([retry.body.data.id]);
    await restarted.stop();
  });
});
