/**
 * Issue 28 C1: GET /campaigns/{id}/checks read tenant HTML with backtracking patterns (`[^>]*`
 * repeated) on the HTTP thread: a draft of unclosed `<img ` and `<a x` took seconds to minutes,
 * and every account's requests, /health included, waited for it. The checks now read the HTML
 * once with a tokenizer, on the compile thread, in the account's turn. Asserted by order: /health
 * and another account's request, sent after the checks, complete before them, and the checks
 * answer in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  a = await tenant(server);
  b = await tenant(server);
});
afterAll(async () => {
  await server?.close();
});

/** Within the 256 KB limit: one image, then unclosed `<img ` and `<a x ` runs, each `<` of which the old patterns scanned to the end from. */
const hostile = '<img src="https://x.test/a.png">' + '<img '.repeat(20_000) + '<a x '.repeat(30_000);

describe('C1: content checks of hostile HTML', () => {
  it('C1: another account is answered while the checks of a 250 KB draft built against backtracking run, and the checks answer with their warnings', async () => {
    const draft = await a.call('POST', '/api/v1/campaigns', { name: 'c1', subject: 's', html: hostile, text: 'own' });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(Buffer.byteLength(hostile)).toBeGreaterThan(240 * 1024);

    // The compile thread is kept busy by two large MJML drafts of A's own (a second or more), so the
    // checks are still waiting their turn there when the other requests come: on the old code they
    // ran on the HTTP thread, and everything sent after them waited until they were done.
    const section = `<mj-section><mj-column><mj-text>${'lorem ipsum dolor sit amet '.repeat(10)}</mj-text></mj-column></mj-section>`;
    const busy = [1, 2].map((n) => a.call('POST', '/api/v1/campaigns', { name: `large ${n}`, subject: 's', format: 'mjml', html: `<mjml><mj-body>${section.repeat(500)}</mj-body></mjml>` }));
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await pause(300);
    const order: string[] = [];
    const checks = a.call('GET', `/api/v1/campaigns/${draft.body.data.id}/checks`).then((res) => (order.push('checks'), res));
    await pause(50);
    const health = server.request('GET', '/health').then((res) => (order.push('health'), res));
    const others = b.call('GET', '/api/v1/campaigns').then((res) => (order.push('other account'), res));
    const [checked, healthy, listed, ...large] = await Promise.all([checks, health, others, ...busy]);

    expect(order.indexOf('health')).toBeLessThan(order.indexOf('checks'));
    expect(order.indexOf('other account')).toBeLessThan(order.indexOf('checks'));
    expect(healthy.status).toBe(200);
    expect(listed.status).toBe(200);
    expect(checked.status, JSON.stringify(checked.body)).toBe(200);
    for (const res of large) expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(checked.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(['IMAGE_ONLY', 'MISSING_ALT', 'HTML_OVER_102KB', 'NO_UNSUBSCRIBE_LINK']);
    expect(checked.body.data.warnings[1].message).toMatch(/^1 image has no alt text/);
  });
});
