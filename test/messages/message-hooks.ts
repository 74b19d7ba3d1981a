/**
 * A test server that sends transactional messages to a real SMTP sink and delivers their
 * message.* webhook events to a real HTTP listener (D25.5), with the bounce receiver listening
 * (D23) and the client address of pixel and link requests taken from X-Forwarded-For.
 */
import { expect } from 'vitest';
import { TokenSigner } from '../../src/domain/shared/tokens.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SinkResponder, type SmtpSink } from '../sending/smtp-sink.ts';
import { eventually, startReceiver, verifySignature, type Receiver } from '../webhooks-out/receiver.ts';

export const BOUNCE_DOMAIN = 'bounces.acme.test';
export const MESSAGE_EVENTS = ['message.sent', 'message.failed', 'message.bounced', 'message.suppressed', 'message.opened', 'message.clicked'];
export const D1 = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
/** what startTestServer configures */
export const signer = new TokenSigner('test-secret');
export const TAGS = ['receipt', 'order-42'];
export const METADATA = { order: 'A-42', shop: 'north' };

export async function startMessageHooks(env: Record<string, string>, respond?: SinkResponder) {
  const receiver: Receiver = await startReceiver();
  const sink: SmtpSink = await startSmtpSink({ respond });
  const server: TestServer = await startTestServer({
    SMTP_URL: sink.url,
    ...FAST_SENDING,
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_RETRY_BASE_MS: '20',
    BOUNCE_DOMAIN,
    BOUNCE_SMTP_PORT: '0',
    BOUNCE_SMTP_HOST: '127.0.0.1',
    TRUST_PROXY: '127.0.0.1',
    ...env,
  });
  await server.bounceReceiver!.start();
  server.sender.dispatcher.start();
  server.sender.webhookDelivery.start();
  const t: Tenant = await tenant(server);
  const res = await t.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/messages`, event_types: MESSAGE_EVENTS });
  expect(res.status, res.text).toBe(200);
  const hook = { id: res.body.data.id as number, path: '/messages', secret: res.body.data.secret as string };

  /** The bodies the listener received about message `id`, each signature checked. */
  const received = (id: number): any[] =>
    receiver
      .on(hook.path)
      .map((h) => {
        expect(verifySignature(hook.secret, h.headers['sendwell-signature'], h.body)).toBe(true);
        const body = JSON.parse(h.body);
        expect(h.headers['sendwell-event']).toBe(body.type);
        return body;
      })
      .filter((b) => b.data.message_id === id);

  return {
    receiver,
    sink,
    server,
    t,
    /** POSTs a message with TAGS and METADATA; its id. */
    async send(address: string, extra: Record<string, unknown> = {}): Promise<number> {
      const sent = await t.call('POST', '/api/v1/messages', { to: address, from_email: 'app@acme.test', subject: 'Your receipt', tags: TAGS, metadata: METADATA, ...extra });
      expect(sent.status, sent.text).toBe(200);
      return sent.body.data.id;
    },
    message: async (id: number) => (await t.call('GET', `/api/v1/messages/${id}`)).body.data,
    waitForStatus: (id: number, status: string) =>
      eventually(async () => {
        const m = (await t.call('GET', `/api/v1/messages/${id}`)).body.data;
        return m.status === status ? m : null;
      }, `message ${id} ${status}`),
    received,
    /** Waits for the listener to receive an event of `type` about message `id`. */
    delivered: (id: number, type: string) => eventually(() => received(id).find((b) => b.type === type), `${type} for message ${id}`),
    /** The event types queued for the endpoint about message `id`: queued in the same transaction as the change, so complete once a request answers. */
    async queued(id: number): Promise<string[]> {
      const log = await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?size=100`);
      expect(log.status).toBe(200);
      return log.body.data.deliveries
        .filter((d: any) => d.payload.data.message_id === id)
        .map((d: any) => d.event_type)
        .sort();
    },
    /** D25.5: the envelope, and the four fields every message.* event carries. */
    expectCarries(event: any, id: number, address: string) {
      expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), created_at: D1, account_id: t.accountId });
      expect(event.data).toMatchObject({ message_id: id, to: address, tags: TAGS, metadata: METADATA });
    },
    mailTo: (address: string): Promise<ReceivedMessage> => eventually(() => sink.messages.find((m) => m.envelope.to.includes(address)), `mail to ${address}`),
    row: (id: number) => server.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    suppression: async (address: string) => (await t.call('GET', `/api/v1/suppressions?search=${encodeURIComponent(address)}`)).body.data.suppressions[0],
    async close() {
      await server.close();
      await sink.close();
      await receiver.close();
    },
  };
}

export type MessageHooks = Awaited<ReturnType<typeof startMessageHooks>>;
