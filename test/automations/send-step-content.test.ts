import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { activeAutomation, allEnded, event, waitForRuns } from './helpers.ts';

// Issue 34 item 11: a SEND_EMAIL step takes a format and a layout as a campaign does (D22), with the
// triggering event's data as {{ event.<key> }} (D26.7; a list join's is { list_id, list_name }),
// a server-rendered preview with sample event data, and the campaign page's content checks.

let sink: SmtpSink;
let server: TestServer;
const at = addressMaker('step-content');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.automationRunner.start();
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** The built-in layout or starter whose name starts with `name`. */
async function builtin(t: Tenant, name: string): Promise<{ id: number; body: string; kind: string; format: string }> {
  const res = await t.call('GET', '/api/v1/templates?size=100');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.templates.find((x: { builtin: boolean; name: string }) => x.builtin && x.name.startsWith(name));
}

const base = { type: 'SEND_EMAIL', subject: 'Welcome to {{ event.list_name }}', from_email: 'hello@acme.test', from_name: 'Acme' };

describe('issue 34 item 11: a SEND_EMAIL step with a template, a layout and a format', () => {
  it('a gallery starter in MJML inside the branded layout, sent on joining a list with the list merged from the event data', async () => {
    const t = await tenant(server);
    const listId = await t.list('Insiders');
    const layout = await builtin(t, 'Branded layout');
    const starter = await builtin(t, 'Welcome');
    expect(starter.format).toBe('mjml');
    const html = starter.body.replace('We are so glad you are here.', 'You joined {{ event.list_name }} (list {{ event.list_id }}).');
    expect(html).toContain('{{ event.list_name }}');
    const id = await activeAutomation(t, { trigger: { type: 'LIST_JOINED', list_id: listId }, steps: [{ ...base, html, format: 'mjml', template_id: layout.id }] });

    // The step reads back as given: its format and layout, never the server's compiled copy.
    const saved = (await t.call('GET', `/api/v1/automations/${id}`)).body.data;
    expect(saved.steps[0]).toMatchObject({ format: 'mjml', template_id: layout.id, html });
    expect(saved.steps[0]).not.toHaveProperty('compiled_html');

    await t.contact({ email: at('ann'), first_name: 'Ann' });
    await t.addToList(listId, [at('ann')]);
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history[0]).toMatchObject({ type: 'SEND_EMAIL', status: 'SENT' });
    const [mail] = sink.to(at('ann'));
    expect(mail.subject).toBe('Welcome to Insiders');
    const sent = mail.html as string;
    expect(sent).toContain('Welcome, Ann!');
    expect(sent).toContain(`You joined Insiders (list ${listId}).`);
    expect(sent).toContain('Your brand'); // the layout's header
    expect(sent).not.toMatch(/<mj-|\{\{/); // compiled, and every merge field filled
    expect(mail.text).toContain('You joined Insiders');
  });

  it('Markdown in the simple layout, with an event\'s data ({{ event.order_id }})', async () => {
    const t = await tenant(server);
    const layout = await builtin(t, 'Simple layout');
    const step = { ...base, subject: 'Order {{ event.order_id }}', format: 'markdown', template_id: layout.id, html: '# Thanks {{ first_name }}\n\nYour order **{{ event.order_id }}** is on its way.' };
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'ordered' }, steps: [step] });
    await t.contact({ email: at('bo'), first_name: 'Bo' });
    await event(server, t.key, { email: at('bo'), event: 'ordered', data: { order_id: 'A-42' } });
    await waitForRuns(t, id, allEnded(1));
    const [mail] = sink.to(at('bo'));
    expect(mail.subject).toBe('Order A-42');
    expect(mail.html).toMatch(/<h1[^>]*>Thanks Bo<\/h1>/);
    expect(mail.html).toContain('<strong>A-42</strong>');
  });

  it('a step saved without format or layout reads back and sends as before', async () => {
    const t = await tenant(server);
    const step = { ...base, subject: 'Plain', html: '<p>Hi {{ first_name }}, tag {{ event.tag }}</p>' };
    const id = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'vip' }, steps: [step] });
    expect((await t.call('GET', `/api/v1/automations/${id}`)).body.data.steps[0]).toEqual({ ...step, text: null });
    await t.contact({ email: at('cy'), first_name: 'Cy', tags: ['vip'] });
    await waitForRuns(t, id, allEnded(1));
    expect(sink.to(at('cy'))[0].html).toContain('<p>Hi Cy, tag vip</p>');
  });

  it('validates the format and the layout: 400 naming the field, 404 for a layout that is not the account\'s', async () => {
    const t = await tenant(server);
    const other = await tenant(server);
    const theirs = (await other.call('POST', '/api/v1/templates', { name: 'Theirs', kind: 'layout', format: 'html', body: '<div>{{ content }}</div>' })).body.data.id;
    const starter = await builtin(t, 'Welcome');
    const create = (step: Record<string, unknown>) => t.call('POST', '/api/v1/automations', { name: 'Flow', trigger: { type: 'EVENT', event: 'x' }, steps: [{ ...base, html: '<p>Hi</p>', ...step }] });

    const format = await create({ format: 'rtf' });
    expect(format.status).toBe(400);
    expect(format.body.error.message).toMatch(/format/);
    const notLayout = await create({ template_id: starter.id });
    expect(notLayout.status).toBe(400);
    expect(notLayout.body.error.message).toMatch(/template_id must name a layout/);
    for (const id of [theirs, 999_999_999]) {
      const missing = await create({ template_id: id });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('TEMPLATE_NOT_FOUND');
    }
    const mjml = await create({ format: 'mjml', html: '<mjml><mj-body>\n<mj-bogus/>\n</mj-body></mjml>' });
    expect(mjml.status).toBe(400);
    expect(mjml.body.error.message).toMatch(/steps\[0\]\.html/);
    expect((await t.call('GET', '/api/v1/automations')).body.data.totalElements).toBe(0);

    // An update is checked the same way, and another account's workflow is 404 before its body is read.
    const ok = await create({});
    expect(ok.status).toBe(200);
    const put = await t.call('PUT', `/api/v1/automations/${ok.body.data.id}`, { steps: [{ ...base, html: '<p>Hi</p>', template_id: theirs }] });
    expect(put.status).toBe(404);
    expect(put.body.error.code).toBe('TEMPLATE_NOT_FOUND');
    expect((await other.call('PUT', `/api/v1/automations/${ok.body.data.id}`, { steps: [{ ...base, html: '<p>Hi</p>', format: 'rtf' }] })).status).toBe(404);
  });
});

describe('issue 34 item 11: POST /api/v1/automations/preview', () => {
  it('renders the step compiled in its layout with sample event data, nothing tracked, with the campaign checks', async () => {
    const t = await tenant(server);
    const layout = await builtin(t, 'Simple layout');
    const res = await t.call('POST', '/api/v1/automations/preview', {
      subject: 'Order {{ event.order_id }}',
      html: 'Hi {{ first_name }}, order **{{ event.order_id }}** ![](https://example.com/a.png) {{ nope }}',
      format: 'markdown',
      template_id: layout.id,
      event: { order_id: 'S-1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const preview = res.body.data;
    expect(preview.subject).toBe('Order S-1');
    expect(preview.html).toContain('Hi Ann, order <strong>S-1</strong>');
    expect(preview.merge_data).toBe('sample');
    expect(preview.html).not.toContain('/t/o/');
    const codes = preview.warnings.map((w: { code: string }) => w.code);
    expect(codes).toEqual(expect.arrayContaining(['NO_TEXT_PART', 'MISSING_ALT', 'UNKNOWN_MERGE_FIELD']));
    expect(preview.warnings.find((w: { code: string }) => w.code === 'UNKNOWN_MERGE_FIELD').message).toContain('nope');
    // event.* is known in a workflow: no warning names it.
    expect(JSON.stringify(preview.warnings)).not.toContain('event.order_id');

    await t.contact({ email: at('dee'), first_name: 'Dee' });
    const forContact = (await t.call('POST', '/api/v1/automations/preview', { html: '<p>Hi {{ first_name }}</p>', email: at('dee') })).body.data;
    expect(forContact).toMatchObject({ merge_data: 'contact' });
    expect(forContact.html).toContain('Hi Dee');
  });

  it("refuses another account's layout and contact (404), a Liquid error and event data nested too deep (400); needs automation.read", async () => {
    const t = await tenant(server);
    const other = await tenant(server);
    const theirs = (await other.call('POST', '/api/v1/templates', { name: 'Theirs', kind: 'layout', format: 'html', body: '<div>{{ content }}</div>' })).body.data.id;
    await other.contact({ email: at('theirs') });
    const preview = (body: Record<string, unknown>, who = t) => who.call('POST', '/api/v1/automations/preview', { subject: 'Hi', html: '<p>Hi</p>', ...body });
    expect((await preview({ template_id: theirs })).body.error.code).toBe('TEMPLATE_NOT_FOUND');
    expect((await preview({ email: at('theirs') })).body.error.code).toBe('CONTACT_NOT_FOUND');
    const liquid = await preview({ html: '<p>{{ first_name </p>' });
    expect(liquid.status).toBe(400);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const nested = await preview({ event: deep });
    expect(nested.status).toBe(400);
    expect(nested.body.error.message).toMatch(/event must nest/);
    const reader = await tenant(server, ['lists.read']);
    expect((await preview({}, reader)).status).toBe(403);
    expect((await preview({}, await tenant(server, ['automation.read']))).status).toBe(200);
  });
});
