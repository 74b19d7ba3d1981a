/**
 * D22: `/api/v1/templates` (campaigns.read / campaigns.write): the account's layouts and starters
 * beside the built-in gallery, which every account sees (`builtin: true`) and none may change
 * (409 INVALID_STATE). Bodies are checked and compiled when saved; `html` is the compiled result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_LIMITS } from '../../src/domain/content/template-limits.ts';
import { syncBuiltinTemplates } from '../../src/domain/templates/builtin-sync.ts';
import { BUILTIN_SOURCES, PUBLIC_URL_PLACEHOLDER } from '../../src/domain/templates/builtin-templates.ts';
import { expectError, expectRead, expectWritten } from '../helpers/responses.ts';
import { startTestServer } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());

let key: string;
let accountId: number;
beforeAll(async () => {
  ({ key, accountId } = await server.createAccountWithKey());
});

const LAYOUT = '<html><head><style>.wrap { padding: 8px; }</style></head><body><div class="wrap">{{ content }}</div><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p></body></html>';
const MJML_STARTER = ['<mjml>', '  <mj-body>', '    <mj-section>', '      <mj-column>', '        <mj-text>Hi {{ first_name | default: "there" }}</mj-text>', '      </mj-column>', '    </mj-section>', '  </mj-body>', '</mjml>'].join('\n');

async function create(body: Record<string, unknown>, apiKey = key): Promise<any> {
  const res = await server.request('POST', '/api/v1/templates', { key: apiKey, body: { name: 'Mine', kind: 'starter', format: 'html', body: '<p>Hello</p>', ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const builtinOf = async (builtinKey: string) => {
  const name = BUILTIN_SOURCES.find((t) => t.builtin_key === builtinKey)!.name;
  const res = await server.request('GET', '/api/v1/templates?size=100', { key });
  return res.body.data.templates.find((t: any) => t.builtin && t.name === name);
};

describe('the built-in gallery (D22)', () => {
  it('lists the six starters and the layouts first, each compiled to inlined HTML, Liquid kept', async () => {
    const res = await server.request('GET', '/api/v1/templates?size=100', { key });
    expect(res.status, res.text).toBe(200);
    const { templates } = res.body.data;
    const builtins = templates.filter((t: any) => t.builtin);
    expect(builtins.length).toBe(BUILTIN_SOURCES.length);
    for (const name of ['Newsletter', 'Announcement', 'Product showcase', 'Welcome', 'Event invitation', 'Plain letter']) {
      const t = builtins.find((b: any) => b.name === name);
      expect(t, name).toMatchObject({ kind: 'starter', format: 'mjml', builtin: true });
      expect(t.html).toMatch(/<td[^>]+style="/);
      expect(t.html).not.toMatch(/<mj-/);
      expect(t.html).toContain('href="{{ unsubscribe_url }}"');
      expect(t.body).toContain('<mjml>');
    }
    expect(builtins.filter((t: any) => t.kind === 'layout').length).toBeGreaterThanOrEqual(2);
    // every object is exactly the contract's
    expect(Object.keys(templates[0]).sort()).toEqual(['body', 'builtin', 'created_at', 'format', 'html', 'id', 'kind', 'name', 'updated_at']);
  });

  it('are written from the code at start-up, keeping their ids; a changed one is rewritten, even by several processes at once', async () => {
    const rows = async () => server.db.selectFrom('templates').select(['id', 'builtin_key', 'body', 'updated_at']).where('account_id', 'is', null).orderBy('id').execute();
    const before = await rows();
    expect(before.map((r) => r.builtin_key).sort()).toEqual(BUILTIN_SOURCES.map((t) => t.builtin_key).sort());
    // an older release's body, as a later start finds it
    await server.db.updateTable('templates').set({ body: 'old', compiled_html: 'old' }).where('builtin_key', '=', 'plain').execute();
    const { publicUrl } = server.core.config;
    await Promise.all([syncBuiltinTemplates(server.db, publicUrl), syncBuiltinTemplates(server.db, publicUrl), syncBuiltinTemplates(server.db, publicUrl)]);
    const after = await rows();
    expect(after.map((r) => [r.id, r.builtin_key])).toEqual(before.map((r) => [r.id, r.builtin_key]));
    // D26.4: as the code has it, its images on PUBLIC_URL
    expect(after.find((r) => r.builtin_key === 'plain')!.body).toBe(BUILTIN_SOURCES.find((t) => t.builtin_key === 'plain')!.body.replaceAll(PUBLIC_URL_PLACEHOLDER, publicUrl));
    // an unchanged one is not written again
    expect(String(after.find((r) => r.builtin_key === 'newsletter')!.updated_at)).toBe(String(before.find((r) => r.builtin_key === 'newsletter')!.updated_at));
    expect((await builtinOf('plain')).html).toContain('{{ unsubscribe_url }}');
  });

  it('cannot be changed or deleted: 409 INVALID_STATE; read alone is fine', async () => {
    const newsletter = await builtinOf('newsletter');
    expectRead(await server.request('GET', `/api/v1/templates/${newsletter.id}`, { key }), newsletter);
    expectError(await server.request('PUT', `/api/v1/templates/${newsletter.id}`, { key, body: { name: 'Hacked' } }), 409, 'INVALID_STATE', /built-in/);
    expectError(await server.request('DELETE', `/api/v1/templates/${newsletter.id}`, { key }), 409, 'INVALID_STATE', /built-in/);
    expect((await builtinOf('newsletter')).name).toBe('Newsletter');
  });
});

describe('own templates (D22)', () => {
  it('creates, reads, pages (built-ins first), updates and deletes', async () => {
    const created = await create({ name: '  Brand layout ', kind: 'layout', format: 'html', body: LAYOUT });
    expect(created).toMatchObject({ name: 'Brand layout', kind: 'layout', format: 'html', body: LAYOUT, builtin: false });
    // its CSS inlined, the slot kept
    expect(created.html).toContain('<div class="wrap" style="padding: 8px;">{{ content }}</div>');
    expectRead(await server.request('GET', `/api/v1/templates/${created.id}`, { key }), created);

    const first = await server.request('GET', `/api/v1/templates?size=${BUILTIN_SOURCES.length}`, { key });
    expect(first.body.data.templates.every((t: any) => t.builtin)).toBe(true);
    const second = await server.request('GET', `/api/v1/templates?size=${BUILTIN_SOURCES.length}&page=1`, { key });
    expect(second.body.data.templates.map((t: any) => t.id)).toContain(created.id);
    expect(second.body.data).toMatchObject({ page: 1, size: BUILTIN_SOURCES.length, totalElements: expect.any(Number) });
    const layouts = await server.request('GET', '/api/v1/templates?kind=layout&size=100', { key });
    expect(layouts.body.data.templates.every((t: any) => t.kind === 'layout')).toBe(true);
    expect(layouts.body.data.templates.map((t: any) => t.id)).toContain(created.id);

    const updated = await server.request('PUT', `/api/v1/templates/${created.id}`, { key, body: { name: 'Renamed', format: 'mjml', body: MJML_STARTER, kind: 'starter' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ id: created.id, name: 'Renamed', kind: 'starter', format: 'mjml', body: MJML_STARTER });
    expect(updated.body.data.html).toContain('Hi {{ first_name | default: "there" }}');
    const renamedOnly = await server.request('PUT', `/api/v1/templates/${created.id}`, { key, body: { name: 'Again' } });
    expect(renamedOnly.body.data).toMatchObject({ name: 'Again', body: MJML_STARTER, html: updated.body.data.html });

    expectWritten(await server.request('DELETE', `/api/v1/templates/${created.id}`, { key }), { id: created.id });
    expectError(await server.request('GET', `/api/v1/templates/${created.id}`, { key }), 404, 'TEMPLATE_NOT_FOUND');
  });

  it('compiles markdown, keeping Liquid in links', async () => {
    const t = await create({ format: 'markdown', body: '# Hi {{ first_name }}\n\n[Leave]({{ unsubscribe_url }})' });
    expect(t.html).toContain('<h1>Hi {{ first_name }}</h1>');
    expect(t.html).toContain('<a href="{{ unsubscribe_url }}">Leave</a>');
  });

  it('another account sees its own and the built-ins, never ours: 404 TEMPLATE_NOT_FOUND on every id route', async () => {
    const mine = await create({ name: 'Private' });
    const other = await server.createAccountWithKey();
    const theirs = await server.request('GET', '/api/v1/templates?size=100', { key: other.key });
    expect(theirs.body.data.templates.every((t: any) => t.builtin)).toBe(true);
    expectError(await server.request('GET', `/api/v1/templates/${mine.id}`, { key: other.key }), 404, 'TEMPLATE_NOT_FOUND');
    expectError(await server.request('PUT', `/api/v1/templates/${mine.id}`, { key: other.key, body: { name: 'x' } }), 404, 'TEMPLATE_NOT_FOUND');
    expectError(await server.request('DELETE', `/api/v1/templates/${mine.id}`, { key: other.key }), 404, 'TEMPLATE_NOT_FOUND');
    expect((await server.request('GET', `/api/v1/templates/${mine.id}`, { key })).body.data.name).toBe('Private');
  });

  it('404 TEMPLATE_NOT_FOUND for a missing id; 400 for an id that is not one (D2)', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const body = method === 'PUT' ? { name: 'x' } : undefined;
      expectError(await server.request(method, '/api/v1/templates/987654', { key, body }), 404, 'TEMPLATE_NOT_FOUND');
      expectError(await server.request(method, '/api/v1/templates/01', { key, body }), 400, 'INVALID_REQUEST');
    }
  });

  it('needs campaigns.read to read and campaigns.write to change; no key is 401', async () => {
    const t = await create({});
    const reader = await server.createKey(accountId, ['campaigns.read']);
    expect((await server.request('GET', `/api/v1/templates/${t.id}`, { key: reader.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/templates', { key: reader.key })).status).toBe(200);
    expectError(await server.request('POST', '/api/v1/templates', { key: reader.key, body: { name: 'x', kind: 'starter', format: 'html', body: 'x' } }), 403, 'PERMISSION_DENIED', /campaigns\.write/);
    expectError(await server.request('PUT', `/api/v1/templates/${t.id}`, { key: reader.key, body: { name: 'x' } }), 403, 'PERMISSION_DENIED');
    expectError(await server.request('DELETE', `/api/v1/templates/${t.id}`, { key: reader.key }), 403, 'PERMISSION_DENIED');
    const other = await server.createKey(accountId, ['contacts.read']);
    expectError(await server.request('GET', '/api/v1/templates', { key: other.key }), 403, 'PERMISSION_DENIED', /campaigns\.read/);
    expectError(await server.request('GET', `/api/v1/templates/${t.id}`, { key: other.key }), 403, 'PERMISSION_DENIED');
    expectError(await server.request('GET', '/api/v1/templates'), 401, 'UNAUTHORIZED');
    expectError(await server.request('POST', '/api/v1/templates', { body: { name: 'x', kind: 'starter', format: 'html', body: 'x' } }), 401, 'UNAUTHORIZED');
  });
});

describe('what a template may hold: 400 naming the problem (D22)', () => {
  const refused = async (body: Record<string, unknown>, names: RegExp) => {
    const res = await server.request('POST', '/api/v1/templates', { key, body: { name: 'Bad', kind: 'starter', format: 'html', body: '<p>x</p>', ...body } });
    expectError(res, 400, 'INVALID_REQUEST', names);
  };

  it('a layout without {{ content }}, or with it twice', async () => {
    await refused({ kind: 'layout', body: '<p>no slot</p>' }, /\{\{ content \}\}.*none/);
    await refused({ kind: 'layout', body: '<p>{{ content }}</p><p>{{content}}</p>' }, /exactly once; it has 2/);
    // a starter may hold none
    await create({ body: '<p>fine</p>' });
  });

  it('a starter made a layout on PUT gets the same check', async () => {
    const t = await create({ body: '<p>no slot</p>' });
    expectError(await server.request('PUT', `/api/v1/templates/${t.id}`, { key, body: { kind: 'layout' } }), 400, 'INVALID_REQUEST', /\{\{ content \}\}/);
  });

  it('MJML that does not compile names its line', async () => {
    const broken = MJML_STARTER.replace('<mj-text>', '<mj-text colour="red">');
    await refused({ format: 'mjml', body: broken }, /body line 5 has an MJML error.*colour/);
    await refused({ format: 'mjml', body: MJML_STARTER.replace('<mj-column>', '<mj-nonsense>').replace('</mj-column>', '</mj-nonsense>') }, /body line 4/);
    await refused({ format: 'mjml', body: 'just text' }, /body/);
  });

  it('a Liquid syntax error (D17.4)', async () => {
    await refused({ body: '<p>{% if first_name %}unclosed</p>' }, /body has a Liquid syntax error/);
    await refused({ body: '<p>{{ first_name | nosuchfilter }}</p>' }, /body has a Liquid syntax error/);
  });

  it('a body over the size limit, or with too many Liquid tags', async () => {
    await refused({ body: 'é'.repeat(TEMPLATE_LIMITS.bytesMax / 2 + 1) }, /body must be at most 262144 bytes/);
    await refused({ body: '{{ a }}'.repeat(TEMPLATE_LIMITS.tagsMax + 1) }, /at most 10000 Liquid tags/);
  });

  it('a bad kind or format, a missing field, a blank or long name', async () => {
    await refused({ kind: 'email' }, /kind/);
    await refused({ format: 'docx' }, /format/);
    expectError(await server.request('POST', '/api/v1/templates', { key, body: { name: 'x', kind: 'starter', format: 'html' } }), 400, 'INVALID_REQUEST', /body/);
    await refused({ name: '   ' }, /name must be 1-255 characters/);
    await refused({ name: 'x'.repeat(256) }, /name must be 1-255 characters/);
    const t = await create({});
    expectError(await server.request('PUT', `/api/v1/templates/${t.id}`, { key, body: { format: 'pdf' } }), 400, 'INVALID_REQUEST', /format/);
  });

  it('an unknown field is ignored and named in warnings, as everywhere (issue 15)', async () => {
    const res = await server.request('POST', '/api/v1/templates', { key, body: { name: 'W', kind: 'starter', format: 'html', body: '<p>x</p>', colour: 'red' } });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(['unknown field "colour" was ignored']);
  });
});

describe('a layout that campaigns use (D22)', () => {
  it('cannot be deleted, nor made a starter, while an unsent campaign uses it (409 naming it); once the campaign is SENT it can', async () => {
    const layout = await create({ name: 'In use', kind: 'layout', body: LAYOUT });
    const campaign = await server.request('POST', '/api/v1/campaigns', { key, body: { name: 'Spring sale', subject: 'Hi', html: '<p>x</p>' } });
    expect(campaign.status, campaign.text).toBe(200);
    // set directly: the campaigns API's template_id is another part of D22
    await server.db.updateTable('campaigns').set({ template_id: layout.id }).where('id', '=', campaign.body.data.id).execute();

    expectError(await server.request('DELETE', `/api/v1/templates/${layout.id}`, { key }), 409, 'INVALID_STATE', /Spring sale.*DRAFT/);
    expectError(await server.request('PUT', `/api/v1/templates/${layout.id}`, { key, body: { kind: 'starter' } }), 409, 'INVALID_STATE', /Spring sale/);
    // its body may still change (campaigns compile it again when saved or sent)
    expect((await server.request('PUT', `/api/v1/templates/${layout.id}`, { key, body: { body: LAYOUT.replace('Unsubscribe', 'Leave') } })).status).toBe(200);

    await server.db.updateTable('campaigns').set({ status: 'SENT' }).where('id', '=', campaign.body.data.id).execute();
    expectWritten(await server.request('DELETE', `/api/v1/templates/${layout.id}`, { key }), { id: layout.id });
  });
});
