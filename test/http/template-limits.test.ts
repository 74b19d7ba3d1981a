/**
 * Issue 14 H2: a campaign's html and text are templates whose compiling cost grows with their size
 * and their Liquid tags (a 950 KB draft took 14 s), so both are bounded when saved: 256 KB of
 * UTF-8 and 10,000 tags and outputs per field. A draft saved before the limits cannot be
 * test-sent, scheduled or sent until edited. Each refusal is 400 INVALID_REQUEST naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountClients, type Client } from '../helpers/clients.ts';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let c: Client;
let list: number;
const KB256 = 256 * 1024;
const tags = (n: number) => '{{ x }}'.repeat(n);

beforeAll(async () => {
  server = await startTestServer();
  c = await accountClients(() => server).newAccount();
  list = (await c.call('POST', '/api/v1/lists', { name: 'Limits' })).body.data.id;
  expect((await c.call('POST', '/api/v1/contacts', { email: 'limits@example.org', list_id: list })).status).toBe(200);
});
afterAll(() => server?.close());

const sendable = (extra: Record<string, unknown>) => ({ name: 'Limits', subject: 'Hi', from_email: 'news@acme.test', list_ids: [list], html: '<p>Hi</p>', ...extra });

describe('issue 14 H2: template limits at save time', () => {
  it('caps: create and update take html and text at the limits and refuse them over, naming the field', async () => {
    const atLimit = await c.call('POST', '/api/v1/campaigns', sendable({ html: 'x'.repeat(KB256), text: tags(10_000) }));
    expect(atLimit.status, atLimit.text.slice(0, 300)).toBe(200);
    const id = atLimit.body.data.id;

    for (const [body, field] of [
      [{ html: 'x'.repeat(KB256 + 1) }, /^html must be at most 262144 bytes/],
      [{ html: 'é'.repeat(KB256 / 2 + 1) }, /^html must be at most 262144 bytes/], // bytes of UTF-8, not characters
      [{ text: tags(10_001) }, /^text must hold at most 10000 Liquid tags/],
      [{ html: `{% liquid\n${'echo x\n'.repeat(10_000)}%}` }, /^html must hold at most 10000 Liquid tags/],
    ] as const) {
      expectError(await c.call('POST', '/api/v1/campaigns', sendable(body)), 400, 'INVALID_REQUEST', field);
      expectError(await c.call('PUT', `/api/v1/campaigns/${id}`, body), 400, 'INVALID_REQUEST', field);
    }
    // Refused edits changed nothing.
    expect((await c.call('GET', `/api/v1/campaigns/${id}`)).body.data.html).toBe('x'.repeat(KB256));
  });

  it('caps: a draft saved over the limits before them cannot be test-sent, scheduled or sent: 400 naming the field', async () => {
    const { id } = (await c.call('POST', '/api/v1/campaigns', sendable({}))).body.data;
    // As an older release let it be saved (up to 1,000,000 characters).
    await server.db.updateTable('campaigns').set({ html: '<p>{{ first_name }}</p>'.repeat(40_000) }).where('id', '=', id).execute();
    expectError(await c.call('POST', `/api/v1/campaigns/${id}/test`, { emails: ['someone@example.org'] }), 400, 'INVALID_REQUEST', /^html must be at most/);
    expectError(await c.call('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: new Date(Date.now() + 3600_000).toISOString() }), 400, 'INVALID_REQUEST', /^html must be at most/);
    expectError(await c.call('POST', `/api/v1/campaigns/${id}/send`), 400, 'INVALID_REQUEST', /^html must be at most/);
    expect((await c.call('GET', `/api/v1/campaigns/${id}`)).body.data.status).toBe('DRAFT');
    expect(await server.db.selectFrom('dev_inbox').select('id').where('campaign_id', '=', id).execute()).toEqual([]);
  });
});
