/**
 * D22: campaigns' `format` (html, mjml, markdown) and `template_id` (a layout), compiled on every
 * save into the content the sender renders; the checks endpoint. Mail received by a real SMTP
 * server shows what was compiled: CSS inlined, merge fields rendered, links tracked, and a layout
 * edited after sending changing nothing that was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, linksIn, PUBLIC_URL, tenant, type Tenant } from '../sending/send-helpers.ts';
import { nowIso } from '../../src/domain/shared/time.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('formats');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** A template row as the templates API stores it (account null: a built-in one). */
async function template(accountId: number | null, kind: 'layout' | 'starter', format: string, body: string): Promise<number> {
  const now = nowIso();
  const row = await server.db
    .insertInto('templates')
    .values({ account_id: accountId, builtin_key: accountId === null ? `test-${kind}-${Math.random().toString(36).slice(2)}` : null, name: `${kind} ${format}`, kind, format, body, compiled_html: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

function expectError(res: ApiResponse, status: number, code: string, mentions?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (mentions) expect(res.body.error.message).toMatch(mentions);
}

const MJML = `<mjml>
  <mj-head><mj-style>.big { font-size: 22px; color: #123456; }</mj-style></mj-head>
  <mj-body>
    <mj-section><mj-column>
      <mj-text css-class="big">Hello {{ first_name }}</mj-text>
      <mj-button href="https://example.com/mjml">Open</mj-button>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;

const MJML_SECTIONS = `<mj-section><mj-column>
  <mj-text>Sections for {{ first_name }}</mj-text>
  <mj-button href="https://example.com/sections">Go</mj-button>
</mj-column></mj-section>`;

const MJML_LAYOUT = `<mjml>
  <mj-body>
    <mj-section><mj-column><mj-text>LAYOUT HEADER</mj-text></mj-column></mj-section>
    {{ content }}
    <mj-section><mj-column><mj-text><a href="{{ unsubscribe_url }}">Leave</a></mj-text></mj-column></mj-section>
  </mj-body>
</mjml>`;

const HTML_LAYOUT = `<html><head><style>.frame { border: 3px solid #abcdef; } @media (max-width: 600px) { .frame { border: 0; } }</style></head>
<body><div class="frame"><p>HTML LAYOUT TOP</p>{{ content }}</div></body></html>`;

const MARKDOWN = '# Big news\n\nHello **{{ first_name }}**, read [the post](https://example.com/md).';

describe('format and template_id on create, update and read (D22)', () => {
  it('each format saves, reads back and lists; html is the default', async () => {
    const plain = await t.campaign({ html: '<p>x</p>' });
    expect(plain.format).toBe('html');
    expect(plain.template_id).toBeNull();
    for (const [format, html] of [['mjml', MJML], ['markdown', MARKDOWN], ['html', '<p style="color:red">Hi</p>']] as const) {
      const c = await t.campaign({ format, html });
      expect(c).toMatchObject({ format, html, template_id: null });
      expect(await t.getCampaign(c.id)).toMatchObject({ format, html });
    }
    const listed = await t.call('GET', '/api/v1/campaigns?per_page=100');
    expect(listed.body.data.campaigns.every((c: any) => typeof c.format === 'string' && 'template_id' in c)).toBe(true);
  });

  it('stores compiled content: markdown as HTML, MJML compiled, CSS inlined', async () => {
    const md = await t.campaign({ format: 'markdown', html: MARKDOWN });
    const row = await server.db.selectFrom('campaigns').select(['compiled_html']).where('id', '=', md.id).executeTakeFirstOrThrow();
    expect(row.compiled_html).toContain('<h1');
    expect(row.compiled_html).toContain('{{ first_name }}');
    const mj = await t.campaign({ format: 'mjml', html: MJML });
    const mjRow = await server.db.selectFrom('campaigns').select(['compiled_html']).where('id', '=', mj.id).executeTakeFirstOrThrow();
    // mj-style's rule is inlined on the element with the class (mjml's own inline font-size stays: inline wins).
    expect(mjRow.compiled_html).toMatch(/class="big" style="[^"]*color:\s*#123456/);
  });

  it('update changes format and layout, and null removes the layout', async () => {
    const layout = await template(t.accountId, 'layout', 'html', HTML_LAYOUT);
    const c = await t.campaign({ html: MARKDOWN });
    const updated = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { format: 'markdown', template_id: layout });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ format: 'markdown', template_id: layout });
    let row = await server.db.selectFrom('campaigns').select(['compiled_html']).where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.compiled_html).toContain('HTML LAYOUT TOP');
    const cleared = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { template_id: null });
    expect(cleared.body.data.template_id).toBeNull();
    row = await server.db.selectFrom('campaigns').select(['compiled_html']).where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.compiled_html).not.toContain('HTML LAYOUT TOP');
  });

  it('a built-in layout may be used', async () => {
    const builtin = await template(null, 'layout', 'html', HTML_LAYOUT);
    const c = await t.campaign({ html: '<p>x</p>', template_id: builtin });
    expect(c.template_id).toBe(builtin);
  });

  it('template_id: 404 TEMPLATE_NOT_FOUND when missing or another account\'s, 400 for a starter', async () => {
    const other = await tenant(server);
    const foreign = await template(other.accountId, 'layout', 'html', HTML_LAYOUT);
    const starter = await template(t.accountId, 'starter', 'html', '<p>start here</p>');
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', template_id: 999999 }), 404, 'TEMPLATE_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', template_id: foreign }), 404, 'TEMPLATE_NOT_FOUND');
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', template_id: starter }), 400, 'INVALID_REQUEST', /template_id must name a layout/);
    const c = await t.campaign({ html: '<p>x</p>' });
    expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, { template_id: foreign }), 404, 'TEMPLATE_NOT_FOUND');
    expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, { template_id: starter }), 400, 'INVALID_REQUEST');
    expect((await t.getCampaign(c.id)).template_id).toBeNull();
  });

  it('an unknown format is 400', async () => {
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', format: 'docx' }), 400, 'INVALID_REQUEST');
  });

  it('an MJML error is 400 naming the line, on create and update, and nothing is saved', async () => {
    const broken = '<mjml>\n<mj-body>\n<mj-section>\n<mj-colum><mj-text>x</mj-text></mj-colum>\n</mj-section>\n</mj-body>\n</mjml>';
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', format: 'mjml', html: broken }), 400, 'INVALID_REQUEST', /html line 4/);
    const c = await t.campaign({ html: '<p>fine</p>' });
    expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, { format: 'mjml' }), 400, 'INVALID_REQUEST', /MJML/);
    expect((await t.getCampaign(c.id)).format).toBe('html');
    // An MJML layout whose slot holds HTML that is not MJML: the error says it is in the layout's compile.
    const variants = [{ html: MJML }, { html: '<mjml><mj-body><mj-bogus/></mj-body></mjml>' }];
    const res = await t.call('POST', '/api/v1/campaigns', { name: 'x', format: 'mjml', html: MJML, variants, ab_test: { test_percent: 10, metric: 'human_opens', wait_minutes: 5 } });
    expectError(res, 400, 'INVALID_REQUEST', /variants\[1\]\.html line 1/);
  });

  it('a Liquid error the layout brings in is 400', async () => {
    const layout = await template(t.accountId, 'layout', 'html', '<div>{% if %}{{ content }}</div>');
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', html: '<p>x</p>', template_id: layout }), 400, 'INVALID_REQUEST', /Liquid/);
  });
});

/** The body of the HTML part, for checks of inlined CSS. */
function styledElement(html: string, text: string): string {
  const i = html.indexOf(text);
  expect(i, `${text} in the mail`).toBeGreaterThan(-1);
  const open = html.lastIndexOf('<', html.lastIndexOf('<', i));
  return html.slice(open, i);
}

async function sendTo(body: Record<string, unknown>, who: string): Promise<ReceivedMessage> {
  const list = await t.list(`formats ${who}`);
  await t.contact({ email: at(who), first_name: 'Ann', list_id: list });
  const c = await t.campaign({ subject: 'Hi {{ first_name }}', from_email: 'news@acme.test', list_ids: [list], ...body });
  await t.send(c.id);
  await t.waitForStatus(c.id, 'SENT');
  const [mail] = sink.to(at(who));
  expect(mail).toBeDefined();
  return mail;
}

function expectRendered(mail: ReceivedMessage, target: string) {
  const html = mail.html as string;
  expect(html).toContain('Ann');
  expect(html).not.toContain('{{');
  const { hrefs } = linksIn(html);
  expect(hrefs.some((h) => h.startsWith(`${PUBLIC_URL}/t/c/`))).toBe(true);
  expect(hrefs).not.toContain(target);
}

describe('mail sent from each format (D22), received by an SMTP server', () => {
  it('html: CSS from a <style> block is inlined', async () => {
    const mail = await sendTo({ html: '<html><head><style>.note { color: #ff0000; }</style></head><body><p class="note">Dear {{ first_name }}</p><a href="https://example.com/h">h</a></body></html>' }, 'html');
    expectRendered(mail, 'https://example.com/h');
    expect(styledElement(mail.html as string, 'Dear Ann')).toMatch(/style="[^"]*color:\s*#ff0000/);
    expect(mail.html as string).not.toMatch(/<style[^>]*>[^<]*\.note/);
  });

  it('mjml', async () => {
    const mail = await sendTo({ format: 'mjml', html: MJML }, 'mjml');
    expectRendered(mail, 'https://example.com/mjml');
    expect(mail.html as string).toMatch(/class="big" style="[^"]*color:\s*#123456/);
    expect(mail.html as string).not.toMatch(/\.big\s*\{/);
  });

  it('markdown', async () => {
    const mail = await sendTo({ format: 'markdown', html: MARKDOWN }, 'markdown');
    expectRendered(mail, 'https://example.com/md');
    expect(mail.html as string).toMatch(/<h1[^>]*>Big news<\/h1>/);
    expect(mail.html as string).toContain('<strong>Ann</strong>');
  });

  it('mjml sections in an mjml layout, whose own unsubscribe link is used', async () => {
    const layout = await template(t.accountId, 'layout', 'mjml', MJML_LAYOUT);
    const mail = await sendTo({ format: 'mjml', html: MJML_SECTIONS, template_id: layout }, 'mjml-layout');
    expectRendered(mail, 'https://example.com/sections');
    const html = mail.html as string;
    expect(html).toContain('LAYOUT HEADER');
    expect(html).toContain('Sections for Ann');
    expect(html.match(/\/u\//g)?.length).toBeGreaterThan(0);
    expect(html).not.toContain('>Unsubscribe</a>'); // D16's footer link is not added: the layout placed one
  });

  it('markdown in an html layout, the layout\'s CSS inlined and its media query kept', async () => {
    const layout = await template(t.accountId, 'layout', 'html', HTML_LAYOUT);
    const mail = await sendTo({ format: 'markdown', html: MARKDOWN, template_id: layout }, 'md-layout');
    expectRendered(mail, 'https://example.com/md');
    const html = mail.html as string;
    expect(html).toMatch(/<div class="frame" style="[^"]*border:\s*3px solid #abcdef/);
    expect(html).toContain('@media');
  });

  it('a layout edited after the campaign was sent does not change what was sent; sending compiles the layout as it is then', async () => {
    const layout = await template(t.accountId, 'layout', 'html', '<div>FIRST VERSION {{ content }}</div>');
    const list = await t.list('snapshot');
    await t.contact({ email: at('snap1'), first_name: 'Ann', list_id: list });
    const c = await t.campaign({ subject: 'S', from_email: 'news@acme.test', list_ids: [list], html: '<p>{{ first_name }} <a href="https://example.com/s">s</a></p>', template_id: layout });
    // Edited after the campaign was saved, before it is sent: sending takes this version.
    await server.db.updateTable('templates').set({ body: '<div>SECOND VERSION <a href="https://example.com/layout-link">l</a> {{ content }}</div>' }).where('id', '=', layout).execute();
    await t.send(c.id);
    await t.waitForStatus(c.id, 'SENT');
    const [mail] = sink.to(at('snap1'));
    expect(mail.html as string).toContain('SECOND VERSION');
    // The stored link list is the snapshot's: both the layout's and the content's links are tracked.
    const links = await t.call('GET', `/api/v1/campaigns/${c.id}/links`);
    expect(links.body.data.links.map((l: any) => l.url)).toEqual(['https://example.com/layout-link', 'https://example.com/s']);
    await server.db.updateTable('templates').set({ body: '<div>THIRD VERSION {{ content }}</div>' }).where('id', '=', layout).execute();
    const row = await server.db.selectFrom('campaigns').select(['compiled_html']).where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.compiled_html).toContain('SECOND VERSION');
    const again = await t.call('GET', `/api/v1/campaigns/${c.id}/links`);
    expect(again.body.data.links.map((l: any) => l.url)).toEqual(['https://example.com/layout-link', 'https://example.com/s']);
  });

  it('a scheduled campaign compiles its layout as it is when its time comes; a layout gone by then fails it, saying why', async () => {
    const list = await t.list('scheduled snapshot');
    await t.contact({ email: at('sched1'), first_name: 'Ann', list_id: list });
    const start = async (layout: number) => {
      const c = await t.campaign({ subject: 'S', from_email: 'news@acme.test', list_ids: [list], html: '<p>{{ first_name }}</p>', template_id: layout });
      const res = await t.call('POST', `/api/v1/campaigns/${c.id}/schedule`, { scheduled_at: new Date(Date.now() + 3600_000).toISOString().slice(0, 19) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return c.id as number;
    };
    const layout = await template(t.accountId, 'layout', 'html', '<div>BEFORE {{ content }}</div>');
    const id = await start(layout);
    await server.db.updateTable('templates').set({ body: '<div>AT SEND TIME {{ content }}</div>' }).where('id', '=', layout).execute();
    const gone = await template(t.accountId, 'layout', 'html', '<div>{{ content }}</div>');
    const failing = await start(gone);
    await server.db.deleteFrom('templates').where('id', '=', gone).execute();
    await server.db.updateTable('campaigns').set({ scheduled_at: new Date(Date.now() - 1000).toISOString() }).where('id', 'in', [id, failing]).execute();
    await server.core.campaignLifecycle.startDueCampaigns(new Date().toISOString());
    await t.waitForStatus(id, 'SENT');
    expect(sink.to(at('sched1')).some((m) => (m.html as string).includes('AT SEND TIME'))).toBe(true);
    expect(await t.getCampaign(failing)).toMatchObject({ status: 'FAILED', error: `its layout (template_id ${gone}) no longer exists; choose another and send again` });
  });

  it('a test send uses the compiled content', async () => {
    const c = await t.campaign({ subject: 'Test', from_email: 'news@acme.test', format: 'markdown', html: MARKDOWN });
    const res = await t.call('POST', `/api/v1/campaigns/${c.id}/test`, { emails: [at('tester')] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const deadline = Date.now() + 10_000;
    while (sink.to(at('tester')).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(sink.to(at('tester'))[0].html as string).toMatch(/<h1[^>]*>Big news<\/h1>/);
  });
});

describe('GET /api/v1/campaigns/{id}/checks (D22)', () => {
  const checks = async (body: Record<string, unknown>) => {
    const c = await t.campaign(body);
    const res = await t.call('GET', `/api/v1/campaigns/${c.id}/checks`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data.warnings as { code: string; message: string }[]).map((w) => w.code);
  };
  const words = 'Plenty of words here so that the message is not only images, and a reader has something to read today. ';

  it('clean content has no warnings', async () => {
    expect(await checks({ html: `<p>${words}</p><a href="https://example.com">x</a> <a href="{{ unsubscribe_url }}">u</a>`, text: 'own' })).toEqual([]);
  });

  it('each warning code', async () => {
    expect(await checks({ html: `<p>${words}{{ unsubscribe_url }}</p>` })).toEqual(['NO_TEXT_PART']);
    expect(await checks({ html: '<img src="https://x.test/a.png" alt="a"> {{ unsubscribe_url }}', text: 't' })).toEqual(['IMAGE_ONLY']);
    expect(await checks({ html: `<p>${words}</p><img src="https://x.test/a.png"> {{ unsubscribe_url }}`, text: 't' })).toEqual(['MISSING_ALT']);
    expect(await checks({ html: `<p>${words.repeat(1100)}</p> {{ unsubscribe_url }}`, text: 't' })).toEqual(['HTML_OVER_102KB']);
    const noUnsub = await t.campaign({ html: `<p>${words}</p>`, text: 't' });
    const res = await t.call('GET', `/api/v1/campaigns/${noUnsub.id}/checks`);
    expect(res.body.data.warnings).toEqual([{ code: 'NO_UNSUBSCRIBE_LINK', message: expect.stringMatching(/added automatically/) }]);
    for (const href of ['', 'http//example.com', 'https://ex ample.com', 'javascript:alert(1)', 'https://x.test/a}}']) {
      expect(await checks({ html: `<p>${words}</p><a href="${href}">x</a> {{ unsubscribe_url }}`, text: 't' }), href).toEqual(['BROKEN_LINK_SYNTAX']);
    }
  });

  it('the layout counts: its unsubscribe link satisfies NO_UNSUBSCRIBE_LINK', async () => {
    const layout = await template(t.accountId, 'layout', 'html', '<div>{{ content }}<a href="{{ unsubscribe_url }}">bye</a></div>');
    expect(await checks({ html: `<p>${words}</p>`, text: 't', template_id: layout })).toEqual([]);
  });

  it('404 CAMPAIGN_NOT_FOUND, another account\'s too', async () => {
    expectError(await t.call('GET', '/api/v1/campaigns/999999/checks'), 404, 'CAMPAIGN_NOT_FOUND');
    const other = await tenant(server);
    const c = await other.campaign({ html: '<p>x</p>' });
    expectError(await t.call('GET', `/api/v1/campaigns/${c.id}/checks`), 404, 'CAMPAIGN_NOT_FOUND');
  });
});
