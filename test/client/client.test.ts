/**
 * D17.8: the typed client in packages/client (openapi-typescript types from the served document,
 * used through openapi-fetch) drives the integration examples against a real server. That it
 * type-checks and that `client:check` catches a stale client is scripts/client.test.ts, which
 * needs no server and so runs once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSendwellClient } from '../../packages/client/src/index.ts';
import { integrationExamples } from '../../packages/client/examples/integration.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { FAST_SENDING, sendable, tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('the typed client (D17.8)', () => {
  it('drives the integration examples against a real server: list, contact create and read, bulk import, event, campaign stats', async () => {
    // A campaign sent to one contact, for the stats example (D14: stats exist once it is SENT).
    const t = await tenant(server);
    server.sender.dispatcher.start();
    const launchList = await t.list('Launch list');
    await t.contact({ email: 'first@example.com', list_id: launchList });
    const campaignId = (await t.campaign(sendable([launchList]))).id;
    await t.send(campaignId);
    await t.waitForStatus(campaignId, 'SENT');
    const client = createSendwellClient({ baseUrl: server.url, apiKey: t.key });

    const { list, contact, bulk, event, stats } = await integrationExamples(client, campaignId);
    expect(list).toMatchObject({ name: 'Newsletter', description: 'Monthly news', contact_count: 0 });
    expect(contact).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', tags: ['vip'], custom_fields: { plan: 'pro' }, list_ids: [list.id] });
    expect(bulk).toMatchObject({ success: true, created: 2, failed: 1, errors: [{ index: 2, email: 'not an address' }] });
    expect(event).toEqual({ success: true, id: expect.any(Number) });
    expect(stats).toMatchObject({ success: true, sent: 1, delivered: 1, openRate: 0 });

    // The rows are really there: read back through the client.
    const members = await client.GET('/api/v1/lists/{id}/contacts', { params: { path: { id: list.id } } });
    expect(members.data!.data.contacts.map((c) => c.email).sort()).toEqual(['ada@example.com', 'alan@example.com', 'grace@example.com']);
    // Errors arrive typed as D7's body.
    const missing = await client.GET('/api/v1/contacts/{email}', { params: { path: { email: 'nobody@example.com' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('CONTACT_NOT_FOUND');
  });
});
