/**
 * D24.8 the audit log: GET /api/v1/audit-log (admin reach), its filters and paging, and the
 * entries the services write inside the transaction of each change (the auth.* and member.*
 * entries are tested with their own routes). Entries never hold a secret nor an erased address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendwell } from '../helpers/cli.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { signUpAndConfirm } from '../dashboard/sign-up.ts';
import { sendable } from '../sending/send-helpers.ts';

const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-secret`;
const OWNER = `owner-${Date.now()}@example.com`;
const SESSION_UA = 'AuditTest/1 (dashboard)';
const KEY_UA = 'AuditTest/1 (api key)';

let server: TestServer;
let accountId: number;
let user: { id: number; email: string };
let session: { cookie: string; csrf: string };
/** the account's `*` key, made from the dashboard; its value is a secret */
let ops: { id: number; key: string };

type Entry = { id: number; at: string; actor: { type: string; id: string | null; label: string | null }; action: string; target: { type: string; id: string } | null; ip: string | null; user_agent: string | null };

const asUser = (method: string, path: string, body?: unknown) =>
  server.request(method, path, { body, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'user-agent': SESSION_UA } });
const asKey = (method: string, path: string, body?: unknown, key = ops.key) => server.request(method, path, { key, body, headers: { 'user-agent': KEY_UA } });
const ok = (res: ApiResponse) => {
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const page = async (query = '', key = ops.key) => ok(await asKey('GET', `/api/v1/audit-log?size=100${query}`, undefined, key)) as { entries: Entry[]; totalElements: number };
/** The newest entry of `action` on `target` (the API's view). */
async function entryOf(action: string, target: { type: string; id: number | string } | null): Promise<Entry> {
  const { entries } = await page(`&action=${action}`);
  const found = entries.find((e) => (target === null ? e.target === null : e.target?.type === target.type && e.target.id === String(target.id)));
  expect(found, `${action} on ${JSON.stringify(target)} in ${JSON.stringify(entries)}`).toBeDefined();
  return found!;
}
const countRows = async () => Number((await server.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  server = await startTestServer({ ALLOW_SIGNUP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' });
  // D24.1: the first sign-up of an empty instance is its owner, signed in at once.
  const signedUp = await signUpAndConfirm(server, { email: OWNER, password: PASSWORD, account_name: 'Audited' });
  expect(signedUp.status, signedUp.text).toBe(200);
  session = { cookie: /(sendwell_session=[^;]+)/.exec(signedUp.headers.get('set-cookie') ?? '')![1], csrf: signedUp.body.data.csrf_token };
  user = signedUp.body.data.user;
  accountId = signedUp.body.data.account.id;
  // Sign-up makes a Free account (10 requests a second); this file makes many more.
  await server.db.updateTable('accounts').set({ plan: 'enterprise' }).where('id', '=', accountId).execute();
  ops = ok(await asUser('POST', '/api/v1/api-keys', { name: 'Ops key', permissions: ['*'] }));
});
afterAll(() => server?.close());

describe('D24.8 entries name who, from where, and what', () => {
  it('a dashboard session: the user by id and e-mail, the request IP and User-Agent', async () => {
    expect(await entryOf('api_key.created', { type: 'api_key', id: ops.id })).toMatchObject({
      actor: { type: 'user', id: String(user.id), label: OWNER },
      ip: '127.0.0.1',
      user_agent: SESSION_UA,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
  });

  it('an API key: the key by id and name; every key action is recorded', async () => {
    const keyActor = { type: 'api_key', id: String(ops.id), label: 'Ops key' };
    const spare = ok(await asKey('POST', '/api/v1/api-keys', { name: 'Spare', permissions: ['lists.read'] }));
    ok(await asKey('PUT', `/api/v1/api-keys/${spare.id}`, { name: 'Spare 2' }));
    ok(await asKey('POST', `/api/v1/api-keys/${spare.id}/deactivate`));
    ok(await asKey('POST', `/api/v1/api-keys/${spare.id}/activate`));
    ok(await asKey('POST', `/api/v1/api-keys/${spare.id}/regenerate`));
    ok(await asKey('POST', `/api/v1/api-keys/${spare.id}/revoke`));
    ok(await asKey('DELETE', `/api/v1/api-keys/${spare.id}`));
    for (const action of ['api_key.created', 'api_key.updated', 'api_key.deactivated', 'api_key.activated', 'api_key.regenerated', 'api_key.revoked', 'api_key.deleted']) {
      expect(await entryOf(action, { type: 'api_key', id: spare.id }), action).toMatchObject({ actor: keyActor, ip: '127.0.0.1', user_agent: KEY_UA });
    }
  });

  it('contacts, imports, lists, campaigns, automations, domains and webhooks', async () => {
    const listId = ok(await asKey('POST', '/api/v1/lists', { name: 'Audited list' })).id;
    const gone = ok(await asKey('POST', '/api/v1/contacts', { email: 'deleted@example.com' })).id;
    ok(await asKey('DELETE', '/api/v1/contacts/deleted@example.com'));
    const imported = await asKey('POST', '/v1/contacts/bulk', { contacts: [{ email: 'imported@example.com' }], listId: String(listId) });
    expect(imported.status, imported.text).toBe(200);
    const draft = ok(await asKey('POST', '/api/v1/campaigns', { name: 'Audited', ...sendable([listId]) })).id;
    const copy = ok(await asKey('POST', `/api/v1/campaigns/${draft}/duplicate`)).id;
    ok(await asKey('DELETE', `/api/v1/campaigns/${copy}`));
    ok(await asKey('POST', `/api/v1/campaigns/${draft}/send`));
    const flow = ok(await asKey('POST', '/api/v1/automations', { name: 'Flow', trigger: { type: 'TAG_ADDED', tag: 'vip' }, steps: [{ type: 'ADD_TAG', tag: 'seen' }] })).id;
    ok(await asKey('POST', `/api/v1/automations/${flow}/activate`));
    ok(await asKey('POST', `/api/v1/automations/${flow}/deactivate`));
    const domain = ok(await asKey('POST', '/api/v1/domains', { domain: 'mail.audited.test' })).id;
    ok(await asKey('DELETE', `/api/v1/domains/${domain}`));
    const hook = ok(await asKey('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', event_types: ['email.sent'] })).id;
    ok(await asKey('DELETE', `/api/v1/webhooks/${hook}`));
    const spareList = ok(await asKey('POST', '/api/v1/lists', { name: 'Doomed list' })).id;
    ok(await asKey('DELETE', `/api/v1/lists/${spareList}`));

    const expected: [string, { type: string; id: number } | null][] = [
      ['contact.deleted', { type: 'contact', id: gone }],
      ['contacts.imported', null],
      ['campaign.created', { type: 'campaign', id: draft }],
      ['campaign.created', { type: 'campaign', id: copy }],
      ['campaign.deleted', { type: 'campaign', id: copy }],
      ['campaign.sent', { type: 'campaign', id: draft }],
      ['automation.activated', { type: 'automation', id: flow }],
      ['automation.deactivated', { type: 'automation', id: flow }],
      ['domain.created', { type: 'domain', id: domain }],
      ['domain.deleted', { type: 'domain', id: domain }],
      ['webhook.created', { type: 'webhook', id: hook }],
      ['webhook.deleted', { type: 'webhook', id: hook }],
      ['list.deleted', { type: 'list', id: spareList }],
    ];
    for (const [action, target] of expected) {
      expect(await entryOf(action, target), action).toMatchObject({ actor: { type: 'api_key', id: String(ops.id), label: 'Ops key' }, ip: '127.0.0.1', user_agent: KEY_UA });
    }
  });

  it('the scheduler starting a scheduled campaign is the system: no IP, no browser', async () => {
    const listId = ok(await asKey('POST', '/api/v1/lists', { name: 'Scheduled list' })).id;
    ok(await asKey('POST', '/api/v1/contacts', { email: 'scheduled@example.com' }));
    ok(await asKey('POST', `/api/v1/lists/${listId}/contacts`, { emails: ['scheduled@example.com'] }));
    const id = ok(await asKey('POST', '/api/v1/campaigns', { name: 'Later', ...sendable([listId]) })).id;
    ok(await asKey('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }));
    await server.db.updateTable('campaigns').set({ scheduled_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    expect(await server.core.campaignLifecycle.startDueCampaigns(new Date().toISOString())).toContain(id);
    expect(await entryOf('campaign.sent', { type: 'campaign', id })).toMatchObject({ actor: { type: 'system', id: null, label: 'system' }, ip: null, user_agent: null });
  });

  it('a CLI command is the system', async () => {
    const cli = await sendwell(['keys', 'create', '--account', String(accountId), '--name', 'CLI key', '--permissions', 'lists.read'], server.env);
    expect(cli.code, cli.stderr).toBe(0);
    const { id } = JSON.parse(cli.stdout);
    expect(await entryOf('api_key.created', { type: 'api_key', id })).toMatchObject({ actor: { type: 'system', id: null, label: 'system' }, ip: null, user_agent: null });
  });
});

describe('D24.8 only what commits is recorded', () => {
  it('a failed change (an unknown list, 404) writes no entry', async () => {
    const before = await countRows();
    const res = await asKey('DELETE', '/api/v1/lists/999999');
    expect(res.status).toBe(404);
    expect(await countRows()).toBe(before);
  });

  it('a change that rolls back (an import naming too many lists, 400 after its rows were written) takes its entry back with it', async () => {
    const before = await countRows();
    const contacts = Array.from({ length: 101 }, (_, i) => ({ email: `rollback-${i}@example.com`, lists: [`Rollback ${i}`] }));
    const res = await asKey('POST', '/v1/contacts/bulk', { contacts });
    expect(res.status, res.text).toBe(400);
    expect(await countRows()).toBe(before);
    expect(await server.db.selectFrom('contacts').select('id').where('email', '=', 'rollback-0@example.com').execute()).toEqual([]);
  });
});

describe('GET /api/v1/audit-log', () => {
  it('pages newest first', async () => {
    const all = await page();
    const ids = all.entries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const first = ok(await asKey('GET', '/api/v1/audit-log?size=2&page=0'));
    const second = ok(await asKey('GET', '/api/v1/audit-log?size=2&page=1'));
    expect([...first.entries, ...second.entries].map((e: Entry) => e.id)).toEqual(ids.slice(0, 4));
    expect(first).toMatchObject({ page: 0, size: 2, totalElements: all.totalElements, totalPages: Math.ceil(all.totalElements / 2) });
  });

  it('filters by action, actor, target and time, each alone', async () => {
    const all = (await page()).entries;
    const only = async (query: string, keep: (e: Entry) => boolean) => {
      const got = (await page(query)).entries.map((e) => e.id);
      const want = all.filter(keep).map((e) => e.id);
      expect(want.length, query).toBeGreaterThan(0);
      expect(got, query).toEqual(want);
    };
    await only('&action=api_key.created', (e) => e.action === 'api_key.created');
    await only('&actor_type=user', (e) => e.actor.type === 'user');
    await only('&actor_type=system', (e) => e.actor.type === 'system');
    await only(`&actor_id=${ops.id}`, (e) => e.actor.id === String(ops.id));
    await only('&target_type=campaign', (e) => e.target?.type === 'campaign');
    await only(`&target_type=api_key&target_id=${ops.id}`, (e) => e.target?.type === 'api_key' && e.target.id === String(ops.id));
    const oldest = all.at(-1)!.at;
    await only(`&since=${oldest}`, () => true);
    expect((await page(`&since=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19)}`)).entries).toEqual([]);
    expect((await page('&until=2000-01-01T00:00:00')).entries).toEqual([]);
    await only(`&until=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19)}`, () => true);
  });

  it('a bad filter is 400 naming the field', async () => {
    for (const [query, field] of [['since=yesterday', 'since'], ['until=2026-02-30T00:00:00', 'until'], ['actor_type=robot', 'actor_type']]) {
      const res = await asKey('GET', `/api/v1/audit-log?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(JSON.stringify(res.body.error), query).toContain(field);
    }
  });

  it('is for admin reach: a key without `*` is 403, whatever else it holds', async () => {
    const manager = ok(await asKey('POST', '/api/v1/api-keys', { name: 'Manager', permissions: ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write'] }));
    const res = await asKey('GET', '/api/v1/audit-log', undefined, manager.key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PERMISSION_DENIED');
    expect(ok(await asUser('GET', '/api/v1/audit-log')).entries.length).toBeGreaterThan(0);
  });

  it("one account never sees another's entries", async () => {
    const other = await server.createAccountWithKey(['*']);
    const theirs = await page('', other.key);
    expect(theirs.entries.map((e) => e.action)).toEqual(['api_key.created']);
    expect(theirs.entries[0].target).toEqual({ type: 'api_key', id: String(other.keyId) });
    const mine = (await page()).entries;
    expect(mine.some((e) => e.target?.id === String(other.keyId) && e.target.type === 'api_key')).toBe(false);
  });

  it('no route changes or deletes an entry', async () => {
    const [entry] = (await page()).entries;
    for (const method of ['PUT', 'DELETE', 'POST']) {
      const res = await asKey(method, `/api/v1/audit-log/${entry.id}`, method === 'DELETE' ? undefined : {});
      expect(res.status, method).toBe(404);
    }
    expect((await asKey('DELETE', '/api/v1/audit-log')).status).toBe(404);
    expect((await page()).entries[0]).toEqual(entry);
  });
});

describe('D24.8 the log never holds a secret nor an erased address', () => {
  it('key values, the password and an erased address appear neither in the table nor in the answer', async () => {
    const erased = `erase-me-${Date.now()}@unique.example.com`;
    const contactId = ok(await asKey('POST', '/api/v1/contacts', { email: erased })).id;
    ok(await asKey('POST', `/api/v1/contacts/${encodeURIComponent(erased)}/erase`));
    expect(await entryOf('contact.erased', { type: 'contact', id: contactId })).toMatchObject({ actor: { type: 'api_key', label: 'Ops key' } });
    const spare = ok(await asKey('POST', '/api/v1/api-keys', { name: 'Regenerated', permissions: ['lists.read'] }));
    const regenerated = ok(await asKey('POST', `/api/v1/api-keys/${spare.id}/regenerate`));
    const hook = ok(await asKey('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/secret-hook', event_types: ['email.sent'] }));
    const table = JSON.stringify(await server.db.selectFrom('audit_log').selectAll().execute());
    const answer = (await asKey('GET', '/api/v1/audit-log?size=100')).text;
    for (const secret of [ops.key, spare.key, regenerated.key, hook.secret, PASSWORD, erased, session.cookie.split('=')[1]]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(table).not.toContain(secret);
      expect(answer).not.toContain(secret);
    }
  });
});

describe('D24.8 retention: AUDIT_RETENTION_DAYS (400 by default)', () => {
  it("the sender's sweep deletes entries older than 400 days and keeps younger ones", async () => {
    const day = 86_400_000;
    const row = (ageDays: number, action: string) => ({ account_id: accountId, at: new Date(Date.now() - ageDays * day).toISOString(), actor_type: 'system', actor_id: null, actor_label: 'system', action, target_type: null, target_id: null, ip: null, user_agent: null });
    await server.db.insertInto('audit_log').values([row(401, 'list.deleted'), row(399, 'domain.created')]).execute();
    const aged = async () => (await server.db.selectFrom('audit_log').select('action').where('account_id', '=', accountId).where('at', '<', new Date(Date.now() - 398 * day).toISOString()).execute()).map((r) => r.action);
    expect((await aged()).sort()).toEqual(['domain.created', 'list.deleted']);
    await server.sender.auditSweep.runOnce();
    expect(await aged()).toEqual(['domain.created']);
  });
});
