import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

// D15: /api/v1/automations — CRUD, activate/deactivate, runs, reference error forms.

let server: TestServer;
let t: Tenant;
let listId: number;

const email = { type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', from_email: 'News@Acme.test' };
const valid = () => ({
  name: ' Welcome ',
  trigger: { type: 'TAG_ADDED', tag: ' VIP ' },
  steps: [
    email,
    { type: 'WAIT', seconds: 60 },
    { type: 'ADD_TAG', tag: 'welcomed' },
    { type: 'REMOVE_TAG', tag: 'new' },
    { type: 'ADD_TO_LIST', list_id: listId },
    { type: 'REMOVE_FROM_LIST', list_id: listId },
    { type: 'UPDATE_LEAD_SCORE', delta: -5 },
    { type: 'CONDITION', field: 'event.order.total', op: 'gte', value: 10 },
  ],
});

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
  listId = await t.list('Flow list');
});
afterAll(() => server?.close());

describe('D15 automations API', () => {
  it('creates an inactive automation and reads it back, pages, updates, activates, deactivates, deletes', async () => {
    const created = await t.call('POST', '/api/v1/automations', valid());
    expect(created.status).toBe(200);
    expect(created.body.message).toEqual(expect.any(String));
    const a = created.body.data;
    expect(a).toMatchObject({ name: 'Welcome', trigger: { type: 'TAG_ADDED', tag: 'VIP' }, allow_reentry: false, is_active: false });
    expect(a.steps[0]).toEqual({ type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', text: null, from_email: 'news@acme.test', from_name: null });
    expect(a.steps).toHaveLength(8);
    expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);

    const read = await t.call('GET', `/api/v1/automations/${a.id}`);
    expect(read.body).toEqual({ success: true, data: a });
    const page = await t.call('GET', '/api/v1/automations?page=0&size=10');
    expect(page.body.data).toMatchObject({ automations: [a], page: 0, size: 10, totalElements: 1, totalPages: 1 });

    const updated = await t.call('PUT', `/api/v1/automations/${a.id}`, { name: 'Renamed', allow_reentry: true });
    expect(updated.body.data).toMatchObject({ name: 'Renamed', allow_reentry: true, trigger: a.trigger, steps: a.steps });
    const retriggered = await t.call('PUT', `/api/v1/automations/${a.id}`, { trigger: { type: 'EVENT', event: 'signup' }, steps: [{ type: 'WAIT', seconds: 1 }] });
    expect(retriggered.body.data).toMatchObject({ trigger: { type: 'EVENT', event: 'signup' }, steps: [{ type: 'WAIT', seconds: 1 }] });

    expect((await t.call('POST', `/api/v1/automations/${a.id}/activate`)).body.data.is_active).toBe(true);
    expect((await t.call('POST', `/api/v1/automations/${a.id}/activate`)).body.data.is_active).toBe(true);
    expect((await t.call('POST', `/api/v1/automations/${a.id}/deactivate`)).body.data.is_active).toBe(false);

    const runs = await t.call('GET', `/api/v1/automations/${a.id}/runs`);
    expect(runs.body.data).toEqual({ runs: [], page: 0, size: 20, totalElements: 0, totalPages: 0 });

    expect((await t.call('DELETE', `/api/v1/automations/${a.id}`)).status).toBe(200);
    const gone = await t.call('GET', `/api/v1/automations/${a.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: { code: 'AUTOMATION_NOT_FOUND', message: expect.any(String) } });
  });

  it('refuses bad definitions with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...valid(), name: '  ' }, /name/],
      [{ ...valid(), trigger: { type: 'NOPE' } }, /type/],
      [{ ...valid(), trigger: { type: 'EVENT' } }, /trigger\.event/],
      [{ ...valid(), trigger: { type: 'EVENT', event: 'e'.repeat(129) } }, /trigger\.event/],
      [{ ...valid(), trigger: { type: 'TAG_ADDED', tag: ' ' } }, /trigger\.tag/],
      [{ ...valid(), trigger: { type: 'LIST_JOINED' } }, /trigger\.list_id/],
      [{ ...valid(), steps: [] }, /steps/],
      [{ ...valid(), steps: [{ type: 'JUMP' }] }, /type/],
      [{ ...valid(), steps: [{ type: 'WAIT', seconds: 0 }] }, /steps\[0\]\.seconds/],
      [{ ...valid(), steps: [{ type: 'WAIT', seconds: 1.5 }] }, /steps\[0\]\.seconds/],
      [{ ...valid(), steps: [{ ...email, from_email: 'nope' }] }, /steps\[0\]\.from_email/],
      [{ ...valid(), steps: [{ ...email, subject: undefined }] }, /steps\[0\]\.subject/],
      // Issue 14 H2: a mailing step's content has a campaign's template limits (256 KB, 10,000 tags).
      [{ ...valid(), steps: [{ ...email, html: 'é'.repeat(131_073) }] }, /steps\[0\]\.html.*bytes/],
      [{ ...valid(), steps: [{ ...email, text: '{{ x }}'.repeat(10_001) }] }, /steps\[0\]\.text.*Liquid tags/],
      [{ ...valid(), steps: [{ type: 'UPDATE_LEAD_SCORE', delta: 'x' }] }, /steps\[0\]\.delta/],
      [{ ...valid(), steps: [{ type: 'CONDITION', field: 'password', op: 'equals', value: 1 }] }, /steps\[0\]\.field/],
      [{ ...valid(), steps: [{ type: 'CONDITION', field: 'tags', op: 'like', value: 1 }] }, /op/],
      [{ ...valid(), steps: [{ type: 'CONDITION', field: 'tags', op: 'contains' }] }, /steps\[0\]\.value/],
      [{ ...valid(), steps: [{ type: 'CONDITION', field: 'lead_score', op: 'gte', value: 'many' }] }, /steps\[0\]\.value/],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('POST', '/api/v1/automations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(message);
    }
  });

  it('a list named by the trigger or a step must exist in the account: 404 LIST_NOT_FOUND', async () => {
    const other = await tenant(server);
    const theirs = await other.list('theirs');
    for (const body of [
      { ...valid(), trigger: { type: 'LIST_JOINED', list_id: theirs } },
      { ...valid(), steps: [{ type: 'ADD_TO_LIST', list_id: 999999 }] },
    ]) {
      const res = await t.call('POST', '/api/v1/automations', body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('LIST_NOT_FOUND');
    }
  });

  it("another account's automation answers as a missing one (D3); bad ids are 400", async () => {
    const other = await tenant(server);
    // Our list is no list of theirs either (D3).
    expect((await other.call('POST', '/api/v1/automations', valid())).status).toBe(404);
    const own = (await other.call('POST', '/api/v1/automations', { name: 'x', trigger: { type: 'CONTACT_CREATED' }, steps: [{ type: 'WAIT', seconds: 5 }] })).body.data;
    for (const [method, path] of [
      ['GET', `/api/v1/automations/${own.id}`],
      ['PUT', `/api/v1/automations/${own.id}`],
      ['DELETE', `/api/v1/automations/${own.id}`],
      ['POST', `/api/v1/automations/${own.id}/activate`],
      ['POST', `/api/v1/automations/${own.id}/deactivate`],
      ['GET', `/api/v1/automations/${own.id}/runs`],
    ]) {
      const res = await t.call(method, path, method === 'PUT' ? { name: 'mine' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('AUTOMATION_NOT_FOUND');
    }
    expect((await t.call('GET', '/api/v1/automations/0')).status).toBe(400);
    expect((await t.call('GET', '/api/v1/automations?size=101')).status).toBe(400);
  });

  it('reads need automation.read and writes automation.write (403 even with a bad body); both auth forms work', async () => {
    const reader = await server.createKey(t.accountId, ['automation.read']);
    const writer = await server.createKey(t.accountId, ['automation.write']);
    expect((await server.request('GET', '/api/v1/automations', { key: reader.key, auth: 'bearer' })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/automations', { key: writer.key })).status).toBe(403);
    const denied = await server.request('POST', '/api/v1/automations', { key: reader.key, body: { bad: true } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
    expect((await server.request('POST', '/api/v1/automations/1/activate', { key: reader.key })).status).toBe(403);
    expect((await server.request('GET', '/api/v1/automations')).status).toBe(401);
  });
});
