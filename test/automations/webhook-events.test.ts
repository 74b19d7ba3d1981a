/**
 * The events contact changes and automations emit to outbound webhooks (issue 5 §3), received by
 * a real HTTP receiver with verified signatures: contact.created and contact.updated from every
 * path (reference API, bulk import, events, automation steps), contact.unsubscribed from the
 * API, automation.completed when a run ends, and email.sent for an automation's SEND_EMAIL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { eventually, startReceiver, verifySignature, type Receiver } from '../webhooks-out/receiver.ts';
import { activeAutomation, allEnded, event, waitForRuns } from './helpers.ts';

let receiver: Receiver;
let sink: SmtpSink;
let server: TestServer;
const at = addressMaker('auto-hooks');

beforeAll(async () => {
  receiver = await startReceiver();
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20' });
  server.sender.automationRunner.start();
  server.sender.webhookDelivery.start();
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  await receiver?.close();
});

async function endpoint(t: Tenant, path: string, eventTypes: string[]) {
  const res = await t.call('POST', '/api/v1/webhooks', { url: receiver.url + path, event_types: eventTypes });
  expect(res.status, res.text).toBe(200);
  return { path, secret: res.body.data.secret as string };
}

/** What the endpoint received, signatures checked, once it holds at least `n` bodies. */
async function bodies(ep: { path: string; secret: string }, n: number): Promise<any[]> {
  await eventually(() => (receiver.on(ep.path).length >= n ? true : null), `${n} deliveries to ${ep.path}`);
  return receiver.on(ep.path).map((h) => {
    expect(verifySignature(ep.secret, h.headers['sendwell-signature'], h.body)).toBe(true);
    return JSON.parse(h.body);
  });
}

const summary = (all: any[]) => all.map((b) => `${b.type} ${b.data.contact?.email ?? b.data.email}`).sort();

describe('contact.* and automation.* webhook events', () => {
  it('contact.created and contact.updated come from the API, bulk import, events and automation steps; contact.unsubscribed from the API', async () => {
    const t = await tenant(server);
    const ep = await endpoint(t, '/contacts', ['contact.created', 'contact.updated', 'contact.unsubscribed']);
    await t.contact({ email: at('api') });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('api'))}`, { first_name: 'Api' });
    await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { contacts: [{ email: at('bulk') }, { email: 'not-an-email' }] } });
    await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { skipDuplicates: false, contacts: [{ email: at('bulk'), firstName: 'B' }] } });
    await event(server, t.key, { email: at('event'), event: 'hello' });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('api'))}`, { status: 'UNSUBSCRIBED' });
    const received = await bodies(ep, 7);
    expect(summary(received)).toEqual(
      [
        `contact.created ${at('api')}`,
        `contact.updated ${at('api')}`,
        `contact.updated ${at('api')}`,
        `contact.unsubscribed ${at('api')}`,
        `contact.created ${at('bulk')}`,
        `contact.updated ${at('bulk')}`,
        `contact.created ${at('event')}`,
      ].sort(),
    );
    const created = received.find((b) => b.type === 'contact.created' && b.data.contact.email === at('api'));
    expect(created.data.contact).toMatchObject({ email: at('api'), status: 'SUBSCRIBED', tags: [] });
  });

  it('automation.completed when a run ends (COMPLETED or EXITED), contact.updated from its steps, email.sent for its mail', async () => {
    const t = await tenant(server);
    const ep = await endpoint(t, '/automations', ['automation.completed', 'contact.updated', 'email.sent']);
    await t.contact({ email: at('flow') });
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'go' },
      allow_reentry: true,
      steps: [
        { type: 'CONDITION', field: 'event.ok', op: 'equals', value: true },
        { type: 'ADD_TAG', tag: 'went' },
        { type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', from_email: 'flow@acme.test' },
      ],
    });
    await event(server, t.key, { email: at('flow'), event: 'go', data: { ok: true } });
    await event(server, t.key, { email: at('flow'), event: 'go', data: { ok: false } });
    const runs = await waitForRuns(t, id, allEnded(2));
    const received = await bodies(ep, 4);
    expect(received.map((b) => b.type).sort()).toEqual(['automation.completed', 'automation.completed', 'contact.updated', 'email.sent']);
    const completed = received.filter((b) => b.type === 'automation.completed').map((b) => b.data);
    expect(completed.map((d) => d.status).sort()).toEqual(['COMPLETED', 'EXITED']);
    for (const d of completed) {
      expect(d).toMatchObject({ automation_id: id, contact: { email: at('flow') } });
      expect(runs.map((r) => r.id)).toContain(d.run_id);
    }
    const sent = received.find((b) => b.type === 'email.sent');
    expect(sent.data).toMatchObject({ email: at('flow'), automation_id: id, message_id: sink.to(at('flow'))[0].messageId });
  });
});
