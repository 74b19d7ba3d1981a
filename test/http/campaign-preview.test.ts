import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { linksIn, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

// D22: POST /api/v1/campaigns/{id}/preview (campaigns.read) with optional { email }: { subject,
// html, text } rendered for that contact or for sample data; nothing sent, nothing tracked: no
// tracking or unsubscribe token in its links, no open pixel.

let server: TestServer;
let t: Tenant;
let list: number;

const CONTENT = {
  subject: 'For {{ first_name }} on {{ plan }}',
  preheader: 'A short line',
  html: '<html><body><h1>Hi {{ first_name }} {{ last_name }}, {{ plan }} member</h1><a href="https://example.com/a?x=1&amp;y=2">A</a> <a href="{{ webview_url }}">Browser</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
  text: null,
};

const preview = (id: number, body: Record<string, unknown> = {}) => t.call('POST', `/api/v1/campaigns/${id}/preview`, body);

/** No signed link of any kind (D16's tracking and unsubscribe, D20's preferences, D22's web view, D23's trap) and no pixel. */
function expectUntracked(html: string, text: string) {
  const { hrefs, imgs, traps } = linksIn(html);
  expect(imgs).toEqual([]);
  expect(traps).toEqual([]);
  expect(hrefs).toEqual(['https://example.com/a?x=1&y=2', '#', '#', '#']);
  for (const part of [html, text]) {
    expect(part).not.toMatch(/\/(t\/[oct]|u|p|w)\/[A-Za-z0-9_-]+\./);
    expect(part).not.toMatch(/sw-(link|open|unsubscribe|trap|preferences|webview):/);
  }
}

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
  list = await t.list('Empty for now');
  await t.contact({ email: 'kim@example.org', first_name: 'Kim', last_name: 'Park', custom_fields: { plan: 'Gold' } });
});
afterAll(() => server?.close());

describe('D22 campaign preview', () => {
  it("renders for a contact of the account, with that contact's fields", async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    const res = await preview(c.id, { email: 'KIM@example.org' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ subject: 'For Kim on Gold', merge_data: 'contact' });
    expect(res.body.data.html).toContain('<h1>Hi Kim Park, Gold member</h1>');
    expect(res.body.data.text).toMatch(/Hi Kim Park, Gold member/i);
    expectUntracked(res.body.data.html, res.body.data.text);
  });

  it("renders sample data without an email (no list member yet), filling the account's custom fields", async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    const res = await preview(c.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ subject: 'For Ann on plan', merge_data: 'sample' });
    expect(res.body.data.html).toContain('<h1>Hi Ann Example, plan member</h1>');
    expectUntracked(res.body.data.html, res.body.data.text);
  });

  it('sends nothing and stores nothing', async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    await preview(c.id, { email: 'kim@example.org' });
    expect(await server.db.selectFrom('test_sends').select('id').where('campaign_id', '=', c.id).execute()).toEqual([]);
    expect(await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', c.id).execute()).toEqual([]);
    expect(await server.db.selectFrom('dev_inbox').select('id').where('to_address', '=', 'kim@example.org').execute()).toEqual([]);
    expect((await t.getCampaign(c.id)).status).toBe('DRAFT');
  });

  it('previews an A/B variant when asked, the base content otherwise', async () => {
    const c = await t.campaign(sendable([list], { ...CONTENT, variants: [{ subject: 'Variant A {{ first_name }}' }, { subject: 'Variant B {{ first_name }}' }], ab_test: { test_percent: 20, metric: 'human_opens', wait_minutes: 60 } }));
    expect((await preview(c.id, { email: 'kim@example.org' })).body.data.subject).toBe('For Kim on Gold');
    expect((await preview(c.id, { email: 'kim@example.org', variant: 1 })).body.data.subject).toBe('Variant B Kim');
    const beyond = await preview(c.id, { variant: 2 });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.message).toMatch(/variant/);
  });

  it('404 CAMPAIGN_NOT_FOUND for a missing or foreign campaign, CONTACT_NOT_FOUND for an address that is no contact', async () => {
    expect((await preview(999_999)).body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    const other = await tenant(server);
    const theirs = await other.campaign({ name: 'Theirs', ...CONTENT });
    const foreign = await preview(theirs.id);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    await other.contact({ email: 'theirs@example.org', first_name: 'Not yours' });
    const c = await t.campaign(sendable([list], CONTENT));
    for (const email of ['nobody@example.org', 'theirs@example.org']) {
      const res = await preview(c.id, { email });
      expect(res.status, email).toBe(404);
      expect(res.body.error.code).toBe('CONTACT_NOT_FOUND');
    }
    expect((await preview(c.id, { email: 'not an address' })).status).toBe(400);
  });

  it('needs campaigns.read, and campaigns.read is enough', async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    const reader = await server.createKey(t.accountId, ['campaigns.read']);
    expect((await server.request('POST', `/api/v1/campaigns/${c.id}/preview`, { key: reader.key, body: {} })).status).toBe(200);
    const other = await server.createKey(t.accountId, ['contacts.read']);
    const denied = await server.request('POST', `/api/v1/campaigns/${c.id}/preview`, { key: other.key, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
  });

  it('a message over a render limit is 400 with the reason', async () => {
    const c = await t.campaign(sendable([list], { ...CONTENT, html: '<p>{% for i in (1..3000000) %}{{ i }}{% endfor %}</p>' }));
    const res = await preview(c.id);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/cannot be rendered: .*(longer than|larger than|more memory|writes more)/);
  });
});

describe('D22 campaign preview of unsaved content in another format or layout', () => {
  it('compiles unsaved Markdown or MJML as saving would, with CSS inlined, and shows an MJML error as 400 naming its line', async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    const markdown = await preview(c.id, { email: 'kim@example.org', format: 'markdown', html: '# Hello {{ first_name }}\n\n[Read](https://example.com/post)' });
    expect(markdown.status, markdown.text).toBe(200);
    expect(markdown.body.data.html).toMatch(/<h1[^>]*>Hello Kim<\/h1>/);
    expect(markdown.body.data.html).toContain('href="https://example.com/post"');

    const mjml = await preview(c.id, { format: 'mjml', html: '<mjml><mj-body><mj-section><mj-column><mj-text color="#123456">Hi {{ first_name }}</mj-text></mj-column></mj-section></mj-body></mjml>' });
    expect(mjml.status, mjml.text).toBe(200);
    expect(mjml.body.data.html).toMatch(/<div style="[^"]*color:\s*#123456[^"]*">Hi Ann<\/div>/);

    const broken = await preview(c.id, { format: 'mjml', html: '<mjml><mj-body>\n<mj-bogus/>\n</mj-body></mjml>' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toMatch(/line 2/);
    // The saved campaign is untouched: it still previews as its own HTML.
    const saved = await preview(c.id, { email: 'kim@example.org' });
    expect(saved.body.data.html).toContain('<h1>Hi Kim Park, Gold member</h1>');
  });

  it('an unsaved layout that is missing is 404 TEMPLATE_NOT_FOUND', async () => {
    const c = await t.campaign(sendable([list], CONTENT));
    const res = await preview(c.id, { template_id: 999999 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TEMPLATE_NOT_FOUND');
  });
});
