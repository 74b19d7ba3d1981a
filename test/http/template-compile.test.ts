/**
 * Issue 34: `POST /api/v1/templates/compile` (campaigns.write): content compiled to HTML as a
 * starter's body is (size, Liquid syntax, MJML under strict validation), Liquid kept, nothing
 * stored. The dashboard converts MJML to this HTML when a campaign's format changes to HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_LIMITS } from '../../src/domain/content/template-limits.ts';
import { expectError } from '../helpers/responses.ts';
import { startTestServer } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());

let key: string;
let accountId: number;
beforeAll(async () => {
  ({ key, accountId } = await server.createAccountWithKey());
});

const MJML = ['<mjml>', '  <mj-body>', '    <mj-section>', '      <mj-column>', '        <mj-text>Hi {{ first_name | default: "there" }}</mj-text>', '        <mj-button href="{{ webview_url }}">Open</mj-button>', '      </mj-column>', '    </mj-section>', '  </mj-body>', '</mjml>'].join('\n');
const compile = (body: unknown, apiKey = key) => server.request('POST', '/api/v1/templates/compile', { key: apiKey, body });

describe('POST /api/v1/templates/compile (issue 34)', () => {
  it('answers the HTML MJML compiles to, Liquid as written, and stores nothing', async () => {
    const before = await server.db.selectFrom('templates').select('id').where('account_id', '=', accountId).execute();
    const res = await compile({ format: 'mjml', body: MJML });
    expect(res.status, res.text).toBe(200);
    const { html } = res.body.data;
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('Hi {{ first_name | default: "there" }}');
    expect(html).toContain('href="{{ webview_url }}"');
    expect(html).not.toContain('<mj-');
    expect(await server.db.selectFrom('templates').select('id').where('account_id', '=', accountId).execute()).toEqual(before);
  });

  it('compiles Markdown and HTML too', async () => {
    expect((await compile({ format: 'markdown', body: '# Hello {{ first_name }}' })).body.data.html).toContain('<h1>Hello {{ first_name }}</h1>');
    expect((await compile({ format: 'html', body: '<p>Hi</p>' })).body.data.html).toContain('<p>Hi</p>');
  });

  it('refuses MJML that does not compile naming its line, bad Liquid naming the problem, and a body over the limit: 400', async () => {
    const bad = await compile({ format: 'mjml', body: '<mjml>\n<mj-body>\n<mj-sektion></mj-sektion>\n</mj-body>\n</mjml>' });
    expectError(bad, 400, 'INVALID_REQUEST');
    expect(bad.body.error.message).toMatch(/body line 3/);
    const liquid = await compile({ format: 'html', body: '<p>{{ first_name </p>' });
    expectError(liquid, 400, 'INVALID_REQUEST');
    expect(liquid.body.error.message).toMatch(/Liquid/);
    expectError(await compile({ format: 'html', body: 'x'.repeat(TEMPLATE_LIMITS.bytesMax + 1) }), 400, 'INVALID_REQUEST');
    expectError(await compile({ format: 'pdf', body: 'x' }), 400, 'INVALID_REQUEST');
  });

  it('is for roles that write campaigns: a read-only key is 403', async () => {
    const { key: readOnly } = await server.createKey(accountId, ['campaigns.read']);
    expectError(await compile({ format: 'html', body: '<p>Hi</p>' }, readOnly), 403, 'PERMISSION_DENIED');
  });
});
