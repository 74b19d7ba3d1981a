/**
 * Issue 15: unknown body fields are still ignored (D7), but the success envelope names them in a
 * `warnings` list, nested fields included, bounded in number; absent when there are none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let key: string;
const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
const ignored = (...fields: string[]) => fields.map((f) => `unknown field "${f}" was ignored`);

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
});
afterAll(async () => {
  await server.close();
});

describe('warnings for unknown body fields (issue 15, D7)', () => {
  it('a misspelled field is ignored and named; the envelope is otherwise unchanged', async () => {
    const res = await call('POST', '/api/v1/contacts', { email: 'ada@example.com', frist_name: 'Ada' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(ignored('frist_name'));
    expect(res.body.data.first_name).toBeNull();
    expect(res.body.message).toEqual(expect.any(String));
  });

  it('an email in a contact PUT is ignored and named: the address does not change', async () => {
    const res = await call('PUT', '/api/v1/contacts/ada%40example.com', { email: 'other@example.com', last_name: 'Lovelace' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(ignored('email'));
    expect(res.body.data).toMatchObject({ email: 'ada@example.com', last_name: 'Lovelace' });
  });

  it('no warnings key when every field is known, and none on errors', async () => {
    const clean = await call('POST', '/api/v1/lists', { name: 'Clean', description: null });
    expect(clean.status).toBe(200);
    expect('warnings' in clean.body).toBe(false);
    const bad = await call('POST', '/api/v1/lists', { name: 5, colour: 'red' });
    expect(bad.status).toBe(400);
    expect('warnings' in bad.body).toBe(false);
  });

  it('nested fields are named by path: a workflow trigger and step, checked against their shape by type', async () => {
    const res = await call('POST', '/api/v1/automations', {
      name: 'Welcome',
      trigger: { type: 'EVENT', event: 'signed_up', evnt: 'x' },
      steps: [{ type: 'WAIT', seconds: 60 }, { type: 'ADD_TAG', tag: 'welcomed', secnds: 5 }],
      allow_reentry: false,
      priority: 1,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.warnings).toEqual(ignored('trigger.evnt', 'steps[1].secnds', 'priority'));
  });

  it('the integration endpoints name them too, in their flat envelope: a bulk item and the event body', async () => {
    const bulk = await call('POST', '/v1/contacts/bulk', { contacts: [{ email: 'grace@example.com', frstName: 'Grace' }, { email: 'alan@example.com', firstName: 'Alan' }], skipDupes: false });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ success: true, created: 2, warnings: ignored('contacts[0].frstName', 'skipDupes') });
    const event = await call('POST', '/v1/events', { email: 'grace@example.com', event: 'login', date: { a: 1 } });
    expect(event.status).toBe(202);
    expect(event.body).toEqual({ success: true, id: expect.any(Number), warnings: ignored('date') });
  });

  it('custom field keys and event data are the client\'s own: never warned about', async () => {
    const res = await call('POST', '/api/v1/contacts', { email: 'free@example.com', custom_fields: { anything: 1 } });
    expect(res.status).toBe(200);
    expect('warnings' in res.body).toBe(false);
    const event = await call('POST', '/v1/events', { email: 'free@example.com', event: 'x', data: { whatever: { deep: true } } });
    expect('warnings' in event.body).toBe(false);
  });

  it('the list is bounded: 20 names, then one line saying more were ignored', async () => {
    const body: Record<string, unknown> = { name: 'Many' };
    for (let i = 0; i < 500; i++) body[`extra_${i}`] = i;
    const res = await call('POST', '/api/v1/lists', body);
    expect(res.status).toBe(200);
    expect(res.body.warnings).toHaveLength(21);
    expect(res.body.warnings.slice(0, 2)).toEqual(ignored('extra_0', 'extra_1'));
    expect(res.body.warnings[20]).toMatch(/more unknown fields were ignored/);
  });
});
