import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageIdFor } from '../../src/sending/message.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, linksIn, PUBLIC_URL, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// Issue item 5: without SMTP_URL, mail lands in a dev inbox kept in the database, read with
// GET /api/v1/dev/inbox (paged, `*` permission, D6 array name `messages`), per account (D3).

let server: TestServer;
let t: Tenant;
let campaignId: number;
const at = addressMaker('inbox');
const audience = [at('a'), at('b'), at('c')];
const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING }); // no SMTP_URL
  server.sender.dispatcher.start();
  t = await tenant(server);
  const list = await t.list('Inbox');
  for (const [i, email] of audience.entries()) await t.contact({ email, first_name: `N${i}`, list_id: list });
  campaignId = (await t.campaign(sendable([list], { reply_to: 'help@acme.test' }))).id;
  await t.send(campaignId);
  expect((await t.waitForStatus(campaignId, ['SENT', 'FAILED'])).status).toBe('SENT');
});
afterAll(() => server?.close());

describe('dev inbox', () => {
  it('holds one message per recipient, with headers and both bodies', async () => {
    const res = await t.call('GET', '/api/v1/dev/inbox');
    expect(res.status).toBe(200);
    expect(res.body.message).toBeUndefined();
    expect(res.body.data).toMatchObject({ page: 0, size: 20, totalElements: 3, totalPages: 1 });
    const messages: Record<string, any>[] = res.body.data.messages;
    expect(messages.map((m) => m.to).sort()).toEqual([...audience].sort());
    // newest first
    expect(messages.map((m) => m.id)).toEqual([...messages.map((m) => m.id)].sort((a, b) => b - a));
    const rows = await recipientRows(server, campaignId);
    for (const m of messages) {
      expect(Object.keys(m).sort()).toEqual(['campaign_id', 'created_at', 'from', 'headers', 'html', 'id', 'message_id', 'subject', 'text', 'to'].sort());
      const row = rows.get(m.to)!;
      const i = audience.indexOf(m.to);
      expect(m).toMatchObject({ campaign_id: campaignId, from: 'news@acme.test', subject: `Hello N${i}` });
      expect(m.created_at).toMatch(D1_TIMESTAMP);
      expect(m.message_id).toBe(messageIdFor(server.core.signer, campaignId, row.id, 'acme.test'));
      expect(m.message_id).toBe(row.message_id);
      expect(m.headers['List-Unsubscribe']).toMatch(new RegExp(`^<${PUBLIC_URL}/u/[^>]+>, <mailto:[^>]+>$`));
      expect(m.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      expect(m.headers['Message-ID']).toBe(m.message_id);
      expect(m.headers['Reply-To']).toBe('help@acme.test');
      expect(m.headers.From).toBe('Acme News <news@acme.test>');
      expect(m.html).toContain(`<p>Hi N${i}</p>`);
      expect(linksIn(m.html).imgs[0]).toMatch(new RegExp(`^${PUBLIC_URL}/t/o/`));
      expect(m.text).toContain(`Hi N${i}`);
    }
    expect(new Set(messages.map((m) => m.message_id)).size).toBe(3);
  });

  it('is paged (D6)', async () => {
    const first = await t.call('GET', '/api/v1/dev/inbox?page=0&size=2');
    const second = await t.call('GET', '/api/v1/dev/inbox?page=1&size=2');
    const past = await t.call('GET', '/api/v1/dev/inbox?page=5&size=2');
    expect(first.body.data).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(second.body.data).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
    expect(past.body.data).toMatchObject({ messages: [], page: 5, size: 2, totalElements: 3, totalPages: 2 });
    const ids = [...first.body.data.messages, ...second.body.data.messages].map((m: { id: number }) => m.id);
    expect(new Set(ids).size).toBe(3);
    expect((await t.call('GET', '/api/v1/dev/inbox?size=101')).status).toBe(400);
    expect((await t.call('GET', '/api/v1/dev/inbox?page=-1')).status).toBe(400);
  });

  it('needs the `*` permission: a contacts.read (or campaigns.read) key gets 403', async () => {
    for (const permission of ['contacts.read', 'campaigns.read']) {
      const { key } = await server.createKey(t.accountId, [permission]);
      const res = await server.request('GET', '/api/v1/dev/inbox', { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: { code: 'PERMISSION_DENIED', message: expect.any(String) } });
    }
    expect((await server.request('GET', '/api/v1/dev/inbox')).status).toBe(401);
  });

  it("another account does not see this account's mail (D3)", async () => {
    const other = await tenant(server);
    const res = await other.call('GET', '/api/v1/dev/inbox');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ messages: [], totalElements: 0, totalPages: 0 });
  });

  it('tracking works from the dev inbox links too', async () => {
    const res = await t.call('GET', '/api/v1/dev/inbox?size=1');
    const [m] = res.body.data.messages;
    const pixel = linksIn(m.html).imgs[0];
    const hit = await fetch(server.url + pixel.slice(PUBLIC_URL.length));
    expect(hit.status).toBe(200);
    expect((await t.stats(campaignId)).opened).toBe(1);
  });
});
