/**
 * The built dashboard is served at `/` by the API process (issue 6): its pages, its assets and a
 * Content-Security-Policy without inline scripts, never shadowing the API's own paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('the dashboard at /', () => {
  it('serves the app for its pages (client routes included) with a CSP that allows no inline script', async () => {
    for (const path of ['/', '/signin', '/keys', '/campaigns/12', '/contacts/someone%40example.com', '/automations/new', '/inbox']) {
      const res = await server.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
      const csp = res.headers.get('content-security-policy')!;
      const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
      expect(directives).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'object-src': "'none'",
        'base-uri': "'none'",
        'frame-ancestors': "'none'",
        'frame-src': "'self'",
      });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves its hashed assets with a long cache life', async () => {
    const html = (await server.request('GET', '/')).text;
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const res = await server.request('GET', script);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/immutable/);
    expect((await server.request('GET', '/assets/nope.js')).status).toBe(404);
  });

  it('never shadows the API: unknown paths still need a key first (D7, D8)', async () => {
    for (const path of ['/api/v1/nothing', '/v1/nothing', '/nothing', '/keys-not-a-page']) {
      const res = await server.request('GET', path);
      expect(res.status, path).toBe(401);
    }
    expect((await server.request('GET', '/health')).status).toBe(200);
    expect((await server.request('POST', '/keys')).status).toBe(401);
  });
});

describe('D17.10: any page a browser asks for is the dashboard, never a JSON 401', () => {
  const asBrowser = { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } };

  it('/login, /settings, the overview, the webhooks page and an unknown page serve the app (with its CSP) to a browser', async () => {
    for (const path of ['/login', '/settings', '/settings/webhooks', '/overview', '/settings/profile', '/old-bookmark?x=1']) {
      const res = await server.request('GET', path, asBrowser);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('the same paths asked for as JSON, or with no Accept, keep D7: 401 without a key, 404 with one', async () => {
    const { key } = await server.createAccountWithKey(['*']);
    for (const path of ['/login', '/settings', '/settings/webhooks', '/overview', '/old-bookmark']) {
      const json = await server.request('GET', path, { headers: { accept: 'application/json' } });
      expect(json.status, path).toBe(401);
      expect(json.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(json.body.error.code).toBe('UNAUTHORIZED');
      expect((await server.request('GET', path)).status).toBe(401);
      const keyed = await server.request('GET', path, { key, headers: { accept: 'application/json' } });
      expect(keyed.status).toBe(404);
      expect(keyed.body.error.code).toBe('NOT_FOUND');
    }
  });

  it("the service's own paths stay its own even when a browser asks for HTML", async () => {
    for (const path of ['/api/v1/nothing', '/v1/nothing', '/webhooks/nothing', '/docs-nothing/x']) {
      const res = await server.request('GET', path, asBrowser);
      expect(res.headers.get('content-type'), path).toMatch(path.startsWith('/docs-') ? /^text\/html/ : /^application\/json/);
    }
    expect((await server.request('GET', '/api/v1/contacts', asBrowser)).status).toBe(401);
    expect((await server.request('GET', '/assets/nope.js', asBrowser)).status).toBe(404);
    expect((await server.request('POST', '/login', asBrowser)).status).toBe(401);
  });
});
