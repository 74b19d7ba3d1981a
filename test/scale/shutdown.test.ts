import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, NoResponseError, spawnServer } from './helpers.ts';

/**
 * Graceful shutdown of a real `sendwell serve` process: on SIGTERM it stops accepting, finishes
 * the requests in flight, flushes the batched usage counters (D9: never lost on clean stop) and
 * closes its pools, then exits 0. Runs on SQLite and on PostgreSQL + Redis.
 *
 * What a client may see while the process goes away: a response (200 for a write that was
 * accepted and committed, or a 503 (D7 form) + `Connection: close` for a request that arrived
 * after closing began: refused, nothing written), or ECONNREFUSED once the port is closed.
 * Never a reset connection or a hang-up, which would leave the client unable to tell whether
 * its write happened.
 */
const LOOPS = 8;
const SUCCESSES_BEFORE_SIGNAL = 60;

describe('graceful shutdown on SIGTERM', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await killLeftovers();
    // Last: on PostgreSQL it owns (and drops) the schema the process used.
    await server?.close();
  });

  it('under a steady stream of writes: no accepted write is lost, no connection is reset, usage is flushed, exit code 0', async () => {
    const { accountId, keyId, key } = await server.createAccountWithKey();
    // Setup goes through the harness server on a key of its own, so the counted key sees only the load.
    const setupKey = (await server.createKey(accountId, ['*'])).key;
    const list = await server.request('POST', '/api/v1/lists', { key: setupKey, body: { name: 'shutdown under load' } });
    expect(list.status).toBe(200);
    const listId: number = list.body.data.id;

    const proc = await spawnServer(server.env);
    // A keep-alive client, as a real integration would use: connections are reused between requests.
    const agent = new http.Agent({ keepAlive: true });

    const accepted: string[] = [];
    const refusedWhileClosing: { status: number; connection: string | undefined; code: string | undefined }[] = [];
    const otherResponses: { status: number; body: unknown }[] = [];
    const noResponse: { code: string; message: string; sentBeforeSignal: boolean }[] = [];
    let signalSent = false;
    let answeredAfterSignal = 0;
    let onEnoughAccepted: () => void;
    const enoughAccepted = new Promise<void>((resolve) => (onEnoughAccepted = resolve));

    async function writeLoop(loop: number) {
      for (let i = 0; ; i++) {
        const email = `shutdown-${loop}-${i}@example.com`;
        const sentBeforeSignal = signalSent;
        try {
          const res = await httpRequest(proc.url, 'POST', '/api/v1/contacts', { key, body: { email, list_id: listId }, agent });
          if (signalSent) answeredAfterSignal++;
          if (res.status === 200) accepted.push(email);
          else if (res.status === 503) refusedWhileClosing.push({ status: res.status, connection: res.headers.connection, code: (res.body as any)?.error?.code });
          else otherResponses.push({ status: res.status, body: res.body });
          if (accepted.length >= SUCCESSES_BEFORE_SIGNAL) onEnoughAccepted();
        } catch (err) {
          if (!(err instanceof NoResponseError)) throw err;
          // A refused connection is the expected end: the port is closed. Anything else is a failure.
          if (err.code !== 'ECONNREFUSED') noResponse.push({ code: err.code, message: err.message, sentBeforeSignal });
          return err.code;
        }
      }
    }

    const loops = Array.from({ length: LOOPS }, (_, n) => writeLoop(n));
    await Promise.race([enoughAccepted, Promise.all(loops)]);
    // The loops only end early if the process fails: show why.
    expect(accepted.length, proc.output().slice(-2000)).toBeGreaterThanOrEqual(SUCCESSES_BEFORE_SIGNAL);
    signalSent = true;
    const exit = await proc.stop();
    const endings = await Promise.all(loops);
    agent.destroy();

    // Every loop ended on a closed port, never on a reset or hang-up.
    expect(noResponse).toEqual([]);
    expect(endings).toEqual(Array(LOOPS).fill('ECONNREFUSED'));
    expect(otherResponses).toEqual([]);
    // A request that arrived while closing was refused cleanly: 503 with Connection: close.
    // D7's error form, not Fastify's own body.
    for (const r of refusedWhileClosing) expect(r).toEqual({ status: 503, connection: 'close', code: 'SERVICE_UNAVAILABLE' });
    // The signal came under load: requests in flight at that moment were still answered.
    expect(answeredAfterSignal).toBeGreaterThan(0);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(proc.output()).toContain('"msg":"shutting down"');

    // No accepted write is lost: exactly the contacts answered 200 exist, each in the list (one transaction each, D7).
    const contacts = await server.db.selectFrom('contacts').select(['id', 'email']).where('account_id', '=', accountId).execute();
    expect(contacts.map((c) => c.email).sort()).toEqual([...accepted].sort());
    const members = await server.db.selectFrom('list_members').select('contact_id').where('list_id', '=', listId).execute();
    expect(members.map((m) => m.contact_id).sort((x, y) => x - y)).toEqual(contacts.map((c) => c.id).sort((x, y) => x - y));
    const listRow = await server.db.selectFrom('lists').select('contact_count').where('id', '=', listId).executeTakeFirstOrThrow();
    expect(Number(listRow.contact_count)).toBe(accepted.length);

    // D9: the counters still in memory at SIGTERM were flushed: one per request the API answered
    // (the 503s of the closing phase never reached authentication).
    const usage = await server.db.selectFrom('api_keys').select('request_count').where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(Number(usage.request_count)).toBe(accepted.length);
    const endpoints = await server.db.selectFrom('api_key_endpoint_usage').select(['method', 'route', 'count']).where('key_id', '=', keyId).execute();
    expect(endpoints.map((e) => ({ ...e, count: Number(e.count) }))).toEqual([{ method: 'POST', route: '/api/v1/contacts', count: accepted.length }]);

    console.info(`shutdown: ${accepted.length} accepted, ${refusedWhileClosing.length} × 503 while closing, ${answeredAfterSignal} answered after SIGTERM`);
  });

  it('writes the access log before exiting: one line per request with the route pattern and key id, never the e-mail or the key', async () => {
    const { keyId, key } = await server.createAccountWithKey();
    const email = 'access-log-reader@example.com';
    const proc = await spawnServer(server.env);
    expect((await httpRequest(proc.url, 'POST', '/api/v1/contacts', { key, body: { email } })).status).toBe(200);
    expect((await httpRequest(proc.url, 'GET', `/api/v1/contacts/${encodeURIComponent(email)}`, { key })).status).toBe(200);
    expect((await httpRequest(proc.url, 'GET', '/api/v1/contacts/nobody%40example.com', { key })).status).toBe(404);
    expect((await httpRequest(proc.url, 'GET', '/api/v1/contacts/x%40example.com', { key: 'sw_not-a-real-key' })).status).toBe(401);
    // Lines are written in the background; SIGTERM flushes them before the process exits.
    expect(await proc.stop()).toEqual({ code: 0, signal: null });

    const lines = proc
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    expect(lines.map(({ method, route, status, key_id }) => ({ method, route, status, key_id }))).toEqual([
      { method: 'POST', route: '/api/v1/contacts', status: 200, key_id: keyId },
      { method: 'GET', route: '/api/v1/contacts/:email', status: 200, key_id: keyId },
      { method: 'GET', route: '/api/v1/contacts/:email', status: 404, key_id: keyId },
      { method: 'GET', route: '/api/v1/contacts/:email', status: 401, key_id: undefined },
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ level: 30, reqId: expect.any(String), ms: expect.any(Number) });
    }
    expect(new Set(lines.map((l) => l.reqId)).size).toBe(lines.length);
    const output = proc.output();
    expect(output).not.toContain(key);
    expect(output).not.toContain('sw_not-a-real-key');
    expect(output).not.toContain(email);
    expect(output).not.toContain('access-log-reader%40example.com');
  });

  it('a lone access-log line reaches stdout while the server runs: lines are written in blocks, but a quiet server does not hold one back', async () => {
    const { key } = await server.createAccountWithKey();
    const proc = await spawnServer(server.env);
    try {
      const logged = () => proc.output().split('\n').filter((l) => l.includes('"msg":"request"')).length;
      const before = logged();
      expect((await httpRequest(proc.url, 'GET', '/api/v1/contacts/quiet%40example.com', { key })).status).toBe(404);
      // Far short of a 4 KiB block: the periodic flush (a quarter of a second) writes it.
      await expect.poll(logged, { timeout: 5000, interval: 50 }).toBe(before + 1);
    } finally {
      await proc.stop();
    }
  });
});
