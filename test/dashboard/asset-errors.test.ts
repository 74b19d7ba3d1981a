/**
 * Issue 14 L6: a client's mistake on `/assets/` (a range past the end, a directory, a bad path)
 * answered 500 and logged a stack. It keeps its 4xx status, in D7's form, and logs no error.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let script: string;
beforeAll(async () => {
  server = await startTestServer();
  script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec((await server.request('GET', '/')).text)![1];
});
afterAll(() => server?.close());

describe('L6: /assets/ client errors answer 4xx, never 500 with a stack in the log', () => {
  it.each([
    ['a range past the end of the file', () => script, { range: 'bytes=99999999-' }, 416, 'RANGE_NOT_SATISFIABLE'],
    ['a range that ends before it starts', () => script, { range: 'bytes=5-2' }, 416, 'RANGE_NOT_SATISFIABLE'],
    ['the assets folder itself', () => '/assets/', {}, 404, 'NOT_FOUND'],
    ['a dotfile', () => '/assets/.env', {}, 404, 'NOT_FOUND'],
    ['a missing file', () => '/assets/nope.js', {}, 404, 'NOT_FOUND'],
    ['a path with NUL', () => '/assets/a%00b.js', {}, 400, 'INVALID_REQUEST'],
    ['a path out of the folder', () => '/assets/..%2f..%2fpackage.json', {}, 404, 'NOT_FOUND'],
  ])('%s', async (_name, path, headers, status, code) => {
    // Every 500 is logged at error level through the app's logger (src/http/errors.ts); a 4xx is not.
    const logged = vi.spyOn(server.core.logger, 'error');
    try {
      const res = await server.request('GET', path(), { headers });
      expect(res.status, res.text).toBe(status);
      expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
      if (status === 416) expect(res.headers.get('content-range')).toMatch(/^bytes \*\/\d+$/);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  it('a satisfiable range still answers 206', async () => {
    const res = await server.request('GET', script, { headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    expect(res.text).toHaveLength(10);
  });
});
