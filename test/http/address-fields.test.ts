/**
 * Issue 14 M1 (input half): an address whose quoted local part holds CR LF (or any control
 * character, `<` or `>`) was accepted, then refused by the SMTP envelope at send time. Every field
 * that takes an address refuses it when it is written: 400 INVALID_REQUEST naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
});
afterAll(() => server?.close());

/** What the review used, and its neighbours: C0, DEL, C1, the Unicode separators and the address delimiters. */
const UNSAFE = ['"x\r\ny"@example.com', '"x\ny"@example.com', '"x\ty"@example.com', '"x\u007fy"@example.com', '"x\u0085y"@example.com', '"x\u2028y"@example.com', '"a<b"@example.com', '"a>b"@example.com'];

describe('M1: addresses with control characters, < or > are refused in every address field', () => {
  it('contacts: create and list membership', async () => {
    for (const email of UNSAFE) {
      expectError(await t.call('POST', '/api/v1/contacts', { email }), 400, 'INVALID_REQUEST', /email must not contain control characters, < or >/);
    }
    const list = await t.list('M1 list');
    expectError(await t.call('POST', `/api/v1/lists/${list}/contacts`, { emails: ['ok@example.com', UNSAFE[0]] }), 400, 'INVALID_REQUEST', /emails\[1\]/);
    expect((await t.call('GET', '/api/v1/contacts')).body.data.totalElements).toBe(0);
  });

  it('bulk import: each such item fails alone, naming the field, and the rest are written', async () => {
    const res = await t.call('POST', '/v1/contacts/bulk', { contacts: [{ email: 'fine@example.com' }, ...UNSAFE.map((email) => ({ email }))] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, created: 1, failed: UNSAFE.length });
    for (const e of res.body.errors) expect(e.message).toMatch(/email must not contain control characters, < or >/);
  });

  it('campaign from_email and reply_to, on create and on update', async () => {
    for (const field of ['from_email', 'reply_to']) {
      for (const address of UNSAFE) {
        expectError(await t.call('POST', '/api/v1/campaigns', { name: 'M1', [field]: address }), 400, 'INVALID_REQUEST', new RegExp(`${field} must not contain`));
      }
    }
    const draft = (await t.call('POST', '/api/v1/campaigns', { name: 'M1 draft', from_email: 'news@example.com' })).body.data;
    expectError(await t.call('PUT', `/api/v1/campaigns/${draft.id}`, { from_email: UNSAFE[0] }), 400, 'INVALID_REQUEST', /from_email/);
    expect((await t.call('GET', `/api/v1/campaigns/${draft.id}`)).body.data.from_email).toBe('news@example.com');
    // A quoted local part without such characters stays valid.
    const quoted = await t.call('PUT', `/api/v1/campaigns/${draft.id}`, { reply_to: '"a b"@example.com' });
    expect(quoted.status, quoted.text).toBe(200);
  });

  it("an automation's SEND_EMAIL step from_email", async () => {
    for (const address of UNSAFE) {
      const res = await t.call('POST', '/api/v1/automations', {
        name: 'M1',
        trigger: { type: 'CONTACT_CREATED' },
        steps: [{ type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', from_email: address }],
      });
      expectError(res, 400, 'INVALID_REQUEST', /steps\[0\]\.from_email must not contain control characters, < or >/);
    }
  });

  it("a list's own confirmation_from_email (issue 29 item 5: it now goes through the one e-mail rule)", async () => {
    for (const address of UNSAFE) {
      expectError(await t.call('POST', '/api/v1/lists', { name: 'M1 own sender', opt_in: 'double', confirmation_from_email: address }), 400, 'INVALID_REQUEST', /confirmation_from_email must not contain control characters, < or >/);
    }
    expect((await t.call('GET', '/api/v1/lists')).body.data.lists.filter((l: { name: string }) => l.name === 'M1 own sender')).toEqual([]);
  });

  it('a test send to such an address', async () => {
    const draft = (await t.call('POST', '/api/v1/campaigns', { name: 'M1 test', subject: 'S', from_email: 'news@example.com', html: '<p>x</p>' })).body.data;
    expectError(await t.call('POST', `/api/v1/campaigns/${draft.id}/test`, { emails: [UNSAFE[0]] }), 400, 'INVALID_REQUEST', /emails\[0\] must not contain/);
  });
});
