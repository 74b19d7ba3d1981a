import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, spawnServer } from './helpers.ts';

/**
 * The access log of a real `sendwell serve` process at LOG_LEVEL=info: one JSON line per request
 * with the request id, the route pattern and the key id, never the raw URL (it holds e-mails) and
 * never the key.
 */
describe('access log', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await killLeftovers();
    await server?.close();
  });

  it('writes one line per request with the route pattern and key id, without the e-mail or the key', async () => {
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
});
