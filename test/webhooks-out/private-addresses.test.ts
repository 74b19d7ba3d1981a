/**
 * Without WEBHOOKS_ALLOW_PRIVATE, an endpoint whose host is or resolves to anything but a global
 * unicast address (loopback, private, link-local, metadata, IPv4-compatible IPv6...) is refused when
 * it is saved (D26.8: 400 naming the setting), and a delivery to one is refused when delivering
 * (after DNS resolution): FAILED at once, not retried, and nothing reaches the address. Issue 14
 * L8: the tenant reads only that the destination is not allowed; what the host resolved to and why
 * goes to the server log.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually, startReceiver, type Receiver } from './receiver.ts';

let receiver: Receiver;
let server: TestServer;
let key: string;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_TIMEOUT_MS: '1500' });
  server.sender.webhookDelivery.start();
  ({ key } = await server.createAccountWithKey());
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

const port = () => new URL(receiver.url).port;

/** A public address written as an IP, so saving it needs no DNS answer. */
const PUBLIC_URL = 'https://93.184.215.14/hook';

const PRIVATE_DESTINATIONS: [string, () => string, RegExp][] = [
  ['loopback IPv4 (the running receiver)', () => `${receiver.url}/refused`, /127\.0\.0\.1 is a loopback address/],
  ['a name resolving to loopback', () => `http://localhost:${port()}/refused`, /localhost resolves to .* loopback address|not an IPv6 global unicast/],
  ['loopback IPv6', () => `http://[::1]:${port()}/refused`, /::1 is not an IPv6 global unicast address/],
  ['private 10/8', () => 'http://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
  ['private 192.168/16', () => 'https://192.168.1.20/hook', /192\.168\.1\.20 is a private address/],
  ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
  ['the IPv6 metadata service', () => 'http://[fd00:ec2::254]/', /fd00:ec2::254 is not an IPv6 global unicast address/],
  ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/refused`, /127\.0\.0\.1 is a loopback address/],
  ['IPv4-compatible loopback (::127.0.0.1)', () => `http://[::127.0.0.1]:${port()}/refused`, /::7f00:1 is not an IPv6 global unicast address/],
  ['IPv4-compatible loopback in hex ([::7f00:1])', () => `http://[::7f00:1]:${port()}/refused`, /::7f00:1 is not an IPv6 global unicast address/],
  ['NAT64 of a private address', () => 'http://[64:ff9b::a00:1]/hook', /64:ff9b::a00:1 is not an IPv6 global unicast address/],
  ['6to4 of a private address', () => 'http://[2002:a00:1::1]/hook', /is a 6to4 address/],
  ['the unspecified address', () => `http://0.0.0.0:${port()}/refused`, /0\.0\.0\.0 is an unspecified address/],
];

describe('D26.8: an endpoint no delivery could reach is refused when saved, naming the setting that allows it', () => {
  it.each(PRIVATE_DESTINATIONS)('%s: POST and PUT are 400, naming WEBHOOKS_ALLOW_PRIVATE and nothing a name resolved to', async (_name, url) => {
    const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
    const refused = await call('POST', '/api/v1/webhooks', { url: url(), event_types: ['email.sent'] });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_REQUEST');
    expect(refused.body.error.message).toMatch(/^url .*WEBHOOKS_ALLOW_PRIVATE=true/);
    expect(refused.body.error.message).not.toMatch(/127\.0\.0\.1|::|is an? \w+ address|global unicast/);

    const saved = await call('POST', '/api/v1/webhooks', { url: PUBLIC_URL, event_types: ['email.sent'] });
    expect(saved.status, saved.text).toBe(200);
    const moved = await call('PUT', `/api/v1/webhooks/${saved.body.data.id}`, { url: url() });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.body.error.message).toMatch(/WEBHOOKS_ALLOW_PRIVATE=true/);
    expect((await call('GET', `/api/v1/webhooks/${saved.body.data.id}`)).body.data.url).toBe(PUBLIC_URL);
  });
});

describe('L8: private destinations are refused by default, the tenant told only "destination not allowed"', () => {
  it.each(PRIVATE_DESTINATIONS)('%s: FAILED after one attempt, "destination not allowed" to the tenant, the detail in the server log', async (_name, url, detail) => {
    const warn = vi.spyOn(server.core.logger, 'warn');
    try {
      const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
      // Saved while its name answered with a public address (or before D26.8); it names a private one now.
      const created = await call('POST', '/api/v1/webhooks', { url: PUBLIC_URL, event_types: ['email.sent'] });
      expect(created.status, created.text).toBe(200);
      const id = created.body.data.id;
      await server.db.updateTable('webhook_endpoints').set({ url: url() }).where('id', '=', id).execute();
      const deliveryId = (await call('POST', `/api/v1/webhooks/${id}/test`)).body.data.id;
      const failed = await eventually(
        async () => (await call('GET', `/api/v1/webhooks/${id}/deliveries`)).body.data.deliveries.find((d: any) => d.id === deliveryId && d.status !== 'PENDING'),
        'the delivery to settle',
      );
      expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: null, next_attempt_at: null, delivered_at: null });
      expect(failed.last_error).toBe('destination not allowed');
      expect(failed.attempt_log).toEqual([expect.objectContaining({ status_code: null, error: 'destination not allowed', response_excerpt: null })]);
      expect((await call('GET', `/api/v1/webhooks/${id}`)).text).not.toMatch(/loopback|private address|resolves|global unicast/);
      const logged = warn.mock.calls.find(([fields]) => (fields as any)?.delivery === deliveryId && (fields as any)?.detail);
      expect(logged?.[1]).toBe('webhook destination refused');
      expect((logged?.[0] as any).detail).toMatch(detail);
      expect(receiver.on('/refused')).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
