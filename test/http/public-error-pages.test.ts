/**
 * D26.5: a damaged or unknown public link, opened in a browser (Accept names text/html), answers
 * 404 with an HTML page, never JSON; a program asking for JSON still gets D7's body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let server: TestServer;
let archiveSlug: string;

beforeAll(async () => {
  server = await startTestServer();
  const { accountId } = await server.createAccountWithKey();
  archiveSlug = (await server.db.selectFrom('accounts').select('slug').where('id', '=', accountId).executeTakeFirstOrThrow()).slug;
});
afterAll(() => server.close());

const DAMAGED = [
  ['an unsubscribe link', 'GET', '/u/eyJkYW1hZ2VkIjp0cnVlfQ.bad'],
  ['an unsubscribe form post', 'POST', '/u/eyJkYW1hZ2VkIjp0cnVlfQ.bad'],
  ['a preference centre link', 'GET', '/p/not-a-token'],
  ['a web view link', 'GET', '/w/not-a-token'],
  ['a confirmation link', 'GET', '/c/not-a-token'],
  ['a tracked link', 'GET', '/t/c/not-a-token'],
  ['an unknown archive', 'GET', '/archive/no-such-account-anywhere'],
  ['a bad id in an archive', 'GET', () => `/archive/${archiveSlug}/not-an-id`],
  ['an unknown message in an archive', 'GET', () => `/archive/${archiveSlug}/999999`],
] as const;

describe('D26.5: damaged public links are pages for a browser', () => {
  it.each(DAMAGED)('%s: 404 with an HTML page, not JSON', async (_name, method, path) => {
    const url = server.url + (typeof path === 'function' ? path() : path);
    const res = await fetch(url, { method, headers: { accept: BROWSER }, redirect: 'manual' });
    const body = await res.text();
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(body).toMatch(/^<!doctype html>/);
    expect(body).toContain('This link is not valid');
    expect(body).not.toMatch(/"success"|"code"/);
  });

  it.each(DAMAGED)('%s: a JSON client still gets D7\'s body', async (_name, method, path) => {
    const url = server.url + (typeof path === 'function' ? path() : path);
    const res = await fetch(url, { method, headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(res.status === 404 || res.status === 400).toBe(true);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()).success).toBe(false);
  });
});
