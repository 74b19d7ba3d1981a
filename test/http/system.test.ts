import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('health and readiness', () => {
  it('GET /health answers 200 without a key', async () => {
    const res = await server.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /ready answers 200 while the database answers, 503 once it is closed', async () => {
    expect((await server.request('GET', '/ready')).status).toBe(200);
    const other = await startTestServer();
    await other.core.handle.close();
    const res = await other.request('GET', '/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable' });
    await other.close();
  });
});
