/**
 * D17.9: `GET /metrics` serves Prometheus text with prom-client: request durations by route
 * pattern, messages sent, the backlogs and process metrics; behind METRICS_TOKEN, or loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, sendable, tenant } from '../sending/send-helpers.ts';

/** The value of one sample line, e.g. `sendwell_messages_sent_total 3`. */
function sample(text: string, name: string, labels = ''): number | null {
  const line = text.split('\n').find((l) => l.startsWith(name + (labels ? `{${labels}}` : ' ')) || (labels === '' && l.startsWith(name + ' ')));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

describe('D17.9: /metrics without METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...FAST_SENDING });
    server.sender.dispatcher.start();
  });
  afterAll(() => server.close());

  it('answers a loopback client with Prometheus text: the HTTP histogram by route pattern, process metrics, backlogs', async () => {
    const { key } = await server.createAccountWithKey(['*']);
    await server.request('GET', '/api/v1/contacts/someone%40example.com', { key });
    await server.request('GET', '/api/v1/contacts/other%40example.com', { key });
    await server.request('GET', '/no/such/path', { key });
    const res = await server.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    // The pattern, never the raw address: two contacts are one series.
    expect(sample(res.text, 'http_request_duration_seconds_count', 'route="/api/v1/contacts/:email",method="GET",status="404"')).toBe(2);
    expect(res.text).not.toContain('someone%40example.com');
    expect(sample(res.text, 'http_request_duration_seconds_count', 'route="unmatched",method="GET",status="404"')).toBe(1);
    expect(res.text).toContain('# TYPE sendwell_messages_sent_total counter');
    for (const gauge of ['sendwell_recipients_pending', 'sendwell_automation_runs_active', 'sendwell_webhook_deliveries_pending']) expect(sample(res.text, gauge), gauge).toBe(0);
    expect(res.text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(res.text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts the messages a campaign sends', async () => {
    const before = sample((await server.request('GET', '/metrics')).text, 'sendwell_messages_sent_total') ?? 0;
    const t = await tenant(server);
    const list = await t.list('Metrics');
    for (const email of ['m1@example.com', 'm2@example.com', 'm3@example.com']) await t.contact({ email, list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const after = sample((await server.request('GET', '/metrics')).text, 'sendwell_messages_sent_total');
    expect(after).toBe(before + 3);
  });

  it('refuses a client that is not this machine with 403, and one that came through an untrusted proxy', async () => {
    const remote = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
    expect(remote.statusCode).toBe(403);
    expect(JSON.parse(remote.body).error.code).toBe('FORBIDDEN');
    const viaProxy = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(viaProxy.statusCode).toBe(403);
    const local6 = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' });
    expect(local6.statusCode).toBe(200);
  });
});

describe('D17.9: /metrics with METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: 'scrape-secret-123' });
  });
  afterAll(() => server.close());

  it('needs the bearer token: 401 without it or with a wrong one, even from loopback', async () => {
    expect((await server.request('GET', '/metrics')).status).toBe(401);
    const wrong = await server.request('GET', '/metrics', { headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers the token from anywhere', async () => {
    const remote = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { authorization: 'Bearer scrape-secret-123' } });
    expect(remote.statusCode).toBe(200);
    expect(remote.body).toContain('http_request_duration_seconds_bucket');
  });
});

describe('D17.9: /metrics behind a trusted proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => server.close());

  it('judges the client the proxy names', async () => {
    const outside = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(outside.statusCode).toBe(403);
    const inside = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(inside.statusCode).toBe(200);
  });
});
