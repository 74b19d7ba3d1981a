/**
 * Issue 15: a schema failure is 400 INVALID_REQUEST (D7) whose message is one plain sentence naming
 * the field and what it accepts, never ajv's `body/first_name must be string, ... anyOf`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let key: string;
const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
const messageOf = (res: { body: any }) => res.body.message ?? res.body.error.message;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
});
afterAll(async () => {
  await server.close();
});

describe('validation messages (issue 15)', () => {
  it.each([
    ['POST', '/api/v1/contacts', { email: 'a@example.com', first_name: 5 }, 'first_name must be a string of at most 255 characters or null'],
    ['POST', '/api/v1/contacts', { email: 'a@example.com', last_name: 'x'.repeat(256) }, 'last_name must be a string of at most 255 characters or null'],
    ['POST', '/api/v1/lists', {}, 'name is required: a string of 1-255 characters'],
    ['POST', '/api/v1/lists', { name: 'L', is_active: 'yes' }, 'is_active must be true or false'],
    ['POST', '/api/v1/lists', [], 'the body must be an object'],
    ['PUT', '/api/v1/contacts/a%40example.com', { status: 'BOUNCED' }, 'status must be one of SUBSCRIBED, UNSUBSCRIBED'],
    ['POST', '/api/v1/campaigns', { name: 'C', list_ids: [1, 'two'] }, 'list_ids[1] must be an integer of at least 1'],
    ['POST', '/api/v1/api-keys', { name: 'k', permissions: ['contacts.read', 'contacts.readd'] }, 'permissions[1] must be one of contacts.read, contacts.write, contacts.delete, lists.read, lists.write, campaigns.read, campaigns.write, campaigns.send, automation.read, automation.write, *'],
    ['GET', '/api/v1/contacts?size=500', undefined, 'size must be an integer from 1 to 100'],
    ['GET', '/api/v1/contacts?page=-1', undefined, 'page must be an integer of at least 0'],
    ['GET', '/api/v1/lists/01', undefined, 'id must be a positive integer (digits only, no leading zero)'],
  ])('%s %s %j: "%s"', async (method, path, body, message) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toBe(message);
  });

  it('the integration endpoints say it the same way, in their flat form', async () => {
    const res = await call('POST', '/v1/events', { email: 'a@example.com', event: 5 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_REQUEST', message: 'event must be a string of 1-128 characters' });
  });

  it('no message keeps ajv\'s phrasing', async () => {
    const bodies = [{ email: 'a@example.com', phone: [] }, { email: 5 }, { email: 'a@example.com', tags: 'x' }, { email: 'a@example.com', custom_fields: [] }];
    for (const body of bodies) {
      const res = await call('POST', '/api/v1/contacts', body);
      expect(res.status).toBe(400);
      expect(messageOf(res)).not.toMatch(/body\/|querystring\/|anyOf|must match a schema|must be string/);
    }
  });
});
