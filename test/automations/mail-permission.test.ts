/**
 * Issue 14 L3: a key with automation.write and contacts.write could mail anyone through a
 * SEND_EMAIL step. Creating, updating or activating a workflow that has one needs campaigns.send
 * as well: 403 PERMISSION_DENIED (D7 form) otherwise, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let accountId: number;
/** the attacker's key of the report: automation and contacts, no campaigns */
let writer: string;
/** automation.write with campaigns.send */
let sender: string;
/** `*`, for setup and reading back */
let admin: string;

const mail = { type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', from_email: 'news@acme.test' };
const tagStep = { type: 'ADD_TAG', tag: 'seen' };
const call = (key: string, method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
const flow = (steps: unknown[]) => ({ name: 'Flow', trigger: { type: 'CONTACT_CREATED' }, steps });

function expectDenied(res: { status: number; body: any; text: string }) {
  expect(res.status, res.text).toBe(403);
  expect(res.body).toEqual({ success: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('campaigns.send') } });
}

beforeAll(async () => {
  server = await startTestServer();
  ({ accountId, key: admin } = await server.createAccountWithKey(['*']));
  writer = (await server.createKey(accountId, ['automation.write', 'automation.read', 'contacts.write'])).key;
  sender = (await server.createKey(accountId, ['automation.write', 'campaigns.send'])).key;
});
afterAll(() => server?.close());

describe('L3: a workflow with SEND_EMAIL needs campaigns.send', () => {
  it('create: 403 without campaigns.send, and nothing is created; other workflows need only automation.write', async () => {
    const before = (await call(admin, 'GET', '/api/v1/automations')).body.data.totalElements;
    expectDenied(await call(writer, 'POST', '/api/v1/automations', flow([tagStep, mail])));
    expect((await call(admin, 'GET', '/api/v1/automations')).body.data.totalElements).toBe(before);
    expect((await call(writer, 'POST', '/api/v1/automations', flow([tagStep]))).status).toBe(200);
    expect((await call(sender, 'POST', '/api/v1/automations', flow([mail]))).status).toBe(200);
  });

  it('update: adding a SEND_EMAIL step, or changing a workflow that has one, is 403 without campaigns.send', async () => {
    const plain = (await call(writer, 'POST', '/api/v1/automations', flow([tagStep]))).body.data;
    expectDenied(await call(writer, 'PUT', `/api/v1/automations/${plain.id}`, { steps: [tagStep, mail] }));
    expect((await call(admin, 'GET', `/api/v1/automations/${plain.id}`)).body.data.steps).toEqual([tagStep]);

    const mailing = (await call(sender, 'POST', '/api/v1/automations', flow([mail]))).body.data;
    // Its trigger decides who is mailed as much as its steps do.
    expectDenied(await call(writer, 'PUT', `/api/v1/automations/${mailing.id}`, { trigger: { type: 'TAG_ADDED', tag: 'anyone' } }));
    expect((await call(admin, 'GET', `/api/v1/automations/${mailing.id}`)).body.data.trigger).toEqual({ type: 'CONTACT_CREATED' });
    // Taking the mail out needs no campaigns.send.
    expect((await call(writer, 'PUT', `/api/v1/automations/${mailing.id}`, { steps: [tagStep] })).status).toBe(200);
    expect((await call(sender, 'PUT', `/api/v1/automations/${plain.id}`, { steps: [tagStep, mail] })).status).toBe(200);
  });

  it('activate: 403 without campaigns.send, and the workflow stays inactive; deactivating needs only automation.write', async () => {
    const mailing = (await call(admin, 'POST', '/api/v1/automations', flow([mail]))).body.data;
    expectDenied(await call(writer, 'POST', `/api/v1/automations/${mailing.id}/activate`));
    expect((await call(admin, 'GET', `/api/v1/automations/${mailing.id}`)).body.data.is_active).toBe(false);
    expect((await call(sender, 'POST', `/api/v1/automations/${mailing.id}/activate`)).body.data.is_active).toBe(true);
    expect((await call(writer, 'POST', `/api/v1/automations/${mailing.id}/deactivate`)).body.data.is_active).toBe(false);
    // A workflow without mail activates with automation.write alone.
    const plain = (await call(writer, 'POST', '/api/v1/automations', flow([tagStep]))).body.data;
    expect((await call(writer, 'POST', `/api/v1/automations/${plain.id}/activate`)).body.data.is_active).toBe(true);
  });

  it('an invalid SEND_EMAIL step is still a 400 naming the field (the definition is checked first)', async () => {
    const res = await call(writer, 'POST', '/api/v1/automations', flow([{ type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>' }]));
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toContain('from_email');
  });
});
