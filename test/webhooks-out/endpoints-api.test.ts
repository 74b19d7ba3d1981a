/**
 * /api/v1/webhooks: registering outbound webhook endpoints (issue 5 §3). D4 success forms, D6
 * paging, D7 errors, D3 isolation, and the `*` permission the route table documents.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/outbound-webhooks/enqueue.ts';
import { accountClients } from '../helpers/clients.ts';
import { expectError, expectRead, expectWritten } from '../helpers/responses.ts';
import { startTestServer } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());
const { newAccount, keyFor } = accountClients(() => server);

const D1 = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
const endpointShape = (fields: Record<string, unknown>) => ({
  id: expect.any(Number),
  description: null,
  is_active: true,
  created_at: D1,
  updated_at: D1,
  ...fields,
});

describe('creating an endpoint', () => {
  it('returns the endpoint with its signing secret, once; reads never show the secret', async () => {
    const c = await newAccount();
    const res = await c.call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/sendwell', event_types: ['email.sent', 'campaign.sent'], description: 'CRM sync' });
    expectWritten(res, {
      ...endpointShape({ url: 'https://hooks.example.com/sendwell', event_types: ['email.sent', 'campaign.sent'], description: 'CRM sync' }),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const { id, secret } = res.body.data;
    const got = await c.call('GET', `/api/v1/webhooks/${id}`);
    expectRead(got, endpointShape({ id, url: 'https://hooks.example.com/sendwell', event_types: ['email.sent', 'campaign.sent'], description: 'CRM sync' }));
    expect(got.text).not.toContain(secret);
    const page = await c.call('GET', '/api/v1/webhooks');
    expect(page.text).not.toContain(secret);
  });

  it('lists event types in the documented order, each once, and accepts every type', async () => {
    const c = await newAccount();
    const all = [...WEBHOOK_EVENT_TYPES].reverse();
    const res = await c.call('POST', '/api/v1/webhooks', { url: 'http://hooks.example.com/all', event_types: [...all, 'email.sent'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.event_types).toEqual([...WEBHOOK_EVENT_TYPES]);
    // issue 5's 13 and D25.5's 6 message.* events
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(19);
  });

  it('can start inactive', async () => {
    const c = await newAccount();
    const res = await c.call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/', event_types: ['email.opened'], is_active: false });
    expect(res.body.data.is_active).toBe(false);
  });

  it.each([
    [{ event_types: ['email.sent'] }, /url/],
    [{ url: 'https://hooks.example.com' }, /event_types/],
    [{ url: 'https://hooks.example.com', event_types: [] }, /event_types/],
    [{ url: 'https://hooks.example.com', event_types: ['email.sent', 'email.exploded'] }, /"email\.exploded".*email\.sent/],
    [{ url: 'https://hooks.example.com', event_types: 'email.sent' }, /event_types/],
    [{ url: 'ftp://hooks.example.com', event_types: ['email.sent'] }, /url must be an http/],
    [{ url: 'javascript:alert(1)', event_types: ['email.sent'] }, /url must be an http/],
    [{ url: 'hooks.example.com/path', event_types: ['email.sent'] }, /url must be an absolute/],
    [{ url: '', event_types: ['email.sent'] }, /url/],
    [{ url: 'https://user:pass@hooks.example.com', event_types: ['email.sent'] }, /user name or password/],
    [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, event_types: ['email.sent'] }, /url/],
    [{ url: 'https://hooks.example.com', event_types: ['email.sent'], description: 'd'.repeat(1001) }, /description/],
    [{ url: 'https://hooks.example.com', event_types: ['email.sent'], is_active: 'yes' }, /is_active/],
  ])('refuses %j with 400 INVALID_REQUEST naming the problem', async (body, names) => {
    const c = await newAccount();
    expectError(await c.call('POST', '/api/v1/webhooks', body), 400, 'INVALID_REQUEST', names);
    expect(await server.db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', c.accountId).execute()).toEqual([]);
  });
});

describe('reading, updating and deleting', () => {
  it('pages oldest first with D6 totals', async () => {
    const c = await newAccount();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await c.call('POST', '/api/v1/webhooks', { url: `https://hooks.example.com/${i}`, event_types: ['email.sent'] })).body.data.id);
    const first = await c.call('GET', '/api/v1/webhooks?size=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(first.body.data.webhooks.map((w: any) => w.id)).toEqual(ids.slice(0, 2));
    const second = await c.call('GET', '/api/v1/webhooks?size=2&page=1');
    expect(second.body.data.webhooks.map((w: any) => w.id)).toEqual(ids.slice(2));
    const past = await c.call('GET', '/api/v1/webhooks?size=2&page=5');
    expect(past.body.data).toMatchObject({ webhooks: [], totalElements: 3, totalPages: 2 });
    expectError(await c.call('GET', '/api/v1/webhooks?size=101'), 400, 'INVALID_REQUEST');
  });

  it('updates the url, the event types, the description and the active flag; leaves out what is not given', async () => {
    const c = await newAccount();
    const { id, created_at } = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com', event_types: ['email.sent'], description: 'first' })).body.data;
    const res = await c.call('PUT', `/api/v1/webhooks/${id}`, { url: 'https://b.example.com/in', event_types: ['contact.created', 'automation.completed'], is_active: false });
    expectWritten(res, endpointShape({ id, url: 'https://b.example.com/in', event_types: ['contact.created', 'automation.completed'], description: 'first', is_active: false, created_at }));
    const cleared = await c.call('PUT', `/api/v1/webhooks/${id}`, { description: null });
    expect(cleared.body.data).toMatchObject({ description: null, url: 'https://b.example.com/in', is_active: false });
    const rows = await server.db.selectFrom('webhook_endpoint_events').select('event_type').where('endpoint_id', '=', id).orderBy('event_type').execute();
    expect(rows.map((r) => r.event_type)).toEqual(['automation.completed', 'contact.created']);
  });

  it('refuses an update with an unknown event type or a bad url, changing nothing', async () => {
    const c = await newAccount();
    const created = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com/', event_types: ['email.sent'] })).body.data;
    expectError(await c.call('PUT', `/api/v1/webhooks/${created.id}`, { event_types: ['email.sent', 'nope'] }), 400, 'INVALID_REQUEST', /nope/);
    expectError(await c.call('PUT', `/api/v1/webhooks/${created.id}`, { url: 'mailto:a@b.c' }), 400, 'INVALID_REQUEST', /url/);
    const { secret: _secret, ...stored } = created;
    expectRead(await c.call('GET', `/api/v1/webhooks/${created.id}`), stored);
  });

  it('deletes the endpoint with its deliveries; then it is 404 WEBHOOK_NOT_FOUND', async () => {
    const c = await newAccount();
    const { id } = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com', event_types: ['email.sent'] })).body.data;
    expect((await c.call('POST', `/api/v1/webhooks/${id}/test`)).status).toBe(200);
    expectWritten(await c.call('DELETE', `/api/v1/webhooks/${id}`), { id });
    expect(await server.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).execute()).toEqual([]);
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/${id}`],
      ['PUT', `/api/v1/webhooks/${id}`],
      ['DELETE', `/api/v1/webhooks/${id}`],
      ['POST', `/api/v1/webhooks/${id}/test`],
      ['GET', `/api/v1/webhooks/${id}/deliveries`],
    ]) {
      expectError(await c.call(method, path, method === 'PUT' ? {} : undefined), 404, 'WEBHOOK_NOT_FOUND');
    }
  });

  it('D2: a path id that is not a positive integer is 400', async () => {
    const c = await newAccount();
    expectError(await c.call('GET', '/api/v1/webhooks/abc'), 400, 'INVALID_REQUEST');
    expectError(await c.call('GET', '/api/v1/webhooks/0/deliveries'), 400, 'INVALID_REQUEST');
  });
});

describe('rotating the secret', () => {
  it('returns a new secret once, different from the old; reads still show none', async () => {
    const c = await newAccount();
    const created = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com/', event_types: ['email.sent'] })).body.data;
    const res = await c.call('POST', `/api/v1/webhooks/${created.id}/rotate-secret`);
    const { secret: oldSecret, updated_at: _u, ...rest } = created;
    expectWritten(res, { ...rest, updated_at: D1, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    expect(res.body.data.secret).not.toBe(oldSecret);
    const stored = await server.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.secret).toBe(res.body.data.secret);
    expect((await c.call('GET', `/api/v1/webhooks/${created.id}`)).text).not.toContain(res.body.data.secret);
  });
});

describe('the test event and the delivery log', () => {
  it('queues a webhook.test delivery, shown in the log newest first, filterable by status', async () => {
    const c = await newAccount();
    const { id } = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com', event_types: ['email.sent'] })).body.data;
    const first = await c.call('POST', `/api/v1/webhooks/${id}/test`);
    expectWritten(first, {
      id: expect.any(Number),
      event_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      event_type: 'webhook.test',
      status: 'PENDING',
      attempts: 0,
      next_attempt_at: D1,
      last_status_code: null,
      last_error: null,
      created_at: D1,
      updated_at: D1,
      delivered_at: null,
      payload: { id: first.body.data.event_id, type: 'webhook.test', created_at: D1, account_id: c.accountId, data: { webhook_id: id, message: expect.any(String) } },
      attempt_log: [],
    });
    const second = await c.call('POST', `/api/v1/webhooks/${id}/test`);
    const log = await c.call('GET', `/api/v1/webhooks/${id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.data).toMatchObject({ page: 0, size: 20, totalElements: 2, totalPages: 1 });
    expect(log.body.data.deliveries.map((d: any) => d.id)).toEqual([second.body.data.id, first.body.data.id]);
    expect((await c.call('GET', `/api/v1/webhooks/${id}/deliveries?status=PENDING`)).body.data.totalElements).toBe(2);
    expect((await c.call('GET', `/api/v1/webhooks/${id}/deliveries?status=DELIVERED`)).body.data).toMatchObject({ deliveries: [], totalElements: 0 });
    expectError(await c.call('GET', `/api/v1/webhooks/${id}/deliveries?status=LOST`), 400, 'INVALID_REQUEST', /status/);
  });
});

describe('permission and isolation', () => {
  it('needs the * permission: a key with every named permission is 403, even with a bad body', async () => {
    const c = await newAccount();
    const { id } = (await c.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com', event_types: ['email.sent'] })).body.data;
    const named = await keyFor(c, ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write']);
    expectError(await named.call('POST', '/api/v1/webhooks', { url: 42 }), 403, 'PERMISSION_DENIED');
    expectError(await named.call('GET', '/api/v1/webhooks'), 403, 'PERMISSION_DENIED');
    expectError(await named.call('GET', `/api/v1/webhooks/${id}/deliveries`), 403, 'PERMISSION_DENIED');
    expectError(await server.request('GET', '/api/v1/webhooks'), 401, 'UNAUTHORIZED');
  });

  it("D3: another account's endpoint is 404 WEBHOOK_NOT_FOUND everywhere, unchanged, and absent from its pages", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const mine = (await a.call('POST', '/api/v1/webhooks', { url: 'https://a.example.com', event_types: ['email.sent'] })).body.data;
    await b.call('POST', '/api/v1/webhooks', { url: 'https://b.example.com', event_types: ['email.sent'] });
    const before = await server.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', mine.id).execute();
    expectError(await b.call('GET', `/api/v1/webhooks/${mine.id}`), 404, 'WEBHOOK_NOT_FOUND');
    expectError(await b.call('PUT', `/api/v1/webhooks/${mine.id}`, { url: 'https://evil.example.com' }), 404, 'WEBHOOK_NOT_FOUND');
    expectError(await b.call('POST', `/api/v1/webhooks/${mine.id}/test`), 404, 'WEBHOOK_NOT_FOUND');
    expectError(await b.call('POST', `/api/v1/webhooks/${mine.id}/rotate-secret`), 404, 'WEBHOOK_NOT_FOUND');
    expectError(await b.call('GET', `/api/v1/webhooks/${mine.id}/deliveries`), 404, 'WEBHOOK_NOT_FOUND');
    expectError(await b.call('DELETE', `/api/v1/webhooks/${mine.id}`), 404, 'WEBHOOK_NOT_FOUND');
    expect(await server.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', mine.id).execute()).toEqual(before);
    expect(await server.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', mine.id).execute()).toEqual([]);
    const page = await b.call('GET', '/api/v1/webhooks');
    expect(page.body.data.webhooks.map((w: any) => w.url)).toEqual(['https://b.example.com/']);
  });
});
