/**
 * Authentication and permissions on every endpoint (spec "Authentication", D8, D9).
 *
 * The endpoints come from the served OpenAPI document, so a new route is covered as soon as it is
 * documented. Routes in KNOWN_ROUTES get exact success expectations; any other documented route is
 * still held to every 401 and 403 rule, and must accept a valid key (not 401/403/429).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/api-keys/key-format.ts';
import { PERMISSIONS } from '../../src/domain/api-keys/permissions.ts';
import { cases, documentedApi, future, isDashboardSignIn, KNOWN_ROUTES, label, sessionOnlyRoutes, SIGN_IN_ROUTES, type Route } from '../helpers/routes.ts';
import { startTestServer, type ApiResponse, type RequestOptions } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());

// ---------------------------------------------------------------------------------------------
// The endpoints, from the served document

const { doc, routes, bodySchema, exampleBuilder } = await documentedApi(server);

/** The spec's permission table (without `*`); pinned against the spec in permissions.test.ts. */
const NAMED_PERMISSIONS = PERMISSIONS.filter((p) => p !== '*');

/** What each endpoint needs, from the spec's tables and D9, D11-D15. */
function requiredPermissions({ method, path }: Route): string[] {
  const read = method === 'GET';
  if (path.startsWith('/api/v1/api-keys')) return ['*'];
  // The dev inbox is not in the contract; it shows every message of the account, so it asks for `*`.
  if (path.startsWith('/api/v1/dev/')) return ['*'];
  // D24.8: the audit log is for admin reach: a session of an owner or admin, or a key with `*`.
  if (path === '/api/v1/audit-log') return ['*'];
  // Outbound webhooks carry every kind of the account's data, so registering one asks for `*`.
  if (path.startsWith('/api/v1/webhooks')) return ['*'];
  // D24.2, D24.3: members and invitations are an admin's; a key needs `*` (any session may list members).
  if (path.startsWith('/api/v1/members') || path.startsWith('/api/v1/invitations')) return ['*'];
  // Issue 34: the account's settings (its time zone) are an admin's, as members are; any session may read them.
  if (path === '/api/v1/account') return ['*'];
  // D19: the suppression list goes with contacts (removing an entry is a write, not a contact deletion).
  if (path.startsWith('/api/v1/suppressions')) return [read ? 'contacts.read' : 'contacts.write'];
  // D23: sending domains go with campaigns; verifying changes what is recorded, so it writes.
  if (path.startsWith('/api/v1/domains')) return [read ? 'campaigns.read' : 'campaigns.write'];
  // D22: the media library goes with campaigns, whose content shows its images.
  if (path.startsWith('/api/v1/media')) return [read ? 'campaigns.read' : 'campaigns.write'];
  // D21: erasing a person's data deletes the contact.
  if (path.startsWith('/api/v1/contacts') && path.endsWith('/erase')) return ['contacts.delete'];
  if (path.startsWith('/api/v1/contacts')) return [read ? 'contacts.read' : method === 'DELETE' ? 'contacts.delete' : 'contacts.write'];
  if (path.startsWith('/api/v1/lists')) return [read ? 'lists.read' : 'lists.write'];
  // D20: sign-up forms go with lists.
  if (path.startsWith('/api/v1/forms')) return [read ? 'lists.read' : 'lists.write'];
  // D22: templates go with campaigns.
  if (path.startsWith('/api/v1/templates')) return [read ? 'campaigns.read' : 'campaigns.write'];
  // D18: segments go with lists; a preview reads.
  if (path.startsWith('/api/v1/segments')) return [read || path.endsWith('/preview') ? 'lists.read' : 'lists.write'];
  if (path.startsWith('/api/v1/campaigns')) {
    if (read) return ['campaigns.read'];
    // D22's preview renders and sends nothing: a read.
    if (method === 'POST' && path.endsWith('/preview')) return ['campaigns.read'];
    return method === 'POST' && /\/(schedule|unschedule|send|test|retry-failed|pause|resume|cancel)$/.test(path) ? ['campaigns.send'] : ['campaigns.write'];
  }
  // Issue 34 item 11: a step's preview renders and sends nothing: a read, as a campaign's.
  if (path === '/api/v1/automations/preview') return ['automation.read'];
  if (path.startsWith('/api/v1/automations')) return [read ? 'automation.read' : 'automation.write'];
  // D25: sending a transactional message (or canceling one) is a send; reading them goes with campaigns.
  if (path.startsWith('/api/v1/messages')) return [read ? 'campaigns.read' : 'campaigns.send'];
  if (path === '/v1/contacts/bulk') return ['contacts.write'];
  if (path === '/v1/events') return ['contacts.write', 'automation.write'];
  if (path.startsWith('/v1/campaigns/')) return ['campaigns.read'];
  throw new Error(`no permission rule for ${method} ${path}: add it from the spec`);
}

/** The documented success status (D4: 200 under /api/v1; D14: 202 for events). */
const successStatus = (r: Route) => Math.min(...Object.keys(r.op.responses ?? {}).filter((s) => /^2\d\d$/.test(s)).map(Number));

// ---------------------------------------------------------------------------------------------
// Fixtures: real rows for the path parameters and bodies

const admin = await server.createAccountWithKey(['*']);
let serial = 0;

interface Fixture {
  email: string;
  listId: number;
  campaignId: number;
  scheduledCampaignId: number;
  sentCampaignId: number;
  /** issue 34: SENDING (for /pause and /cancel) or PAUSED (for /resume), made only for those routes */
  stateCampaignId: number;
  keyId: number;
  segmentId: number;
  domainId: number;
  memberId: number;
  invitationId: number;
}

async function must(res: Promise<ApiResponse>, what: string): Promise<any> {
  const r = await res;
  if (r.status !== 200) throw new Error(`setup: ${what} answered ${r.status} ${r.text}`);
  return r.body.data;
}

const fixtureDomains: number[] = [];

/**
 * A list, a contact in it, sendable DRAFT / SCHEDULED / SENT campaigns and a spare key, all the
 * admin's; and a sending domain, new only for the shared fixture and the routes that act on one
 * (`/domains/{id}`...): a domain's DKIM key costs about a quarter of a second, which for every
 * route was most of this file's time.
 */
async function fixture(route?: Route): Promise<Fixture> {
  const n = ++serial;
  const post = (path: string, body: unknown) => must(server.request('POST', path, { key: admin.key, body }), `POST ${path}`);
  const list = await post('/api/v1/lists', { name: `auth list ${n}` });
  const contact = await post('/api/v1/contacts', { email: `auth-${n}@example.com`, list_id: list.id });
  const content = { subject: 'Hello', from_email: 'news@example.com', html: '<p>Hi</p>', list_ids: [list.id] };
  const campaign = await post('/api/v1/campaigns', { name: `auth campaign ${n}`, ...content });
  // A SCHEDULED campaign holds its list (D26.1: the list cannot be deleted under it), so it has one of its own.
  const heldList = await post('/api/v1/lists', { name: `auth scheduled list ${n}` });
  const scheduled = await post('/api/v1/campaigns', { name: `auth scheduled ${n}`, ...content, list_ids: [heldList.id] });
  const sent = await post('/api/v1/campaigns', { name: `auth sent ${n}` });
  // States seeded directly, so these tests do not depend on the sending machinery.
  await server.db.updateTable('campaigns').set({ status: 'SCHEDULED', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() }).where('id', '=', scheduled.id).execute();
  await server.db.updateTable('campaigns').set({ status: 'SENT', sent_at: new Date().toISOString() }).where('id', '=', sent.id).execute();
  // Issue 34: a send under way for /pause and /cancel, a paused one for /resume (no sender runs in this file).
  let stateCampaignId = 0;
  const stateAction = route?.path.match(/\/(pause|resume|cancel)$/)?.[1];
  if (stateAction) {
    stateCampaignId = (await post('/api/v1/campaigns', { name: `auth ${stateAction} ${n}`, ...content })).id;
    await server.db.updateTable('campaigns').set({ status: stateAction === 'resume' ? 'PAUSED' : 'SENDING' }).where('id', '=', stateCampaignId).execute();
  }
  const key = await post('/api/v1/api-keys', { name: `auth spare ${n}`, permissions: ['contacts.read'] });
  const segment = await post('/api/v1/segments', { name: `auth segment ${n}`, filter: { field: 'lists', op: 'contains', value: list.id } });
  // Issue 28 M1 caps an account at 20 sending domains: a fixture's domain is spent once the next
  // fixtures are made (each test makes its own), so all but the shared one and the latest few go.
  let domainId = sharedFixture?.domainId;
  if (!route || route.path.startsWith('/api/v1/domains/')) {
    domainId = (await post('/api/v1/domains', { domain: `auth-${n}.example.com` })).id;
    if (n > 1) fixtureDomains.push(domainId!);
    while (fixtureDomains.length > 5) await server.db.deleteFrom('sending_domains').where('id', '=', fixtureDomains.shift()!).execute();
  }
  // D24.2, D24.3: a member (not an owner: a `*` key has an admin's reach) and a pending invitation, for the routes on one.
  let memberId = sharedFixture?.memberId ?? 0;
  if (!route || route.path.startsWith('/api/v1/members/')) memberId = await seedMember(admin.accountId, `auth-member-${n}@example.com`);
  let invitationId = sharedFixture?.invitationId ?? 0;
  if (!route || route.path.startsWith('/api/v1/invitations/')) invitationId = (await post('/api/v1/invitations', { email: `auth-invitee-${n}@example.com`, role: 'viewer' })).id;
  return { email: contact.email, listId: list.id, campaignId: campaign.id, scheduledCampaignId: scheduled.id, sentCampaignId: sent.id, stateCampaignId, keyId: key.id, segmentId: segment.id, domainId: domainId!, memberId, invitationId };
}

/** A dashboard user of the account, seeded directly (no password hash to compute): a viewer. */
async function seedMember(accountId: number, email: string): Promise<number> {
  const row = await server.db.insertInto('users').values({ account_id: accountId, email, password_hash: 'unusable', role: 'viewer', created_at: new Date().toISOString() }).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

function fillPath(template: string, fx: Fixture): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
    if (name === 'email') return encodeURIComponent(fx.email);
    const resource = template.slice(0, offset).split('/').filter(Boolean).at(-1);
    if (resource === 'lists') return String(fx.listId);
    if (resource === 'campaigns') {
      if (/\/(statistics|stats|follow-up)$/.test(template)) return String(fx.sentCampaignId);
      if (/\/(pause|resume|cancel)$/.test(template)) return String(fx.stateCampaignId);
      return String(template.endsWith('/unschedule') ? fx.scheduledCampaignId : fx.campaignId);
    }
    if (resource === 'api-keys') return String(fx.keyId);
    if (resource === 'segments') return String(fx.segmentId);
    if (resource === 'domains') return String(fx.domainId);
    if (resource === 'members') return String(fx.memberId);
    if (resource === 'invitations') return String(fx.invitationId);
    return '1';
  });
}

/** A valid body for the route: hand-written for the known ones, else built from the documented schema. */
function sampleBody(r: Route, fx: Fixture): unknown {
  const n = ++serial;
  switch (label(r)) {
    case 'POST /api/v1/contacts':
      return { email: `auth-new-${n}@example.com` };
    case 'PUT /api/v1/contacts/{email}':
      return { first_name: 'Ada' };
    case 'POST /api/v1/lists':
      return { name: `auth new list ${n}` };
    case 'PUT /api/v1/lists/{id}':
      return { description: 'changed' };
    case 'POST /api/v1/lists/{id}/contacts':
      return { emails: [fx.email] };
    case 'POST /api/v1/campaigns':
      return { name: `auth new campaign ${n}` };
    case 'PUT /api/v1/campaigns/{id}':
      return { subject: 'Hello' };
    case 'POST /api/v1/campaigns/{id}/schedule':
      return { scheduled_at: future() };
    case 'POST /api/v1/campaigns/{id}/test':
      return { emails: ['qa@example.com'] };
    case 'POST /api/v1/api-keys':
      return { name: `auth new key ${n}`, permissions: ['contacts.read'] };
    case 'PUT /api/v1/api-keys/{id}':
      return { description: 'changed' };
    case 'POST /api/v1/segments':
      return { name: `auth new segment ${n}`, filter: { field: 'tags', op: 'contains', value: 'vip' } };
    case 'PUT /api/v1/segments/{id}':
      return { description: 'changed' };
    case 'POST /api/v1/domains':
      return { domain: `auth-new-${n}.example.com` };
    case 'POST /api/v1/segments/preview':
      return { filter: { field: 'tags', op: 'contains', value: 'vip' } };
    // A `*` key has an admin's reach (D24.1): never an owner's role.
    case 'POST /api/v1/invitations':
      return { email: `auth-new-invitee-${n}@example.com`, role: 'viewer' };
    case 'PUT /api/v1/members/{id}':
      return { role: 'author' };
    case 'PUT /api/v1/account':
      return { time_zone: 'Europe/Paris' };
    // Not built from the schema: its first step shape is SEND_EMAIL, which needs campaigns.send too (issue 14 L3).
    case 'POST /api/v1/automations':
      return { name: `auth new automation ${n}`, trigger: { type: 'EVENT', event: 'signed_up' }, steps: [{ type: 'ADD_TAG', tag: 'new' }] };
    case 'PUT /api/v1/automations/{id}':
      return { steps: [{ type: 'ADD_TAG', tag: 'changed' }] };
  }
  const schema = bodySchema(r);
  return schema ? exampleOf(schema) : undefined;
}

const exampleOf = exampleBuilder({ email: () => `auth-gen-${++serial}@example.com`, text: () => `sample ${++serial}` });

const hasBody = (r: Route) => r.op.requestBody !== undefined;

async function call(r: Route, fx: Fixture, opts: RequestOptions = {}): Promise<ApiResponse> {
  return server.request(r.method, fillPath(r.path, fx), { body: hasBody(r) ? sampleBody(r, fx) : undefined, ...opts });
}

/** A valid key got through: the exact documented success for known routes, else at least not refused. */
function expectAccepted(r: Route, res: ApiResponse, how: string) {
  if (KNOWN_ROUTES.includes(label(r))) {
    expect(res.status, `${how}: ${res.text}`).toBe(successStatus(r));
    expect(res.body.success, how).toBe(true);
  } else {
    expect([401, 403, 429], `${how}: ${res.text}`).not.toContain(res.status);
    expect(res.status, how).toBeLessThan(500);
  }
}

const UNAUTHORIZED = { success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } };
const PERMISSION_DENIED = { success: false, error: { code: 'PERMISSION_DENIED', message: expect.any(String) } };
/** D7: the integration routes (/v1) answer errors in the flat form; the rest as above. */
const refusal = (path: string, code: 'UNAUTHORIZED' | 'PERMISSION_DENIED') =>
  path.startsWith('/v1/') ? { success: false, error: code === 'UNAUTHORIZED' ? 'Unauthorized' : 'Forbidden', code, message: expect.any(String) } : code === 'UNAUTHORIZED' ? UNAUTHORIZED : PERMISSION_DENIED;

// ---------------------------------------------------------------------------------------------
// Credentials that must all be refused

interface BadCredential {
  name: string;
  headers: Record<string, string>;
}
const badCredentials: BadCredential[] = [];
let sharedFixture: Fixture;

const bothForms = (name: string, key: string): BadCredential[] => [
  { name: `${name} (X-API-Key)`, headers: { 'x-api-key': key } },
  { name: `${name} (Bearer)`, headers: { authorization: `Bearer ${key}` } },
];

beforeAll(async () => {
  sharedFixture = await fixture();
  const keyApi = (id: number, action: string) => must(server.request('POST', `/api/v1/api-keys/${id}/${action}`, { key: admin.key }), action);
  /** A `*` key that has worked once (so a cached "valid" entry exists when it changes). */
  const usedKey = async (name: string, expires_at?: string) => {
    const k = await server.createKey(admin.accountId, ['*'], { name, expires_at });
    const res = await server.request('GET', '/api/v1/lists', { key: k.key });
    if (res.status !== 200) throw new Error(`setup: fresh key ${name} answered ${res.status}`);
    return k;
  };

  const expiresAtMs = Date.now() + 2000;
  const expiring = await usedKey('expiring', new Date(expiresAtMs).toISOString());
  const deactivated = await usedKey('deactivated');
  await keyApi(deactivated.id, 'deactivate');
  const revoked = await usedKey('revoked');
  await keyApi(revoked.id, 'revoke');
  const regenerated = await usedKey('regenerated');
  const renewed = await keyApi(regenerated.id, 'regenerate');
  const other = await usedKey('other valid key');

  // D9: a checksum that does not match; one character of a real, working key changed.
  const i = 10;
  const badChecksum = admin.key.slice(0, i) + (admin.key[i] === 'a' ? 'b' : 'a') + admin.key.slice(i + 1);

  badCredentials.push(
    { name: 'no header', headers: {} },
    { name: 'Authorization: Token <key>', headers: { authorization: `Token ${admin.key}` } },
    { name: 'Authorization: Basic <key>', headers: { authorization: `Basic ${admin.key}` } },
    { name: 'Authorization: Bearer with nothing after it', headers: { authorization: 'Bearer' } },
    { name: 'Authorization: <key> without the word Bearer', headers: { authorization: admin.key } },
    { name: 'empty X-API-Key', headers: { 'x-api-key': '' } },
    ...bothForms('unknown key with a valid checksum', generateKey()),
    ...bothForms('bad checksum', badChecksum),
    ...bothForms('deactivated key', deactivated.key),
    ...bothForms('permanently revoked key', revoked.key),
    ...bothForms('expired key', expiring.key),
    ...bothForms("a regenerated key's old value", regenerated.key),
    { name: 'X-API-Key and Bearer both valid but different', headers: { 'x-api-key': admin.key, authorization: `Bearer ${other.key}` } },
  );

  // The one wait of this file: until the expiring key is past its expiry.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAtMs - Date.now() + 200)));
  const states = await must(server.request('GET', '/api/v1/api-keys?size=100', { key: admin.key }), 'key list');
  const statusOf = (id: number) => states.api_keys.find((k: any) => k.id === id);
  expect(statusOf(expiring.id)).toMatchObject({ status: 'Expired', permanently_revoked: false });
  expect(statusOf(deactivated.id)).toMatchObject({ status: 'Revoked', permanently_revoked: false });
  expect(statusOf(revoked.id)).toMatchObject({ status: 'Revoked', permanently_revoked: true });
  expect(statusOf(regenerated.id)).toMatchObject({ status: 'Active' });
  expect(renewed.key).not.toBe(regenerated.key);
  // The new value works at once (spec: regenerate gives an Active key with a new value).
  expect((await server.request('GET', '/api/v1/lists', { key: renewed.key, auth: 'bearer' })).status).toBe(200);
}, 20_000);

// Keys lacking one permission each, made on first use.
const lackingKeys = new Map<string, string>();
async function keyLacking(permission: string): Promise<string> {
  let key = lackingKeys.get(permission);
  if (!key) {
    // Every named permission except the one needed (for `*`: every named one), so no other grants it.
    key = (await server.createKey(admin.accountId, NAMED_PERMISSIONS.filter((p) => p !== permission), { name: `lacks ${permission}` })).key;
    lackingKeys.set(permission, key);
  }
  return key;
}

// ---------------------------------------------------------------------------------------------

describe('the endpoint enumeration', () => {
  it('finds every route of the route table in the OpenAPI document, each with a permission rule', () => {
    expect(routes.length).toBeGreaterThanOrEqual(KNOWN_ROUTES.length);
    expect(routes.map(label)).toEqual(expect.arrayContaining(KNOWN_ROUTES));
    for (const r of routes) expect(() => requiredPermissions(r), label(r)).not.toThrow();
  });

  it('marks no API endpoint public (`security: []`) but the OpenAPI document, so the enumeration skips none of them', async () => {
    const open = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops)
        .filter(([, op]) => Array.isArray(op.security) && op.security.length === 0)
        .map(([m]) => ({ method: m.toUpperCase(), path })),
    );
    expect(open.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['GET /health', 'GET /ready', 'GET /api/v1/openapi.json']));
    for (const r of open) {
      if (r.path === '/api/v1/openapi.json' || isDashboardSignIn(r.path)) continue;
      expect(r.path, 'public route inside the API families').not.toMatch(/^\/(api\/)?v1\//);
    }
  });
});

describe.each(cases(routes))('%s', (_name, route) => {
  it('answers 401 UNAUTHORIZED with one identical body for every missing, malformed or unusable key (spec Authentication 3, D8, D9)', async () => {
    const baseline = await call(route, sharedFixture);
    expect(baseline.status).toBe(401);
    expect(baseline.body).toEqual(refusal(route.path, 'UNAUTHORIZED'));
    for (const cred of badCredentials) {
      const res = await call(route, sharedFixture, { headers: cred.headers });
      expect(res.status, cred.name).toBe(401);
      // The body never says whether the key exists (D8): byte for byte the same as with no key.
      expect(res.text, cred.name).toBe(baseline.text);
    }
  });

  it('accepts the key as X-API-Key, as Authorization: Bearer, and as both when they agree (D8)', async () => {
    expectAccepted(route, await call(route, await fixture(route), { key: admin.key, auth: 'x-api-key' }), 'X-API-Key');
    expectAccepted(route, await call(route, await fixture(route), { key: admin.key, auth: 'bearer' }), 'Bearer');
    const both = { 'x-api-key': admin.key, authorization: `Bearer ${admin.key}` };
    expectAccepted(route, await call(route, await fixture(route), { headers: both }), 'both headers, same key');
  });

  it('answers 403 PERMISSION_DENIED to a key lacking the permission, and lets a key holding exactly it through', async () => {
    const needed = requiredPermissions(route);
    for (const permission of needed) {
      const res = await call(route, sharedFixture, { key: await keyLacking(permission), auth: 'bearer' });
      expect(res.status, `without ${permission}: ${res.text}`).toBe(403);
      expect(res.body).toEqual(refusal(route.path, 'PERMISSION_DENIED'));
    }
    const exact = await server.createKey(admin.accountId, needed, { name: `exactly ${needed.join(' ')}` });
    expectAccepted(route, await call(route, await fixture(route), { key: exact.key }), `a key with exactly ${needed.join(', ')}`);
  });

  it.runIf(hasBody(route))('checks the key before the body: a bad key with a bad body is 401, a key lacking the permission with a bad body is 403 (D8)', async () => {
    const unknownKey = generateKey();
    const badBodies: [string, RequestOptions][] = [
      ['malformed JSON', { rawBody: '{"name": ' }],
      ['wrong types', { body: Object.fromEntries(Object.keys(exampleBodyProperties(route)).map((k) => [k, { not: 'valid' }])) }],
      ['text/plain', { rawBody: 'hello', headers: { 'content-type': 'text/plain' } }],
    ];
    const lacking = await keyLacking(requiredPermissions(route)[0]);
    for (const [what, opts] of badBodies) {
      const noKey = await server.request(route.method, fillPath(route.path, sharedFixture), opts);
      expect(noKey.status, `no key, ${what}`).toBe(401);
      expect(noKey.body, `no key, ${what}`).toEqual(refusal(route.path, 'UNAUTHORIZED'));
      const unknown = await server.request(route.method, fillPath(route.path, sharedFixture), { ...opts, key: unknownKey });
      expect(unknown.status, `unknown key, ${what}`).toBe(401);
      expect(unknown.body).toEqual(refusal(route.path, 'UNAUTHORIZED'));
      const denied = await server.request(route.method, fillPath(route.path, sharedFixture), { ...opts, headers: { ...opts.headers, 'x-api-key': lacking } });
      expect(denied.status, `key lacking the permission, ${what}`).toBe(403);
      expect(denied.body).toEqual(refusal(route.path, 'PERMISSION_DENIED'));
    }
  });
});

/** The documented body properties (all of them, so a wrong-type body is wrong everywhere). */
function exampleBodyProperties(r: Route): Record<string, unknown> {
  return bodySchema(r)?.properties ?? {};
}

describe('the `*` permission and the key-management endpoints', () => {
  it('a key holding every named permission but not `*` cannot manage keys (D9), a `*` key can', async () => {
    const named = await keyLacking('*');
    const res = await server.request('GET', '/api/v1/api-keys', { key: named });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(PERMISSION_DENIED);
    const star = await server.request('GET', '/api/v1/api-keys', { key: admin.key });
    expect(star.status).toBe(200);
    expect(star.body.success).toBe(true);
  });

  it('a deactivated key works again once activated (spec key states: Revoked -> Active)', async () => {
    const k = await server.createKey(admin.accountId, ['lists.read'], { name: 'reactivated' });
    expect((await server.request('GET', '/api/v1/lists', { key: k.key })).status).toBe(200);
    expect((await server.request('POST', `/api/v1/api-keys/${k.id}/deactivate`, { key: admin.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/lists', { key: k.key })).status).toBe(401);
    expect((await server.request('POST', `/api/v1/api-keys/${k.id}/activate`, { key: admin.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/lists', { key: k.key })).status).toBe(200);
  });

  it('a deleted key is refused at once', async () => {
    const k = await server.createKey(admin.accountId, ['lists.read'], { name: 'deleted' });
    expect((await server.request('GET', '/api/v1/lists', { key: k.key })).status).toBe(200);
    expect((await server.request('DELETE', `/api/v1/api-keys/${k.id}`, { key: admin.key })).status).toBe(200);
    const res = await server.request('GET', '/api/v1/lists', { key: k.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('a permission removed by PUT is refused from the next request (D9)', async () => {
    const k = await server.createKey(admin.accountId, ['lists.read', 'contacts.read'], { name: 'narrowed' });
    expect((await server.request('GET', '/api/v1/lists', { key: k.key })).status).toBe(200);
    const put = await server.request('PUT', `/api/v1/api-keys/${k.id}`, { key: admin.key, body: { permissions: ['contacts.read'] } });
    expect(put.status).toBe(200);
    const res = await server.request('GET', '/api/v1/lists', { key: k.key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(PERMISSION_DENIED);
    expect((await server.request('GET', '/api/v1/contacts', { key: k.key })).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// The dashboard's own routes under /api/v1/auth/ (D24.5, D24.6, /me, /logout): about the signed-in
// person, so a session only. A key, valid or not, is 401 with the body a missing session gets.

const ownRoutes = sessionOnlyRoutes(doc);

describe("the signed-in person's routes under /api/v1/auth/ refuse API keys", () => {
  it('finds them in the document: every /api/v1/auth/ route is a sign-in route or one of these', () => {
    expect(ownRoutes.map(label)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/auth/me',
        'POST /api/v1/auth/logout',
        'POST /api/v1/auth/password',
        'GET /api/v1/auth/sessions',
        'DELETE /api/v1/auth/sessions/{session_id}',
        'POST /api/v1/auth/totp/setup',
        'POST /api/v1/auth/totp/enable',
        'POST /api/v1/auth/totp/disable',
      ]),
    );
    const documented = Object.entries<any>(doc.paths)
      .filter(([path]) => isDashboardSignIn(path))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.filter((k) => !SIGN_IN_ROUTES.includes(k) && !ownRoutes.map(label).includes(k))).toEqual([]);
  });

  it.each(cases(ownRoutes))('%s: 401 UNAUTHORIZED without a session, and the same for a valid `*` key in either header', async (_name, route) => {
    const path = route.path.replace(/\{\w+\}/g, 'some-id');
    const body = route.op.requestBody ? {} : undefined;
    const none = await server.request(route.method, path, { body });
    expect(none.status, none.text).toBe(401);
    expect(none.body).toEqual(UNAUTHORIZED);
    for (const auth of ['x-api-key', 'bearer'] as const) {
      const res = await server.request(route.method, path, { body, key: admin.key, auth });
      expect(res.status, `${auth}: ${res.text}`).toBe(401);
      expect(res.text, auth).toBe(none.text);
    }
  });
});
