/**
 * D3: every account's data is its own. Account B's `*` key meets account A's resources exactly as
 * missing ones (404 with the resource's NOT_FOUND code), changes nothing of A's, and never sees
 * A's rows in its pages. The routes come from the served OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageForm, png } from '../helpers/images.ts';
import { cases, documentedApi, KNOWN_ROUTES, label, NOT_FOUND_CODES, type Route } from '../helpers/routes.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const server = await startTestServer();
afterAll(() => server.close());

const { doc, routes, bodySchema, exampleBuilder } = await documentedApi(server);
const idRoutes = routes.filter((r) => r.path.includes('{'));
const pagedRoutes = routes.filter((r) => r.method === 'GET' && !r.path.includes('{') && (r.op.parameters ?? []).some((p: any) => p.name === 'size'));

/** The id- and e-mail-taking routes of the route table today; the document must hold at least these. */
const KNOWN_ID_ROUTES = KNOWN_ROUTES.filter((r) => r.includes('{'));

/** D7: the resource a path names (its first path parameter's collection), for its NOT_FOUND code. */
const resourceOf = (path: string) => path.slice(0, path.indexOf('{')).split('/').filter(Boolean).at(-1)!;

// ---------------------------------------------------------------------------------------------
// Two accounts with real rows

const a = await server.createAccountWithKey(['*']);
const b = await server.createAccountWithKey(['*']);
const SHARED_EMAIL = 'shared@example.com';
const A_ONLY_EMAIL = 'only-in-a@example.com';

interface Owned {
  listId: number;
  listName: string;
  campaignId: number;
  sentCampaignId: number;
  keyId: number;
  keyValue: string;
  contactId: number;
  sharedContactId: number;
  webhookId: number;
  automationId: number;
  segmentId: number;
  suppressionId: number;
  domainId: number;
  formId: number;
  mediaId: number;

  templateId: number;
  messageId: number;
  memberId: number;
  invitationId: number;
}
let A: Owned;
let B: Owned;

async function must(res: Promise<ApiResponse>, what: string): Promise<any> {
  const r = await res;
  if (r.status !== 200) throw new Error(`setup: ${what} answered ${r.status} ${r.text}`);
  return r.body.data;
}

async function seed(key: string, accountId: number, tag: string, ownEmail: string): Promise<Owned> {
  const post = (path: string, body: unknown) => must(server.request('POST', path, { key, body }), `POST ${path}`);
  // Public (D20), so a form may sign up to it.
  const list = await post('/api/v1/lists', { name: `${tag} list`, is_public: true });
  const contact = await post('/api/v1/contacts', { email: ownEmail, first_name: tag, tags: [tag], list_id: list.id });
  const shared = await post('/api/v1/contacts', { email: SHARED_EMAIL, first_name: `${tag} shared`, list_id: list.id });
  // Sendable, so a send, schedule or test send with the wrong account's key can only fail on the lookup.
  const campaign = await post('/api/v1/campaigns', { name: `${tag} campaign`, subject: tag, from_email: 'news@example.com', html: '<p>Hi</p>', list_ids: [list.id] });
  // A test send leaves a message in the account's dev inbox (when that route exists), so that page has rows too.
  if (doc.paths['/api/v1/campaigns/{id}/test']) await post(`/api/v1/campaigns/${campaign.id}/test`, { emails: [`qa-${tag.toLowerCase()}@example.com`] });
  const sent = await post('/api/v1/campaigns', { name: `${tag} sent campaign` });
  // Statistics need a SENT campaign and no API sends yet: the row is marked sent directly.
  await server.db.updateTable('campaigns').set({ status: 'SENT', sent_at: new Date().toISOString() }).where('id', '=', sent.id).execute();
  const k = await server.createKey(accountId, ['contacts.read'], { name: `${tag} spare key` });
  const webhook = await post('/api/v1/webhooks', { url: `https://hooks.example.com/${tag}`, event_types: ['email.sent'] });
  const automation = await post('/api/v1/automations', { name: `${tag} flow`, trigger: { type: 'LIST_JOINED', list_id: list.id }, steps: [{ type: 'ADD_TAG', tag }] });
  const segment = await post('/api/v1/segments', { name: `${tag} segment`, filter: { field: 'tags', op: 'contains', value: tag } });
  const suppression = await post('/api/v1/suppressions', { value: `suppressed-${tag.toLowerCase()}@example.com` });
  const domain = await post('/api/v1/domains', { domain: 'shared.example.com' });
  const form = await post('/api/v1/forms', { name: `${tag} form`, list_ids: [list.id], fields: [{ name: 'email', label: 'E-mail' }] });
  // D22: an image of the account's library (a multipart upload, not JSON).
  const media = await fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(png(2, 2)) });
  expect(media.status).toBe(200);

  const template = await post('/api/v1/templates', { name: `${tag} layout`, kind: 'layout', format: 'html', body: '<div>{{ content }}</div>' });
  // D25: a scheduled message, so B's cancel with A's id has something of A's to leave alone.
  const message = await post('/api/v1/messages', { to: ownEmail, from_email: 'app@example.com', subject: tag, text: 'Hi', scheduled_at: new Date(Date.now() + 86_400_000).toISOString().slice(0, 19) });
  // D24.2, D24.3: a member (a viewer, seeded directly) and a pending invitation.
  const member = await server.db.insertInto('users').values({ account_id: accountId, email: `member-${tag.toLowerCase()}@example.com`, password_hash: 'unusable', role: 'viewer', created_at: new Date().toISOString() }).returning('id').executeTakeFirstOrThrow();
  const invitation = await post('/api/v1/invitations', { email: `invitee-${tag.toLowerCase()}@example.com`, role: 'viewer' });
  return {
    memberId: Number(member.id),
    invitationId: invitation.id,
    messageId: message.id,
    listId: list.id,
    listName: list.name,
    campaignId: campaign.id,
    sentCampaignId: sent.id,
    keyId: k.id,
    keyValue: k.key,
    contactId: contact.id,
    sharedContactId: shared.id,
    webhookId: webhook.id,
    automationId: automation.id,
    segmentId: segment.id,
    suppressionId: suppression.id,
    domainId: domain.id,
    formId: form.id,
    mediaId: (await media.json()).data.id as number,

    templateId: template.id,
  };
}

beforeAll(async () => {
  A = await seed(a.key, a.accountId, 'A', A_ONLY_EMAIL);
  B = await seed(b.key, b.accountId, 'B', 'only-in-b@example.com');
});

/** A's path with A's ids; the e-mail is one only A has (B has a contact with the shared one). */
function pathOfA(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
    if (name === 'email') return encodeURIComponent(A_ONLY_EMAIL);
    const resource = template.slice(0, offset).split('/').filter(Boolean).at(-1);
    if (resource === 'lists') return String(A.listId);
    if (resource === 'campaigns') return String(/\/(statistics|stats)$/.test(template) ? A.sentCampaignId : A.campaignId);
    if (resource === 'api-keys') return String(A.keyId);
    if (resource === 'webhooks') return String(A.webhookId);
    if (resource === 'automations') return String(A.automationId);
    if (resource === 'segments') return String(A.segmentId);
    if (resource === 'suppressions') return String(A.suppressionId);
    if (resource === 'domains') return String(A.domainId);
    if (resource === 'forms') return String(A.formId);
    if (resource === 'media') return String(A.mediaId);

    if (resource === 'templates') return String(A.templateId);
    if (resource === 'messages') return String(A.messageId);
    if (resource === 'members') return String(A.memberId);
    if (resource === 'invitations') return String(A.invitationId);
    throw new Error(`no row of A for {${name}} in ${template}: add one to the seed`);
  });
}

/** A body that passes validation, so the lookup (not the schema) decides. */
function validBody(r: Route): unknown {
  switch (label(r)) {
    case 'PUT /api/v1/contacts/{email}':
      return { first_name: 'Mallory', tags: ['taken'], status: 'UNSUBSCRIBED' };
    case 'PUT /api/v1/lists/{id}':
      return { name: 'taken over', is_active: false };
    case 'POST /api/v1/lists/{id}/contacts':
      return { emails: [SHARED_EMAIL, 'only-in-b@example.com'] };
    case 'PUT /api/v1/campaigns/{id}':
      return { name: 'taken over', subject: 'Mallory' };
    case 'PUT /api/v1/api-keys/{id}':
      return { name: 'taken over', permissions: ['*'] };
    case 'PUT /api/v1/segments/{id}':
      return { name: 'taken over', filter: { field: 'email', op: 'exists' } };
    case 'PUT /api/v1/domains/{id}':
      return { warmup: { enabled: true, start: 1 } };
    // B's own public list: only the form's lookup can refuse it.
    case 'PUT /api/v1/forms/{id}':
      return { name: 'taken over', list_ids: [B.listId], redirect_url: 'https://evil.example/' };
    case 'PUT /api/v1/templates/{id}':
      return { name: 'taken over', kind: 'starter', format: 'html', body: '<p>Mallory</p>' };
    case 'PUT /api/v1/members/{id}':
      return { role: 'admin' };
  }
  const schema = bodySchema(r);
  return schema ? exampleOf(schema) : undefined;
}

/** The required fields of a documented body schema, with plausible values (for routes added later). */
const exampleOf = exampleBuilder({ email: () => 'mallory@example.com', text: () => 'sample' });

/** Everything of A's in the database, usage counters flushed first so only requests change them. */
async function snapshotOfA() {
  await server.core.usage.flush();
  const db = server.db;
  const lists = await db.selectFrom('lists').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute();
  return {
    contacts: await db.selectFrom('contacts').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    lists,
    members: await db.selectFrom('list_members').selectAll().where('list_id', 'in', lists.map((l) => l.id)).orderBy('list_id').orderBy('contact_id').execute(),
    campaigns: await db.selectFrom('campaigns').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    keys: await db.selectFrom('api_keys').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    webhooks: await db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    webhookDeliveries: await db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', A.webhookId).execute(),
    automations: await db.selectFrom('automations').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    runs: await db.selectFrom('automation_runs').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    segments: await db.selectFrom('segments').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    suppressions: await db.selectFrom('suppressions').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    domains: await db.selectFrom('sending_domains').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    forms: await db.selectFrom('forms').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    media: await db.selectFrom('media').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),

    templates: await db.selectFrom('templates').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    users: await db.selectFrom('users').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
    invitations: await db.selectFrom('invitations').selectAll().where('account_id', '=', a.accountId).orderBy('id').execute(),
  };
}

const notFound = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

// ---------------------------------------------------------------------------------------------

describe("B's key on A's resources (D3)", () => {
  it('the document holds every id- and e-mail-taking route of the route table', () => {
    expect(idRoutes.map(label)).toEqual(expect.arrayContaining(KNOWN_ID_ROUTES));
  });

  it.each(cases(idRoutes))("%s with A's id answers 404 as if missing and changes nothing of A's", async (_name, route) => {
    const code = NOT_FOUND_CODES[resourceOf(route.path)];
    expect(code, `a NOT_FOUND code for ${route.path}`).toBeDefined();
    const before = await snapshotOfA();
    const res = await server.request(route.method, pathOfA(route.path), { key: b.key, body: validBody(route) });
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual(route.path.startsWith('/v1/') ? { success: false, error: 'Not Found', code, message: expect.any(String) } : notFound(code));
    expect(await snapshotOfA()).toEqual(before);
  });

  it("answers exactly as for an id that exists nowhere (same status and body)", async () => {
    for (const route of idRoutes.filter((r) => r.method === 'GET')) {
      const theirs = await server.request('GET', pathOfA(route.path), { key: b.key });
      const missing = await server.request('GET', pathOfA(route.path).replace(/\/\d+(?=\/|$)/, '/987654321').replace(encodeURIComponent(A_ONLY_EMAIL), 'nobody%40example.com'), { key: b.key });
      expect(missing.status, label(route)).toBe(404);
      expect(theirs.text, label(route)).toBe(missing.text);
    }
  });

  it("B's own list with A's e-mail in the path: 404 CONTACT_NOT_FOUND, A's membership untouched", async () => {
    const before = await snapshotOfA();
    const res = await server.request('DELETE', `/api/v1/lists/${B.listId}/contacts/${encodeURIComponent(A_ONLY_EMAIL)}`, { key: b.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound('CONTACT_NOT_FOUND'));
    expect(await snapshotOfA()).toEqual(before);
  });

  it("A's rows read back unchanged through A's key after all of B's attempts", async () => {
    const get = (path: string) => server.request('GET', path, { key: a.key });
    const contact = await get(`/api/v1/contacts/${encodeURIComponent(A_ONLY_EMAIL)}`);
    expect(contact.status).toBe(200);
    expect(contact.body.data).toMatchObject({ id: A.contactId, first_name: 'A', tags: ['A'], status: 'SUBSCRIBED', list_ids: [A.listId] });
    const list = await get(`/api/v1/lists/${A.listId}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ id: A.listId, name: 'A list', is_active: true, contact_count: 2 });
    const members = await get(`/api/v1/lists/${A.listId}/contacts`);
    expect(members.body.data.contacts.map((c: any) => c.id)).toEqual([A.contactId, A.sharedContactId]);
    const campaign = await get(`/api/v1/campaigns/${A.campaignId}`);
    expect(campaign.body.data).toMatchObject({ id: A.campaignId, name: 'A campaign', subject: 'A', status: 'DRAFT' });
    const key = await get(`/api/v1/api-keys/${A.keyId}`);
    expect(key.body.data).toMatchObject({ id: A.keyId, name: 'A spare key', status: 'Active', permanently_revoked: false, permissions: ['contacts.read'] });
    // Still the same value and still working: B could neither regenerate, revoke nor deactivate it.
    expect((await server.request('GET', '/api/v1/contacts', { key: A.keyValue })).status).toBe(200);
  });
});

describe("B's pages never show A's items (D3)", () => {
  it('the document holds the paged collection endpoints', () => {
    expect(pagedRoutes.map(label)).toEqual(expect.arrayContaining(['GET /api/v1/contacts', 'GET /api/v1/lists', 'GET /api/v1/campaigns', 'GET /api/v1/api-keys']));
  });

  it.each(cases(pagedRoutes))('%s shows only B\'s own items', async (_name, route) => {
    const res = await server.request('GET', `${route.path}?size=100`, { key: b.key });
    expect(res.status, res.text).toBe(200);
    const [name, items] = Object.entries<any>(res.body.data).find(([, v]) => Array.isArray(v)) ?? [];
    // The dev inbox's page and D25's messages page both name their array `messages`.
    const table = route.path === '/api/v1/messages' ? 'messages' : { contacts: 'contacts', lists: 'lists', campaigns: 'campaigns', api_keys: 'api_keys', messages: 'dev_inbox', webhooks: 'webhook_endpoints', automations: 'automations', segments: 'segments', suppressions: 'suppressions', domains: 'sending_domains', forms: 'forms', media: 'media', templates: 'templates', entries: 'audit_log', members: 'users', invitations: 'invitations' }[name as string] as
      | 'audit_log'
      | 'users'
      | 'invitations'
      | 'templates'
      | 'messages'
      | 'forms'
      | 'media'
      | 'webhook_endpoints'
      | 'sending_domains'
      | 'segments'
      | 'suppressions'
      | 'automations'
      | 'contacts'
      | 'lists'
      | 'campaigns'
      | 'api_keys'
      | 'dev_inbox'
      | undefined;
    expect(table, `a known array in ${route.path}`).toBeDefined();
    const idsOf = async (accountId: number) => (await server.db.selectFrom(table!).select('id').where('account_id', '=', accountId).orderBy('id').execute()).map((r) => r.id);
    expect((await idsOf(a.accountId)).length, `A has ${name} to hide`).toBeGreaterThan(0);
    // D22: the built-in templates (no account) are every account's to see
    const shared = table === 'templates' ? (await server.db.selectFrom('templates').select('id').where('account_id', 'is', null).execute()).map((r) => r.id) : [];
    const ownIds = [...shared, ...(await idsOf(b.accountId))].map(Number).sort((x, y) => x - y);
    expect(items.map((i: any) => i.id).sort((x: number, y: number) => x - y)).toEqual(ownIds);
    expect(res.body.data.totalElements).toBe(ownIds.length);
  });

  it("searching B's contacts for the shared e-mail finds only B's contact", async () => {
    const res = await server.request('GET', `/api/v1/contacts?search=${encodeURIComponent(SHARED_EMAIL)}`, { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body.data.contacts.map((c: any) => c.id)).toEqual([B.sharedContactId]);
    expect(res.body.data.totalElements).toBe(1);
  });

  it("filtering B's contacts by A's list id finds nothing", async () => {
    const res = await server.request('GET', `/api/v1/contacts?list_id=${A.listId}`, { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body.data.contacts).toEqual([]);
    expect(res.body.data.totalElements).toBe(0);
  });

  it("B's key summary counts only B's keys", async () => {
    const res = await server.request('GET', '/api/v1/api-keys/summary', { key: b.key });
    expect(res.status).toBe(200);
    const bKeys = await server.db.selectFrom('api_keys').select('id').where('account_id', '=', b.accountId).execute();
    expect(res.body.data.total).toBe(bKeys.length);
    expect(res.body.data.active).toBe(bKeys.length);
  });
});

describe('writing across accounts (D3)', () => {
  it("B adding A's contacts to B's list: they come back in not_found and A's contacts stay out", async () => {
    const before = await snapshotOfA();
    const res = await server.request('POST', `/api/v1/lists/${B.listId}/contacts`, { key: b.key, body: { emails: [A_ONLY_EMAIL, SHARED_EMAIL] } });
    expect(res.status).toBe(200);
    // The shared address is B's own contact (already a member); A's address is unknown to B.
    expect(res.body.data).toEqual({ added: 0, already_members: 1, not_found: [A_ONLY_EMAIL] });
    const members = await server.db.selectFrom('list_members').select('contact_id').where('list_id', '=', B.listId).orderBy('contact_id').execute();
    expect(members.map((m) => m.contact_id)).toEqual([B.contactId, B.sharedContactId]);
    expect(await snapshotOfA()).toEqual(before);
  });

  it("B creating a contact with A's list_id or list_name: 404 LIST_NOT_FOUND, nothing created", async () => {
    for (const ref of [{ list_id: A.listId }, { list_name: A.listName }]) {
      const res = await server.request('POST', '/api/v1/contacts', { key: b.key, body: { email: 'newcomer@example.com', ...ref } });
      expect(res.status, JSON.stringify(ref)).toBe(404);
      expect(res.body).toEqual(notFound('LIST_NOT_FOUND'));
    }
    const rows = await server.db.selectFrom('contacts').select('id').where('email', '=', 'newcomer@example.com').execute();
    expect(rows).toEqual([]);
  });

  it("B updating its own contact with A's list_id: 404 LIST_NOT_FOUND, A's list unchanged", async () => {
    const before = await snapshotOfA();
    const res = await server.request('PUT', `/api/v1/contacts/${encodeURIComponent(SHARED_EMAIL)}`, { key: b.key, body: { list_id: A.listId } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound('LIST_NOT_FOUND'));
    expect(await snapshotOfA()).toEqual(before);
  });

  it("B creating or editing a campaign aimed at A's list: 404 LIST_NOT_FOUND", async () => {
    const created = await server.request('POST', '/api/v1/campaigns', { key: b.key, body: { name: 'poach', list_ids: [A.listId] } });
    expect(created.status).toBe(404);
    expect(created.body).toEqual(notFound('LIST_NOT_FOUND'));
    const edited = await server.request('PUT', `/api/v1/campaigns/${B.campaignId}`, { key: b.key, body: { list_ids: [B.listId, A.listId] } });
    expect(edited.status).toBe(404);
    expect(edited.body).toEqual(notFound('LIST_NOT_FOUND'));
    const row = await server.db.selectFrom('campaigns').select('list_ids').where('id', '=', B.campaignId).executeTakeFirstOrThrow();
    expect(JSON.parse(row.list_ids)).toEqual([B.listId]);
  });

  it('the same e-mail exists in both accounts as two contacts, each seen only by its owner', async () => {
    const rows = await server.db.selectFrom('contacts').select(['id', 'account_id']).where('email', '=', SHARED_EMAIL).orderBy('id').execute();
    expect(rows).toEqual([
      { id: A.sharedContactId, account_id: a.accountId },
      { id: B.sharedContactId, account_id: b.accountId },
    ]);
    const path = `/api/v1/contacts/${encodeURIComponent(SHARED_EMAIL)}`;
    const seenByA = await server.request('GET', path, { key: a.key });
    const seenByB = await server.request('GET', path, { key: b.key });
    expect(seenByA.body.data).toMatchObject({ id: A.sharedContactId, first_name: 'A shared', list_ids: [A.listId] });
    expect(seenByB.body.data).toMatchObject({ id: B.sharedContactId, first_name: 'B shared', list_ids: [B.listId] });
  });

  it("B creating a list with A's list name succeeds (names are unique per account only)", async () => {
    const res = await server.request('POST', '/api/v1/lists', { key: b.key, body: { name: A.listName } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: A.listName, contact_count: 0 });
    expect(res.body.data.id).not.toBe(A.listId);
  });
});

describe("D24.5: one's own sessions, across accounts", () => {
  it("a user of B lists only its own sessions, and ending one of A's user's sessions by its id is 404 SESSION_NOT_FOUND, leaving it alive", async () => {
    const signIn = async (accountId: number, tag: string) => {
      const user = { email: `isolation-${tag}-${Date.now()}@example.com`, password: 'isolation password' };
      await server.core.users.create(SYSTEM_ACTING, accountId, user);
      const res = await server.request('POST', '/api/v1/auth/login', { body: user });
      expect(res.status, res.text).toBe(200);
      return { cookie: /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1], csrf: res.body.data.csrf_token as string };
    };
    const inA = await signIn(a.accountId, 'a');
    const inB = await signIn(b.accountId, 'b');
    const listOf = async (s: { cookie: string }) => (await server.request('GET', '/api/v1/auth/sessions', { headers: { cookie: s.cookie } })).body.data.sessions as { id: string }[];
    const [aSession] = await listOf(inA);
    const bSessions = await listOf(inB);
    expect(bSessions).toHaveLength(1);
    expect(bSessions.map((x) => x.id)).not.toContain(aSession.id);
    const res = await server.request('DELETE', `/api/v1/auth/sessions/${aSession.id}`, { headers: { cookie: inB.cookie, 'x-csrf-token': inB.csrf } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(NOT_FOUND_CODES.sessions));
    expect((await server.request('GET', '/api/v1/auth/me', { headers: { cookie: inA.cookie } })).status).toBe(200);
  });
});
