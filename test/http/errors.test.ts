/**
 * Cross-cutting error behaviour (D2, D6, D7, D9): bodies, media types, sizes, unknown routes, path
 * ids, paging edges and server failures, on every documented endpoint. The body checks are built
 * from each route's documented request schema, so a new route is covered as soon as it is documented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/api-keys/key-format.ts';
import { imageForm, png } from '../helpers/images.ts';
import { cases, documentedApi, future, label, NOT_FOUND_CODES, sessionOnlyRoutes, SIGN_IN_ROUTES, type Route } from '../helpers/routes.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const server = await startTestServer();
afterAll(() => server.close());

const { doc, routes, resolve, bodySchema, exampleBuilder } = await documentedApi(server);
const bodyRoutes = routes.filter((r) => bodySchema(r) !== undefined);
const idRoutes = routes.filter((r) => r.path.includes('{id}'));
const queryParam = (r: { op: any }, name: string) => (r.op.parameters ?? []).some((p: any) => p.in === 'query' && p.name === name);
/** D6's page/size routes; a history without bound (issue 34's contact timeline) pages by `cursor` instead. */
const pagedRoutes = routes.filter((r) => r.method === 'GET' && queryParam(r, 'size') && !queryParam(r, 'cursor'));
const cursorRoutes = routes.filter((r) => r.method === 'GET' && queryParam(r, 'size') && queryParam(r, 'cursor'));
const queryParamRoutes = routes.filter((r) => (r.op.parameters ?? []).some((p: any) => p.in === 'query' && !['page', 'size'].includes(p.name)));

/** D7: the reference form under /api/v1, the flat form under /v1. */
function errorBody(path: string, code: string, status: number) {
  if (path.startsWith('/v1/')) {
    const text: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 500: 'Internal Server Error' };
    return { success: false, error: text[status], code, message: expect.any(String) };
  }
  return { success: false, error: { code, message: expect.any(String) } };
}

function expectError(res: ApiResponse, path: string, status: number, code: string, what = '') {
  expect(res.status, `${what} ${res.text}`).toBe(status);
  expect(res.body, what).toEqual(errorBody(path, code, status));
}

// ---------------------------------------------------------------------------------------------
// Rows for the path parameters: three of everything, so paging has something to page

const admin = await server.createAccountWithKey(['*']);
const ids: Record<string, number> = {};
let email = '';

async function must(res: Promise<ApiResponse>, what: string): Promise<any> {
  const r = await res;
  if (r.status !== 200) throw new Error(`setup: ${what} answered ${r.status} ${r.text}`);
  return r.body.data;
}

beforeAll(async () => {
  const post = (path: string, body: unknown) => must(server.request('POST', path, { key: admin.key, body }), `POST ${path}`);
  for (let i = 1; i <= 3; i++) {
    // Public (D20), so a form may sign up to it.
    const list = await post('/api/v1/lists', { name: `errors list ${i}`, is_public: true });
    ids.lists ??= list.id;
    const contact = await post('/api/v1/contacts', { email: `errors-${i}@example.com`, list_id: ids.lists });
    email ||= contact.email;
    // Sendable, so the action routes (schedule, test send) accept a valid body.
    const campaign = await post('/api/v1/campaigns', { name: `errors campaign ${i}`, subject: 'Hi', from_email: 'news@example.com', html: '<p>Hi</p>', list_ids: [ids.lists] });
    ids.campaigns ??= campaign.id;
    const key = await post('/api/v1/api-keys', { name: `errors key ${i}`, permissions: ['lists.read'] });
    ids['api-keys'] ??= key.id;
    const automation = await post('/api/v1/automations', { name: `errors flow ${i}`, trigger: { type: 'EVENT', event: 'errors' }, steps: [{ type: 'WAIT', seconds: 60 }] });
    ids.automations ??= automation.id;
    // Runs for the runs page: the first automation, active, started by an event per round.
    if (i === 1) await post(`/api/v1/automations/${ids.automations}/activate`, undefined);
    await server.request('POST', '/v1/events', { key: admin.key, body: { email: `errors-${i}@example.com`, event: 'errors' } });
    // D18: segments matching every seeded contact, so their pages and member pages hold rows.
    const segment = await post('/api/v1/segments', { name: `errors segment ${i}`, filter: { field: 'email', op: 'ends_with', value: '@example.com' } });
    ids.segments ??= segment.id;
    const suppression = await post('/api/v1/suppressions', { value: `errors-suppressed-${i}@example.net` });
    ids.suppressions ??= suppression.id;
    const domain = await post('/api/v1/domains', { domain: `errors-${i}.example.net` });
    ids.domains ??= domain.id;
    const form = await post('/api/v1/forms', { name: `errors form ${i}`, list_ids: [ids.lists], fields: [{ name: 'email', label: 'E-mail' }] });
    ids.forms ??= form.id;
    // D22: the media library takes multipart uploads, not JSON.
    const media = await fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': admin.key }, body: imageForm(png(i + 1, 1)) });
    expect(media.status).toBe(200);
    ids.media ??= (await media.json()).data.id;

    // D22: an own template (the built-in gallery cannot be changed, 409)
    const template = await post('/api/v1/templates', { name: `errors template ${i}`, kind: 'starter', format: 'html', body: '<p>Hi {{ first_name }}</p>' });
    ids.templates ??= template.id;
    // D25: a scheduled message, so its cancel route has one to cancel.
    const message = await post('/api/v1/messages', { to: `errors-message-${i}@example.com`, from_email: 'app@example.com', subject: 'Hi', text: 'Hi', scheduled_at: future() });
    ids.messages ??= message.id;
    const webhook = await post('/api/v1/webhooks', { url: `https://hooks.example.com/errors-${i}`, event_types: ['email.sent'] });
    ids.webhooks ??= webhook.id;
    await post(`/api/v1/webhooks/${ids.webhooks}/test`, undefined);
    // D24.2: members (viewers, seeded directly: a `*` key reaches no owner) and D24.3's pending invitations.
    const member = await server.db.insertInto('users').values({ account_id: admin.accountId, email: `errors-member-${i}@example.com`, password_hash: 'unusable', role: 'viewer', created_at: new Date().toISOString() }).returning('id').executeTakeFirstOrThrow();
    ids.members ??= Number(member.id);
    const invitation = await post('/api/v1/invitations', { email: `errors-invitee-${i}@example.com`, role: 'viewer' });
    ids.invitations ??= invitation.id;
  }
  const sent = await post('/api/v1/campaigns', { name: 'errors sent campaign' });
  await server.db.updateTable('campaigns').set({ status: 'SENT', sent_at: new Date().toISOString() }).where('id', '=', sent.id).execute();
  ids.sentCampaign = sent.id;
  // Its ledger holds rows, so the recipients page has something to page (D19).
  for (const n of [1, 2, 3]) await server.db.insertInto('campaign_recipients').values({ campaign_id: sent.id, contact_id: null, email: `errors-sent-${n}@example.com`, status: 'SENT', sent_at: new Date().toISOString() }).execute();
});

function fillPath(template: string, id?: string): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
    if (name === 'email') return encodeURIComponent(email);
    if (id !== undefined) return id;
    // A follow-up needs a SENT campaign (D18); any other status is 409.
    if (/\/(follow-up|recipients)$/.test(template)) return String(ids.sentCampaign);
    return String(ids[template.slice(0, offset).split('/').filter(Boolean).at(-1)!] ?? 1);
  });
}

let serial = 0;
/** A body that passes the schema: hand-written where a made-up value would clash, else built from the schema. */
function validBody(r: Route): Record<string, unknown> {
  const n = ++serial;
  switch (label(r)) {
    case 'POST /api/v1/contacts':
      return { email: `errors-new-${n}@example.com` };
    case 'POST /api/v1/lists':
      return { name: `errors new list ${n}` };
    case 'POST /api/v1/lists/{id}/contacts':
      return { emails: [email] };
    case 'POST /api/v1/api-keys':
      return { name: `errors new key ${n}`, permissions: ['lists.read'] };
    case 'POST /api/v1/automations':
    case 'PUT /api/v1/automations/{id}':
      return { name: `errors new flow ${n}`, trigger: { type: 'TAG_ADDED', tag: 'errors' }, steps: [{ type: 'ADD_TAG', tag: 'seen' }] };
    case 'POST /api/v1/webhooks':
    case 'PUT /api/v1/webhooks/{id}':
      return { url: `https://hooks.example.com/errors-new-${n}`, event_types: ['email.sent'] };
    // The seeded segment's own filter, so a PUT leaves its member page holding rows.
    case 'POST /api/v1/segments':
    case 'PUT /api/v1/segments/{id}':
      return { name: `errors new segment ${n}`, filter: { field: 'email', op: 'ends_with', value: '@example.com' } };
    case 'POST /api/v1/suppressions':
      return { value: `errors-new-${n}@example.net` };
    case 'POST /api/v1/domains':
      return { domain: `errors-new-${n}.example.net` };
    case 'PUT /api/v1/domains/{id}':
      return { warmup: { enabled: false } };
    case 'POST /api/v1/forms':
    case 'PUT /api/v1/forms/{id}':
      return { name: `errors new form ${n}`, list_ids: [ids.lists], fields: [{ name: 'email', label: 'E-mail', required: true }] };
    case 'POST /api/v1/templates':
    case 'PUT /api/v1/templates/{id}':
      return { name: `errors new template ${n}`, kind: 'starter', format: 'html', body: '<p>Hi</p>' };
    case 'POST /api/v1/messages':
      return { to: `errors-message-${n}@example.com`, from_email: 'app@example.com', subject: 'Hi', text: 'Hi' };
    case 'POST /api/v1/messages/batch':
      return { messages: [{ to: `errors-message-${n}@example.com`, from_email: 'app@example.com', subject: 'Hi', text: 'Hi' }] };
    case 'POST /api/v1/segments/preview':
      return { filter: { field: 'email', op: 'ends_with', value: '@example.com' } };
    case 'POST /api/v1/invitations':
      return { email: `errors-new-invitee-${n}@example.com`, role: 'viewer' };
    case 'PUT /api/v1/members/{id}':
      return { role: 'viewer' };
    // Issue 34: a definition's key is D11's (a letter, then letters, digits or _).
    case 'PUT /api/v1/contacts/custom-fields':
      return { custom_fields: [{ key: `errors_field_${n}`, type: 'text' }] };
  }
  return exampleOf(bodySchema(r)) as Record<string, unknown>;
}

const exampleOf = exampleBuilder({ email: () => `errors-gen-${++serial}@example.com`, text: () => `sample ${++serial}` });

/** The schema's own options (anyOf branches, or itself). */
const branches = (schema: any): any[] => (resolve(schema).anyOf ?? resolve(schema).oneOf ?? [resolve(schema)]).map(resolve);

/** A value of a type the property does not accept (D7: a wrong type is 400). */
function wrongTypeFor(schema: any): unknown {
  const types = new Set(branches(schema).map((b) => b.type ?? ('const' in b ? typeof b.const : undefined)));
  if (types.has('string')) return 5;
  if (types.has('integer') || types.has('number')) return 'abc';
  if (types.has('boolean')) return 'yes';
  return 'not the right type';
}

/** Values a property's own limits refuse: over maxLength, under minLength, outside its enum. */
function outOfLimits(schema: any): [string, unknown][] {
  const out: [string, unknown][] = [];
  const bs = branches(schema);
  const str = bs.find((b) => b.type === 'string' && !('const' in b) && !b.enum);
  if (str?.maxLength !== undefined) out.push([`over ${str.maxLength} characters`, 'a'.repeat(str.maxLength + 1)]);
  if (str?.minLength) out.push(['empty', '']);
  const arr = bs.find((b) => b.type === 'array');
  if (arr?.maxItems !== undefined) out.push([`over ${arr.maxItems} items`, Array.from({ length: arr.maxItems + 1 }, (_, i) => exampleOf(arr.items ?? {}, `x${i}`))]);
  if (arr?.minItems) out.push(['an empty array', []]);
  if (bs.some((b) => 'const' in b && typeof b.const === 'string') || bs.some((b) => b.enum)) out.push(['an unknown enum value', 'NO_SUCH_VALUE']);
  const num = bs.find((b) => b.type === 'integer' || b.type === 'number');
  if (num?.minimum !== undefined) out.push([`below ${num.minimum}`, num.minimum - 1]);
  if (num?.maximum !== undefined) out.push([`above ${num.maximum}`, num.maximum + 1]);
  return out;
}

const send = (r: Route, opts: Parameters<typeof server.request>[2] = {}) => server.request(r.method, fillPath(r.path), { key: admin.key, ...opts });

// ---------------------------------------------------------------------------------------------

describe('the enumeration', () => {
  it('finds the body, id and paged routes of the route table in the OpenAPI document', () => {
    expect(bodyRoutes.map(label)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/contacts',
        'PUT /api/v1/contacts/{email}',
        'POST /api/v1/lists',
        'PUT /api/v1/lists/{id}',
        'POST /api/v1/lists/{id}/contacts',
        'POST /api/v1/campaigns',
        'PUT /api/v1/campaigns/{id}',
        'POST /api/v1/api-keys',
        'PUT /api/v1/api-keys/{id}',
      ]),
    );
    expect(idRoutes.length).toBeGreaterThanOrEqual(17);
    expect(pagedRoutes.map(label)).toEqual(expect.arrayContaining(SEEDED_PAGES));
  });
});

describe.each(cases(bodyRoutes))('request bodies: %s (D7)', (_name, route) => {
  const properties: [string, any][] = Object.entries(bodySchema(route).properties ?? {});
  const required: string[] = bodySchema(route).required ?? [];

  it('a valid body is accepted (the base of the cases below)', async () => {
    const res = await send(route, { body: validBody(route) });
    expect(res.status, res.text).toBeLessThan(300);
  });

  it('malformed JSON, or JSON that is not an object, is 400 INVALID_REQUEST', async () => {
    for (const raw of ['{"name": ', '{name: "x"}', "{'name': 'x'}", '{"a":1,}', '[1, 2', 'nul', '[]', '"text"', '42', 'null']) {
      expectError(await send(route, { rawBody: raw }), route.path, 400, 'INVALID_REQUEST', raw);
    }
  });

  it.each(properties)('a wrong type for %s is 400 naming the field', async (field, schema) => {
    const res = await send(route, { body: { ...validBody(route), [field]: wrongTypeFor(schema) } });
    expectError(res, route.path, 400, 'INVALID_REQUEST', field);
    expect(res.body.message ?? res.body.error.message).toContain(field);
  });

  it.each(properties.filter(([, s]) => outOfLimits(s).length > 0))('a value outside the limits of %s is 400 naming the field', async (field, schema) => {
    for (const [what, value] of outOfLimits(schema)) {
      const res = await send(route, { body: { ...validBody(route), [field]: value } });
      expectError(res, route.path, 400, 'INVALID_REQUEST', `${field}: ${what}`);
      expect(res.body.message ?? res.body.error.message, `${field}: ${what}`).toContain(field);
    }
  });

  const integerFields = properties.filter(([, schema]) => branches(schema).some((b) => b.type === 'integer' || (b.type === 'array' && resolve(b.items)?.type === 'integer')));
  it.each(integerFields)('an integer beyond any id (1e20) for %s is 400 naming the field, never a database error', async (field, schema) => {
    const huge = branches(schema).some((b) => b.type === 'array') ? [1e20] : 1e20;
    const res = await send(route, { body: { ...validBody(route), [field]: huge } });
    expectError(res, route.path, 400, 'INVALID_REQUEST', field);
    expect(res.body.message ?? res.body.error.message).toContain(field);
  });

  const stringFields = properties.filter(([, schema]) => branches(schema).some((b) => b.type === 'string' || (b.type === 'array' && resolve(b.items)?.type === 'string')));
  it.each(stringFields)('a NUL character in %s is 400 naming the field on every database, never a 500', async (field, schema) => {
    const base = validBody(route)[field];
    const text = `with\u0000nul${++serial}@example.com`;
    const value = branches(schema).some((b) => b.type === 'array') ? [text] : typeof base === 'string' ? base + '\u0000' : text;
    const res = await send(route, { body: { ...validBody(route), [field]: value } });
    expectError(res, route.path, 400, 'INVALID_REQUEST', field);
    expect(res.body.message ?? res.body.error.message).toContain(field);
  });

  it.runIf(required.length > 0)('a missing required field is 400 naming it', async () => {
    for (const field of required) {
      const { [field]: _omitted, ...rest } = validBody(route);
      const res = await send(route, { body: rest });
      expectError(res, route.path, 400, 'INVALID_REQUEST', field);
      expect(res.body.message ?? res.body.error.message).toContain(field);
    }
  });

  it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const json = JSON.stringify(validBody(route));
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      expectError(await send(route, { rawBody: json, headers: { 'content-type': type } }), route.path, 415, 'UNSUPPORTED_MEDIA_TYPE', type);
    }
  });

  it('a body over the limit is 413 PAYLOAD_TOO_LARGE (1 MiB; 10 MiB for the bulk import, D14)', async () => {
    // D25.1: the messages routes read up to 16 MiB (10 MiB of attachments, base64).
    const limit = route.path === '/v1/contacts/bulk' ? 10 * 1024 * 1024 : route.path.startsWith('/api/v1/messages') ? 16 * 1024 * 1024 : 1024 * 1024;
    const res = await send(route, { rawBody: paddedJson(validBody(route), limit + 1) });
    expectError(res, route.path, 413, 'PAYLOAD_TOO_LARGE');
  });
});

/** `base` plus an ignored field, padded to exactly `bytes` bytes of JSON. */
function paddedJson(base: object, bytes: number): string {
  const empty = JSON.stringify({ ...base, padding: '' });
  return JSON.stringify({ ...base, padding: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
}

describe('body edges', () => {
  it('a body of exactly 1 MiB is accepted, its unknown fields ignored (D7)', async () => {
    const raw = paddedJson({ name: 'exactly one mebibyte' }, 1024 * 1024);
    expect(Buffer.byteLength(raw)).toBe(1024 * 1024);
    const res = await server.request('POST', '/api/v1/lists', { key: admin.key, rawBody: raw });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'exactly one mebibyte', contact_count: 0 });
    expect(res.body.data).not.toHaveProperty('padding');
  });

  it('application/json with a charset is JSON', async () => {
    const res = await server.request('POST', '/api/v1/lists', { key: admin.key, rawBody: '{"name":"charset list"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('charset list');
  });

  it('a failed write leaves nothing behind: a malformed create adds no row', async () => {
    const before = await server.db.selectFrom('lists').select('id').where('account_id', '=', admin.accountId).execute();
    await server.request('POST', '/api/v1/lists', { key: admin.key, rawBody: '{"name": "half' });
    await server.request('POST', '/api/v1/lists', { key: admin.key, body: { name: 5 } });
    const after = await server.db.selectFrom('lists').select('id').where('account_id', '=', admin.accountId).execute();
    expect(after).toEqual(before);
  });
});

describe.each(cases(queryParamRoutes))('query parameters: %s (D7)', (_name, route) => {
  const params: any[] = (route.op.parameters ?? []).filter((p: any) => p.in === 'query' && !['page', 'size'].includes(p.name));
  // A repeated text parameter (an array of free strings, e.g. `tags`) takes any text, like a string one.
  const freeText = (b: any) => (b.type === 'string' || (b.type === 'array' && resolve(b.items)?.type === 'string')) && !('const' in b) && !b.enum;
  const checked = params.filter((p) => branches(p.schema).some((b) => !freeText(b)));

  it.runIf(checked.length > 0)('a value the parameter does not accept is 400 naming it', async () => {
    for (const p of checked) {
      const bad = branches(p.schema).some((b) => 'const' in b || b.enum) ? 'NO_SUCH_VALUE' : 'abc';
      const res = await server.request('GET', `${fillPath(route.path)}?${p.name}=${bad}`, { key: admin.key });
      expectError(res, route.path, 400, 'INVALID_REQUEST', p.name);
      expect(res.body.message ?? res.body.error.message).toContain(p.name);
    }
  });

  const texts = params.filter((p) => branches(p.schema).some(freeText));
  it.runIf(texts.length > 0)('a NUL character is 400 naming the parameter on every database, never a 500', async () => {
    for (const p of texts) {
      const res = await server.request('GET', `${fillPath(route.path)}?${p.name}=a%00b`, { key: admin.key });
      expectError(res, route.path, 400, 'INVALID_REQUEST', p.name);
      expect(res.body.message ?? res.body.error.message).toContain(p.name);
    }
  });

  const integers = params.filter((p) => branches(p.schema).some((b) => b.type === 'integer'));
  it.runIf(integers.length > 0)('an integer beyond any id (1e20) is 400 naming the parameter, never a database error', async () => {
    for (const p of integers) {
      const res = await server.request('GET', `${fillPath(route.path)}?${p.name}=100000000000000000000`, { key: admin.key });
      expectError(res, route.path, 400, 'INVALID_REQUEST', p.name);
      expect(res.body.message ?? res.body.error.message).toContain(p.name);
    }
  });
});

describe('unknown routes (D7)', () => {
  it('with a valid key: 404 NOT_FOUND in the reference form under /api/v1 and elsewhere, the flat form under /v1', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/no-such-thing'],
      ['POST', '/api/v1/no-such-thing'],
      ['DELETE', '/api/v1/lists/1/nothing-here'],
      ['PATCH', '/api/v1/lists'],
      ['GET', '/api'],
      ['GET', '/no-such-thing'],
      ['GET', '/v1/no-such-thing'],
      ['POST', '/v1/no-such-thing/1'],
    ]) {
      expectError(await server.request(method, path, { key: admin.key }), path, 404, 'NOT_FOUND', `${method} ${path}`);
    }
  });

  it('without a key, or with an unknown one: 401 first, in the family\'s form', async () => {
    for (const path of ['/api/v1/no-such-thing', '/v1/no-such-thing', '/no-such-thing']) {
      expectError(await server.request('GET', path), path, 401, 'UNAUTHORIZED', path);
      expectError(await server.request('GET', path, { key: generateKey() }), path, 401, 'UNAUTHORIZED', path);
    }
  });
});

describe('paths the router cannot take apart (D2, D7, D8)', () => {
  it('a path with broken percent-encoding: 401 without a key, 400 INVALID_REQUEST in the family form with one', async () => {
    for (const path of ['/api/v1/contacts/%E0%A4%A', '/api/v1/lists/%ZZ', '/v1/contacts/%E0%A4%A', '/no-such-thing/%']) {
      expectError(await server.request('GET', path), path, 401, 'UNAUTHORIZED', `${path} without a key`);
      expectError(await server.request('GET', path, { key: generateKey() }), path, 401, 'UNAUTHORIZED', `${path} with an unknown key`);
      expectError(await server.request('GET', path, { key: admin.key }), path, 400, 'INVALID_REQUEST', path);
    }
  });

  it('a very long path id or e-mail is looked up like any other: 401 without a key, else 404 with the resource code', async () => {
    const cases: [string, string][] = [
      [`/api/v1/lists/${'9'.repeat(1500)}`, 'LIST_NOT_FOUND'],
      [`/api/v1/campaigns/${'1'.repeat(5000)}/statistics`, 'CAMPAIGN_NOT_FOUND'],
      [`/api/v1/contacts/${'a'.repeat(2000)}%40example.com`, 'CONTACT_NOT_FOUND'],
    ];
    for (const [path, code] of cases) {
      expectError(await server.request('GET', path), path, 401, 'UNAUTHORIZED', `${path.slice(0, 30)} without a key`);
      expectError(await server.request('GET', path, { key: admin.key }), path, 404, code, path.slice(0, 30));
    }
  });
});

describe.each(cases(routes.filter((r) => r.path.includes('{email}'))))('path e-mails: %s', (_name, route) => {
  it('a NUL character in the e-mail is 400 naming it on every database, never a 500', async () => {
    const path = fillPath(route.path).replace(encodeURIComponent(email), 'a%00b%40example.com');
    const res = await server.request(route.method, path, { key: admin.key, body: bodySchema(route) ? validBody(route) : undefined });
    expectError(res, route.path, 400, 'INVALID_REQUEST');
    expect(res.body.message ?? res.body.error.message).toContain('email');
  });
});

describe.each(cases(idRoutes))('path ids: %s (D2)', (_name, route) => {
  const body = bodySchema(route) ? () => validBody(route) : () => undefined;

  it('an id that is not a positive integer is 400 INVALID_REQUEST naming the id', async () => {
    for (const id of ['0', '-5', 'abc', '1.0', '007', '1e3', '+1', '0x10', '00', '1abc']) {
      const res = await server.request(route.method, fillPath(route.path, id), { key: admin.key, body: body() });
      expectError(res, route.path, 400, 'INVALID_REQUEST', id);
      expect(res.body.message ?? res.body.error.message, id).toContain('id');
    }
  });

  it('a well-formed id that names nothing (even past 2^53) is 404 with the resource code', async () => {
    const code = NOT_FOUND_CODES[route.path.slice(0, route.path.indexOf('{id}')).split('/').filter(Boolean).at(-1)!];
    expect(code).toBeDefined();
    for (const id of ['987654321', '99999999999999999999999']) {
      const res = await server.request(route.method, fillPath(route.path, id), { key: admin.key, body: body() });
      expectError(res, route.path, 404, code, id);
    }
  });

  it('a bad id without a key is still 401 (authentication first, D8)', async () => {
    const res = await server.request(route.method, fillPath(route.path, 'abc'), { body: body() });
    expectError(res, route.path, 401, 'UNAUTHORIZED');
  });
});

const SEEDED_PAGES = ['GET /api/v1/contacts', 'GET /api/v1/lists', 'GET /api/v1/lists/{id}/contacts', 'GET /api/v1/campaigns', 'GET /api/v1/api-keys', 'GET /api/v1/webhooks', 'GET /api/v1/webhooks/{id}/deliveries', 'GET /api/v1/automations', 'GET /api/v1/automations/{id}/runs', 'GET /api/v1/segments', 'GET /api/v1/segments/{id}/contacts', 'GET /api/v1/suppressions', 'GET /api/v1/domains', 'GET /api/v1/forms', 'GET /api/v1/media', 'GET /api/v1/templates', 'GET /api/v1/campaigns/{id}/recipients', 'GET /api/v1/messages', 'GET /api/v1/members', 'GET /api/v1/invitations'];

describe.each(cases(pagedRoutes))('paging: %s (D6)', (_name, route) => {
  // Filled when a test runs: the seeded ids exist only after beforeAll.
  const pathNow = () => fillPath(route.path);
  const page = (query: string) => server.request('GET', `${pathNow()}?${query}`, { key: admin.key });
  const arrayOf = (data: any): [string, any[]] => {
    const arrays = Object.entries<any>(data).filter(([, v]) => Array.isArray(v));
    expect(arrays.length, 'exactly one array in the page').toBe(1);
    return arrays[0];
  };

  it('page < 0, size 0, size over 100, negative or non-integer values are 400 INVALID_REQUEST', async () => {
    for (const q of ['size=0', 'size=101', 'size=-1', 'size=abc', 'size=1.5', 'size=', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'page=1e400']) {
      const res = await page(q);
      expectError(res, route.path, 400, 'INVALID_REQUEST', q);
      expect(res.body.message ?? res.body.error.message, q).toContain(q.split('=')[0]);
    }
  });

  it('defaults to page 0 and size 20; size 100 and size 1 are accepted', async () => {
    const plain = await server.request('GET', pathNow(), { key: admin.key });
    expect(plain.status).toBe(200);
    expect(plain.body.data).toMatchObject({ page: 0, size: 20 });
    for (const size of [1, 100]) {
      const res = await page(`size=${size}&page=0`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page: 0, size });
      expect(arrayOf(res.body.data)[1].length).toBe(Math.min(size, res.body.data.totalElements));
    }
  });

  it('a page past the last is 200 with an empty array and the true totals; totalPages = ceil(total / size)', async () => {
    const all = await page('size=100');
    expect(all.status).toBe(200);
    const [name, items] = arrayOf(all.body.data);
    const total = all.body.data.totalElements;
    expect(total).toBe(items.length);
    // The seeded collections hold several rows, so "the true totals" are not trivially 0.
    if (SEEDED_PAGES.includes(label(route))) expect(total).toBeGreaterThanOrEqual(2);
    expect(all.body.data.totalPages).toBe(1);

    const byTwo = await page('size=2&page=0');
    expect(byTwo.body.data).toMatchObject({ totalElements: total, totalPages: Math.ceil(total / 2), page: 0, size: 2 });
    for (const p of [total, total + 5, 100000]) {
      const res = await page(`size=1&page=${p}`);
      expect(res.status, `page ${p}`).toBe(200);
      expect(res.body.data).toEqual({ [name]: [], page: p, size: 1, totalElements: total, totalPages: total });
    }
  });
});

describe.each(cases(cursorRoutes))('cursor paging: %s (issue 34)', (_name, route) => {
  const page = (query: string) => server.request('GET', `${fillPath(route.path)}?${query}`, { key: admin.key });

  it('size 0, over 100 or not an integer, and a cursor it did not give, are 400 INVALID_REQUEST naming them', async () => {
    for (const q of ['size=0', 'size=101', 'size=-1', 'size=abc', 'size=1.5', 'size=', 'cursor=abc', `cursor=${'A'.repeat(300)}`, 'cursor=%00']) {
      const res = await page(q);
      expectError(res, route.path, 400, 'INVALID_REQUEST', q);
      expect(res.body.message ?? res.body.error.message, q).toContain(q.split('=')[0]);
    }
  });

  it('defaults to size 20; size 1 and 100 are accepted; the last page has no next_cursor', async () => {
    const plain = await server.request('GET', fillPath(route.path), { key: admin.key });
    expect(plain.status).toBe(200);
    expect(plain.body.data).toMatchObject({ size: 20 });
    for (const size of [1, 100]) {
      const res = await page(`size=${size}`);
      expect(res.status).toBe(200);
      expect(res.body.data.size).toBe(size);
    }
    expect((await page('size=100')).body.data.next_cursor).toBeNull();
  });
});

describe('server failures (D7)', () => {
  it('answer 500 INTERNAL_ERROR with a message that shows nothing internal; a bad checksum still needs no database (D9)', async () => {
    const broken = await startTestServer();
    try {
      const { key } = await broken.createAccountWithKey(['*']);
      // One good request first, so the key is known without the database.
      expect((await broken.request('GET', '/api/v1/lists', { key })).status).toBe(200);
      await broken.core.handle.close();

      const attempts: [string, string, unknown][] = [
        ['GET', '/api/v1/lists', undefined],
        ['GET', '/api/v1/contacts/someone%40example.com', undefined],
        ['POST', '/api/v1/contacts', { email: 'someone@example.com' }],
        ['PUT', '/api/v1/lists/1', { name: 'x' }],
        ['GET', '/api/v1/api-keys/summary', undefined],
      ];
      for (const [method, path, body] of attempts) {
        const res = await broken.request(method, path, { key, body });
        expectError(res, path, 500, 'INTERNAL_ERROR', `${method} ${path}`);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const message: string = res.body.error.message;
        expect(message).not.toMatch(/\bselect\b|\binsert\b|\bupdate\b|\bfrom\b|sqlite|postgres|kysely|database|driver|destroyed|\.ts\b|\.js\b|\n\s+at |Error:/i);
        expect(res.text).not.toMatch(/stack|\n\s+at /);
      }

      const i = 12;
      const badChecksum = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
      expectError(await broken.request('GET', '/api/v1/lists', { key: badChecksum }), '/api/v1/lists', 401, 'UNAUTHORIZED', 'bad checksum');
    } finally {
      await broken.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The dashboard's routes under /api/v1/auth/ that take a body (D24.4-D24.6): the same body rules,
// with the session in place of a key; the signed-in person's routes find the session first (D8).

const ownBodyRoutes = sessionOnlyRoutes(doc).filter((r) => bodySchema(r) !== undefined);
const signInBodyRoutes = SIGN_IN_ROUTES.map((k) => k.split(' ')).flatMap(([method, path]) => (doc.paths[path]?.[method.toLowerCase()] ? [{ method, path, op: doc.paths[path][method.toLowerCase()] }] : [])).filter((r) => bodySchema(r) !== undefined);
const ownUser = { email: `errors-own-${Date.now()}@example.com`, password: 'errors own password' };
let own: { cookie: string; csrf: string };

beforeAll(async () => {
  await server.core.users.create(SYSTEM_ACTING, admin.accountId, ownUser);
  const res = await server.request('POST', '/api/v1/auth/login', { body: ownUser });
  own = { cookie: /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1], csrf: res.body.data.csrf_token };
});

const withOwnSession = (r: Route, opts: Parameters<typeof server.request>[2] = {}) =>
  server.request(r.method, r.path.replace(/\{\w+\}/g, 'unknown-session'), { ...opts, headers: { cookie: own.cookie, 'x-csrf-token': own.csrf, ...opts.headers } });

describe('the enumeration of /api/v1/auth/ body routes', () => {
  it('finds the D24.4-D24.6 routes with a body', () => {
    expect(ownBodyRoutes.map(label)).toEqual(expect.arrayContaining(['POST /api/v1/auth/password', 'POST /api/v1/auth/totp/enable', 'POST /api/v1/auth/totp/disable']));
    expect(signInBodyRoutes.map(label)).toEqual(expect.arrayContaining(['POST /api/v1/auth/password-reset', 'POST /api/v1/auth/password-reset/confirm', 'POST /api/v1/auth/login/totp']));
  });
});

describe.each(cases([...ownBodyRoutes, ...signInBodyRoutes]))('request bodies: %s (D7, D24)', (_name, route) => {
  const properties: [string, any][] = Object.entries(bodySchema(route).properties ?? {});
  const required: string[] = bodySchema(route).required ?? [];
  const valid = () => exampleOf(bodySchema(route)) as Record<string, unknown>;

  it('malformed JSON, or JSON that is not an object, is 400 INVALID_REQUEST', async () => {
    for (const raw of ['{"a": ', '[]', '"text"', 'null']) expectError(await withOwnSession(route, { rawBody: raw }), route.path, 400, 'INVALID_REQUEST', raw);
  });

  it.each(properties)('a wrong type for %s is 400 naming the field', async (field, schema) => {
    const res = await withOwnSession(route, { body: { ...valid(), [field]: wrongTypeFor(schema) } });
    expectError(res, route.path, 400, 'INVALID_REQUEST', field);
    expect(res.body.error.message).toContain(field);
  });

  it.each(properties)('a NUL character in %s is 400 naming the field', async (field) => {
    const res = await withOwnSession(route, { body: { ...valid(), [field]: 'with\u0000nul' } });
    expectError(res, route.path, 400, 'INVALID_REQUEST', field);
    expect(res.body.error.message).toContain(field);
  });

  it.runIf(required.length > 0)('a missing required field is 400 naming it', async () => {
    for (const field of required) {
      const { [field]: _omitted, ...rest } = valid();
      const res = await withOwnSession(route, { body: rest });
      expectError(res, route.path, 400, 'INVALID_REQUEST', field);
      expect(res.body.error.message).toContain(field);
    }
  });

  it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expectError(await withOwnSession(route, { rawBody: JSON.stringify(valid()), headers: { 'content-type': 'text/plain' } }), route.path, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it.runIf(sessionOnlyRoutes(doc).some((r) => label(r) === label(route)))('without a session a bad body is 401 first, and so with an API key (D8)', async () => {
    for (const opts of [{ rawBody: '{"a": ' }, { rawBody: '{"a": ', key: admin.key }]) {
      const res = await server.request(route.method, route.path, opts);
      expectError(res, route.path, 401, 'UNAUTHORIZED');
    }
  });
});

describe('D24.5: path ids of one\'s own sessions', () => {
  it('an unknown session id is 404 SESSION_NOT_FOUND; without a session it is 401 first', async () => {
    const res = await server.request('DELETE', '/api/v1/auth/sessions/unknown-session', { headers: { cookie: own.cookie, 'x-csrf-token': own.csrf } });
    expectError(res, '/api/v1/auth/sessions', 404, NOT_FOUND_CODES.sessions);
    expectError(await server.request('DELETE', '/api/v1/auth/sessions/unknown-session'), '/api/v1/auth/sessions', 401, 'UNAUTHORIZED');
  });
});
