/**
 * Issue 14 L7 (event half): event `data` nested 150,000 deep fits in a 1 MiB body and overflowed
 * the stack when stored (a 500). `data` may nest 32 levels (itself the first); deeper is 400
 * INVALID_REQUEST with the reason. The body parser itself reads any depth without recursion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA_MAX_DEPTH } from '../../src/domain/automations/automation-definition.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
});
afterAll(() => server?.close());

/** `{"a":{"a":...1...}}` with `levels` objects, written as text (building it as a value would recurse too). */
const nestedObjects = (levels: number) => '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);
/** an object holding arrays: `{"a":[[...]]}` with `levels` containers in all */
const nestedArrays = (levels: number) => '{"a":' + '['.repeat(levels - 1) + ']'.repeat(levels - 1) + '}';
const event = (dataJson: string) => server.request('POST', '/v1/events', { key, rawBody: `{"email":"deep@example.com","event":"deep","data":${dataJson}}` });

const expectDepthRefused = (res: Awaited<ReturnType<typeof event>>) => {
  expect(res.status, res.text.slice(0, 300)).toBe(400);
  expect(res.body).toEqual({ success: false, error: 'Bad Request', code: 'INVALID_REQUEST', message: `data must nest objects and arrays at most ${EVENT_DATA_MAX_DEPTH} levels deep` });
};

describe('L7: event data nested too deep is 400 with the reason, never a stack overflow', () => {
  it('150,000 levels of objects or of arrays: 400, and the server goes on answering', async () => {
    expect(nestedArrays(150_000).length).toBeLessThan(1024 * 1024);
    expectDepthRefused(await event(nestedArrays(150_000)));
    expect(nestedObjects(150_000).length).toBeLessThan(1024 * 1024 - 100);
    expectDepthRefused(await event(nestedObjects(150_000)));
    expect((await server.request('GET', '/health')).status).toBe(200);
  });

  it('32 levels are stored; 33 are refused, whether objects or arrays make them', async () => {
    expect(EVENT_DATA_MAX_DEPTH).toBe(32);
    for (const nested of [nestedObjects, nestedArrays]) {
      const ok = await event(nested(32));
      expect(ok.status, ok.text).toBe(202);
      expectDepthRefused(await event(nested(33)));
    }
    const stored = await server.db.selectFrom('events').select('data').where('name', '=', 'deep').execute();
    expect(stored.map((e) => e.data)).toEqual([nestedObjects(32), nestedArrays(32)]);
  });

  it('the body parser reads a deep body without recursion: another route answers its own 400', async () => {
    const res = await server.request('POST', '/api/v1/contacts', { key, rawBody: `{"email":"deep@example.org","custom_fields":{"x":${nestedArrays(150_000)}}}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });
});
