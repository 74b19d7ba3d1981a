/**
 * D26.1: a list that a form uses, or that a SCHEDULED or SENDING campaign targets (or a PAUSED
 * one, issue 34), cannot be deleted or made private: 409 LIST_IN_USE naming them. DRAFT, SENT
 * and CANCELLED campaigns do not hold it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let key: string;
const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
const ok = (res: ApiResponse) => {
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString().slice(0, 19);

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccountWithKey());
  ok(await call('POST', '/api/v1/contacts', { email: 'reader@example.com' }));
});
afterAll(() => server.close());

async function listWithMember(name: string): Promise<number> {
  const list = ok(await call('POST', '/api/v1/lists', { name, is_public: true }));
  ok(await call('POST', `/api/v1/lists/${list.id}/contacts`, { emails: ['reader@example.com'] }));
  return list.id;
}

function expectInUse(res: ApiResponse, ...names: RegExp[]) {
  expect(res.status, res.text).toBe(409);
  expect(res.body.error.code).toBe('LIST_IN_USE');
  for (const name of names) expect(res.body.error.message).toMatch(name);
}

describe('D26.1: a list in use is not deleted or made private under its users', () => {
  it('a form holds its list: delete and is_public false are 409 naming the form, and the form keeps working', async () => {
    const listId = await listWithMember('Readers');
    const form = ok(await call('POST', '/api/v1/forms', { name: 'Shop footer', list_ids: [listId], fields: [{ name: 'email', label: 'E-mail', required: true }] }));

    // Said before anyone tries: the list's read names what holds it.
    expect(ok(await call('GET', `/api/v1/lists/${listId}`)).used_by).toEqual(['form "Shop footer"']);
    expectInUse(await call('DELETE', `/api/v1/lists/${listId}`), /list "Readers" cannot be deleted/, /form "Shop footer"/);
    expectInUse(await call('PUT', `/api/v1/lists/${listId}`, { is_public: false }), /cannot be made private/, /form "Shop footer"/);
    expect(ok(await call('GET', `/api/v1/lists/${listId}`)).is_public).toBe(true);
    expect((await fetch(`${server.url}/f/${form.uid}`, { headers: { accept: 'text/html' } })).status).toBe(200);

    // Other changes to the list are not held up, and once the form is gone the list may go.
    expect(ok(await call('PUT', `/api/v1/lists/${listId}`, { description: 'still here' })).description).toBe('still here');
    ok(await call('DELETE', `/api/v1/forms/${form.id}`));
    expect(ok(await call('GET', `/api/v1/lists/${listId}`)).used_by).toEqual([]);
    expect(ok(await call('PUT', `/api/v1/lists/${listId}`, { is_public: false })).is_public).toBe(false);
    ok(await call('DELETE', `/api/v1/lists/${listId}`));
  });

  it('a SCHEDULED campaign holds its lists; a DRAFT does not; unscheduled, the list may go', async () => {
    const held = await listWithMember('Spring readers');
    const free = await listWithMember('Draft readers');
    const campaign = ok(await call('POST', '/api/v1/campaigns', { name: 'Spring sale', subject: 'Spring', from_email: 'news@example.com', from_name: 'News', html: '<p>Hi</p>', list_ids: [held] }));
    ok(await call('POST', '/api/v1/campaigns', { name: 'Someday', subject: 'Later', from_email: 'news@example.com', from_name: 'News', html: '<p>Hi</p>', list_ids: [free] }));
    ok(await call('POST', `/api/v1/campaigns/${campaign.id}/schedule`, { scheduled_at: inAnHour() }));

    expectInUse(await call('DELETE', `/api/v1/lists/${held}`), /SCHEDULED campaign "Spring sale"/);
    expect(ok(await call('GET', `/api/v1/lists/${held}`)).used_by).toEqual([expect.stringMatching(/campaign "Spring sale"/)]);
    expect(ok(await call('GET', `/api/v1/lists/${free}`)).used_by).toEqual([]);
    ok(await call('DELETE', `/api/v1/lists/${free}`));

    ok(await call('POST', `/api/v1/campaigns/${campaign.id}/unschedule`));
    ok(await call('DELETE', `/api/v1/lists/${held}`));
  });

  it('a PAUSED campaign holds its lists as a SENDING one does; cancelled, the list may go (issue 34)', async () => {
    const held = await listWithMember('Paused readers');
    const campaign = ok(await call('POST', '/api/v1/campaigns', { name: 'Paused sale', subject: 'Sale', from_email: 'news@example.com', from_name: 'News', html: '<p>Hi</p>', list_ids: [held] }));
    // This test server runs no sender, so the campaign stays SENDING until it is paused.
    ok(await call('POST', `/api/v1/campaigns/${campaign.id}/send`));
    expectInUse(await call('DELETE', `/api/v1/lists/${held}`), /SENDING campaign "Paused sale"/);
    ok(await call('POST', `/api/v1/campaigns/${campaign.id}/pause`));
    expectInUse(await call('DELETE', `/api/v1/lists/${held}`), /PAUSED campaign "Paused sale"/);
    ok(await call('POST', `/api/v1/campaigns/${campaign.id}/cancel`));
    ok(await call('DELETE', `/api/v1/lists/${held}`));
  });

  it('names every holder, and only those that hold the list', async () => {
    const listId = await listWithMember('Shared');
    const lookalike = await listWithMember('Lookalike');
    const fields = [{ name: 'email', label: 'E-mail', required: true }];
    ok(await call('POST', '/api/v1/forms', { name: 'Form A', list_ids: [listId], fields }));
    ok(await call('POST', '/api/v1/forms', { name: 'Form B', list_ids: [lookalike, listId], fields }));
    const res = await call('DELETE', `/api/v1/lists/${listId}`);
    expectInUse(res, /form "Form A"/, /form "Form B"/);
    // The lookalike is held only by Form B; a text match on its id alone must not pull in Form A.
    const other = await call('DELETE', `/api/v1/lists/${lookalike}`);
    expectInUse(other, /form "Form B"/);
    expect(other.body.error.message).not.toMatch(/Form A/);
  });
});
