/**
 * D26.7: content saved with a merge field nothing fills (not a contact field, a custom field the
 * account's contacts hold, a link, or `event.*` in a workflow) is saved as before, and the answer's
 * `warnings` (D17) names the field: campaigns, templates and workflows' SEND_EMAIL steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** An account of its own (custom fields in use are the account's), and a caller for it. */
async function account() {
  const { key } = await server.createAccountWithKey();
  return (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
}

/** The warnings of a successful save, [] when the answer has none. */
function warningsOf(res: { status: number; text: string; body: any }): string[] {
  expect(res.status, res.text).toBe(200);
  return res.body.warnings ?? [];
}

const sendEmail = (html: string) => ({ type: 'SEND_EMAIL', subject: 'Hi', from_email: 'hello@acme.test', html });

describe('D26.7: unknown merge fields are named when content is saved', () => {
  it('a campaign with {{ frist_name }} is saved, with a warning naming frist_name', async () => {
    const call = await account();
    const res = await call('POST', '/api/v1/campaigns', { name: 'Typo', subject: 'Hello', html: '<p>Hi {{ frist_name }}</p>' });
    const warnings = warningsOf(res);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('{{ frist_name }}');
    expect(res.body.data.html).toBe('<p>Hi {{ frist_name }}</p>');
  });

  it('contact fields, a custom field in use (by its key or under custom_fields) and the links give none', async () => {
    const call = await account();
    expect((await call('POST', '/api/v1/contacts', { email: 'ada@example.com', custom_fields: { company: 'Acme' } })).status).toBe(200);
    const html =
      '<p>Hi {{ first_name | default: "there" }} {{ last_name }} ({{ email }}, {{ phone }}) of {{ company }} / {{ custom_fields.company }}</p>' +
      '<a href="{{ unsubscribe_url }}">Unsubscribe</a> <a href="{{ preferences_url }}">Preferences</a> <a href="{{ webview_url }}">View</a>' +
      '{% assign n = 2 %}{{ n }}';
    const res = await call('POST', '/api/v1/campaigns', { name: 'Known', subject: 'For {{ first_name }}', preheader: '{{ company }}', html, text: 'Hi {{ first_name }}' });
    expect(warningsOf(res)).toEqual([]);
    expect('warnings' in res.body).toBe(false);
  });

  it('a custom field no contact holds is named, in the subject, text or a variant too; once a contact holds it, it is not', async () => {
    const call = await account();
    const ab = { variants: [{ subject: 'A' }, { subject: 'B {{ city }}' }], ab_test: { test_percent: 20, metric: 'human_opens', wait_minutes: 60 } };
    const created = await call('POST', '/api/v1/campaigns', { name: 'Nick', subject: 'Hi {{ nickname }}', text: 'Plan {{ custom_fields.plan }}', ...ab });
    const named = warningsOf(created);
    expect(named).toHaveLength(3);
    for (const field of ['nickname', 'custom_fields.plan', 'city']) expect(named.join('\n')).toContain(`{{ ${field} }}`);
    expect((await call('POST', '/api/v1/contacts', { email: 'bo@example.com', custom_fields: { nickname: 'Bo', plan: 'pro', city: 'Oslo' } })).status).toBe(200);
    const again = await call('PUT', `/api/v1/campaigns/${created.body.data.id}`, { subject: 'Hi {{ nickname }}', text: 'Plan {{ custom_fields.plan }}', ...ab });
    expect(warningsOf(again)).toEqual([]);
  });

  it('an edit names the unknown fields of the content it gives; an edit of other fields names none', async () => {
    const call = await account();
    const { body } = await call('POST', '/api/v1/campaigns', { name: 'Edit' });
    const edited = await call('PUT', `/api/v1/campaigns/${body.data.id}`, { html: '<p>{{ frist_name }}</p>' });
    expect(warningsOf(edited)).toEqual([expect.stringContaining('{{ frist_name }}')]);
    expect(warningsOf(await call('PUT', `/api/v1/campaigns/${body.data.id}`, { name: 'Renamed' }))).toEqual([]);
  });

  it('{{ event.x }} in a campaign is named (only a workflow has an event); in a workflow SEND_EMAIL step it is not', async () => {
    const call = await account();
    const campaign = warningsOf(await call('POST', '/api/v1/campaigns', { name: 'Event', html: '<p>{{ event.x }}</p>' }));
    expect(campaign).toEqual([expect.stringMatching(/\{\{ event\.x \}\}.*workflow/)]);
    const workflow = await call('POST', '/api/v1/automations', { name: 'Flow', trigger: { type: 'EVENT', event: 'paid' }, steps: [sendEmail('<p>{{ event.x }} {{ first_name }}</p>')] });
    expect(warningsOf(workflow)).toEqual([]);
  });

  it("a workflow's SEND_EMAIL step with {{ frist_name }} is named, on create and on an update of its steps", async () => {
    const call = await account();
    const created = await call('POST', '/api/v1/automations', { name: 'Flow', trigger: { type: 'EVENT', event: 'paid' }, steps: [sendEmail('<p>{{ frist_name }}</p>')] });
    expect(warningsOf(created)).toEqual([expect.stringContaining('{{ frist_name }}')]);
    const updated = await call('PUT', `/api/v1/automations/${created.body.data.id}`, { steps: [{ type: 'WAIT', seconds: 60 }, sendEmail('<p>{{ lastname }}</p>')] });
    expect(warningsOf(updated)).toEqual([expect.stringContaining('{{ lastname }}')]);
    expect(warningsOf(await call('PUT', `/api/v1/automations/${created.body.data.id}`, { name: 'Renamed' }))).toEqual([]);
  });

  it("a template with {{ frist_name }} is named on create and update; a layout's {{ content }} slot is not", async () => {
    const call = await account();
    const starter = await call('POST', '/api/v1/templates', { name: 'Starter', kind: 'starter', format: 'html', body: '<p>{{ frist_name }}</p>' });
    expect(warningsOf(starter)).toEqual([expect.stringContaining('{{ frist_name }}')]);
    const fixed = await call('PUT', `/api/v1/templates/${starter.body.data.id}`, { body: '<p>{{ first_name }}</p>' });
    expect(warningsOf(fixed)).toEqual([]);
    const layout = await call('POST', '/api/v1/templates', { name: 'Layout', kind: 'layout', format: 'html', body: '<div>{{ content }}</div><a href="{{ unsubscribe_url }}">Unsubscribe</a>' });
    expect(warningsOf(layout)).toEqual([]);
    const edited = await call('PUT', `/api/v1/templates/${layout.body.data.id}`, { body: '<div>{{ content }}</div>{{ compnay }}' });
    expect(warningsOf(edited)).toEqual([expect.stringContaining('{{ compnay }}')]);
  });

  it("the content checks (GET /checks) report UNKNOWN_MERGE_FIELD for the content as sent, its layout's and subject's fields too", async () => {
    const call = await account();
    const layout = await call('POST', '/api/v1/templates', { name: 'Layout', kind: 'layout', format: 'html', body: '<div>{{ content }}</div><p>{{ compnay }}</p>' });
    const html = '<p>Hi {{ frist_name }} {{ first_name }}, plenty of words here so that the message reads well without images at all today.</p><a href="{{ unsubscribe_url }}">u</a>';
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Checked', subject: 'For {{ nick }}', html, text: 'own', template_id: layout.body.data.id });
    expect(campaign.status, campaign.text).toBe(200);
    const res = await call('GET', `/api/v1/campaigns/${campaign.body.data.id}/checks`);
    expect(res.status, res.text).toBe(200);
    const unknown = res.body.data.warnings.filter((w: { code: string }) => w.code === 'UNKNOWN_MERGE_FIELD').map((w: { message: string }) => w.message);
    expect(unknown).toHaveLength(3);
    for (const field of ['frist_name', 'compnay', 'nick']) expect(unknown.join('\n')).toContain(`{{ ${field} }}`);
    expect(res.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(['UNKNOWN_MERGE_FIELD', 'UNKNOWN_MERGE_FIELD', 'UNKNOWN_MERGE_FIELD']);
  });
});
