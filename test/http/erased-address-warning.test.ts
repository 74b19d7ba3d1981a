/**
 * D26.6: creating a contact whose address was erased (D21) answers as before, plus a `warnings`
 * entry saying the address is suppressed by the erasure and will not be mailed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let key: string;
const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
});
afterAll(() => server.close());

describe('D26.6: an erased address comes back with a word', () => {
  it('re-creating an erased address is 200 with the contact and a warning; a new address has none', async () => {
    expect((await call('POST', '/api/v1/contacts', { email: 'gone@example.com', first_name: 'Gone' })).status).toBe(200);
    expect((await call('POST', '/api/v1/contacts/gone@example.com/erase')).status).toBe(200);

    const back = await call('POST', '/api/v1/contacts', { email: 'gone@example.com', frist_name: 'Typo' });
    expect(back.status, back.text).toBe(200);
    expect(back.body.data).toMatchObject({ email: 'gone@example.com', status: 'SUBSCRIBED' });
    expect(back.body.warnings).toEqual(['unknown field "frist_name" was ignored', expect.stringMatching(/erased before .*will not be mailed/)]);
    // What the warning says holds: the address is on the suppression list by the erasure.
    const suppressions = (await call('GET', '/api/v1/suppressions')).body.data.suppressions;
    expect(suppressions).toEqual(expect.arrayContaining([expect.objectContaining({ value: 'gone@example.com', source: 'ERASURE' })]));

    const fresh = await call('POST', '/api/v1/contacts', { email: 'new@example.com' });
    expect(fresh.status).toBe(200);
    expect(fresh.body.warnings).toBeUndefined();
  });
});
