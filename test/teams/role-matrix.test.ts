/**
 * D24.1: what each role's session may do, area by area, through the API with the session cookie
 * and X-CSRF-Token exactly as the dashboard calls it. Every member but the first owner joined
 * through an invitation (D24.3). A refused request is 403 PERMISSION_DENIED, as for a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/domain/users/roles.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { as, firstOwner, join, type Member } from './team.ts';

let server: TestServer;
let key: string;
let accountId: number;
const members = {} as Record<Role, Member>;
let listId: number;
let n = 0;

beforeAll(async () => {
  server = await startTestServer();
  ({ accountId, key } = await server.createAccountWithKey(['*']));
  const owner = await firstOwner(server, accountId, 'first-owner@example.com');
  for (const role of ROLES) members[role] = await join(server, owner, `${role}@example.com`, role);
  const list = await server.request('POST', '/api/v1/lists', { key, body: { name: 'matrix list' } });
  listId = list.body.data.id;
  await server.request('POST', '/api/v1/contacts', { key, body: { email: 'reader@example.com', list_id: listId } });
}, 60_000);
afterAll(() => server?.close());

const post = async (path: string, body: unknown) => {
  const res = await server.request('POST', path, { key, body });
  if (res.status !== 200) throw new Error(`setup: POST ${path} answered ${res.status} ${res.text}`);
  return res.body.data;
};

interface Operation {
  area: string;
  what: string;
  /** the roles allowed to do it */
  allowed: readonly Role[];
  /** the request; `prepare` runs first with a key (a campaign to send, a workflow to activate) */
  run: (call: ReturnType<typeof as>) => Promise<ApiResponse>;
}

const everyone = ROLES;
const authors: readonly Role[] = ['owner', 'admin', 'manager', 'author'];
const managers: readonly Role[] = ['owner', 'admin', 'manager'];
const admins: readonly Role[] = ['owner', 'admin'];

const OPERATIONS: Operation[] = [
  { area: 'contacts', what: 'list contacts', allowed: everyone, run: (c) => c('GET', '/api/v1/contacts') },
  { area: 'contacts', what: 'create a contact', allowed: managers, run: (c) => c('POST', '/api/v1/contacts', { body: { email: `new-${++n}@example.com` } }) },
  { area: 'lists', what: 'list lists', allowed: everyone, run: (c) => c('GET', '/api/v1/lists') },
  { area: 'lists', what: 'create a list', allowed: managers, run: (c) => c('POST', '/api/v1/lists', { body: { name: `list ${++n}` } }) },
  { area: 'campaigns', what: 'list campaigns', allowed: everyone, run: (c) => c('GET', '/api/v1/campaigns') },
  { area: 'campaigns', what: 'create a draft', allowed: authors, run: (c) => c('POST', '/api/v1/campaigns', { body: { name: `draft ${++n}` } }) },
  {
    area: 'campaigns',
    what: 'send a campaign',
    allowed: managers,
    run: async (c) => {
      const campaign = await post('/api/v1/campaigns', { name: `to send ${++n}`, subject: 'Hi', from_email: 'news@example.com', html: '<p>Hi</p>', list_ids: [listId] });
      return c('POST', `/api/v1/campaigns/${campaign.id}/send`);
    },
  },
  { area: 'automations', what: 'list workflows', allowed: everyone, run: (c) => c('GET', '/api/v1/automations') },
  {
    area: 'automations',
    what: 'create a workflow without mail',
    allowed: authors,
    run: (c) => c('POST', '/api/v1/automations', { body: { name: `flow ${++n}`, trigger: { type: 'EVENT', event: 'signed_up' }, steps: [{ type: 'ADD_TAG', tag: 'new' }] } }),
  },
  {
    area: 'automations',
    what: 'activate a workflow with SEND_EMAIL (campaigns.send)',
    allowed: managers,
    run: async (c) => {
      const flow = await post('/api/v1/automations', { name: `mail flow ${++n}`, trigger: { type: 'EVENT', event: 'signed_up' }, steps: [{ type: 'SEND_EMAIL', subject: 'Hi', html: '<p>Hi</p>', from_email: 'news@example.com' }] });
      return c('POST', `/api/v1/automations/${flow.id}/activate`);
    },
  },
  { area: 'keys', what: 'list API keys', allowed: admins, run: (c) => c('GET', '/api/v1/api-keys') },
  { area: 'keys', what: 'create an API key', allowed: admins, run: (c) => c('POST', '/api/v1/api-keys', { body: { name: `key ${++n}`, permissions: ['contacts.read'] } }) },
  { area: 'webhooks', what: 'list webhooks', allowed: admins, run: (c) => c('GET', '/api/v1/webhooks') },
  { area: 'webhooks', what: 'register a webhook', allowed: admins, run: (c) => c('POST', '/api/v1/webhooks', { body: { url: `https://hooks.example.com/${++n}`, event_types: ['email.sent'] } }) },
  { area: 'members', what: 'list members', allowed: everyone, run: (c) => c('GET', '/api/v1/members') },
  { area: 'members', what: 'invite a viewer', allowed: admins, run: (c) => c('POST', '/api/v1/invitations', { body: { email: `invitee-${++n}@example.com`, role: 'viewer' } }) },
  { area: 'members', what: 'list invitations', allowed: admins, run: (c) => c('GET', '/api/v1/invitations') },
  // Issue 34: the account's settings are an admin's; every member reads them (the dashboard shows dates in its zone).
  { area: 'account', what: 'read the account', allowed: everyone, run: (c) => c('GET', '/api/v1/account') },
  { area: 'account', what: 'change its time zone', allowed: admins, run: (c) => c('PUT', '/api/v1/account', { body: { time_zone: ++n % 2 ? 'Europe/Paris' : 'Asia/Tokyo' } }) },
  // Reach (D24.2, D24.3): only an owner makes owners.
  { area: 'members', what: 'invite an owner', allowed: ['owner'], run: (c) => c('POST', '/api/v1/invitations', { body: { email: `owner-invitee-${++n}@example.com`, role: 'owner' } }) },
];

describe('D24.1: the role matrix, session by session', () => {
  it('covers every area with a read every role may do and a change some role may not; every role but owner is refused somewhere', () => {
    const areas = new Set(OPERATIONS.map((o) => o.area));
    expect([...areas]).toEqual(['contacts', 'lists', 'campaigns', 'automations', 'keys', 'webhooks', 'members', 'account']);
    for (const area of areas) expect(OPERATIONS.some((o) => o.area === area && o.allowed.length < ROLES.length), area).toBe(true);
    for (const role of ROLES.filter((r) => r !== 'owner')) expect(OPERATIONS.some((o) => !o.allowed.includes(role)), role).toBe(true);
  });

  describe.each(ROLES.map((r) => [r]))('%s', (role) => {
    it.each(OPERATIONS.map((o) => [`${o.area}: ${o.what}`, o] as const))('%s', async (_name, op) => {
      const res = await op.run(as(server, members[role]));
      if (op.allowed.includes(role)) {
        expect(res.status, res.text).toBe(200);
      } else {
        expect(res.status, res.text).toBe(403);
        expect(res.body).toEqual({ success: false, error: { code: 'PERMISSION_DENIED', message: expect.any(String) } });
      }
    });
  });

  it("/auth/me states each member's role and its permissions", async () => {
    for (const role of ROLES) {
      const me = await as(server, members[role])('GET', '/api/v1/auth/me');
      expect(me.body.data.user.role).toBe(role);
      expect(me.body.data.permissions.includes('*')).toBe(role === 'owner' || role === 'admin');
    }
  });

  it('an author or a manager cannot raise its own role (nor anyone\'s): 403', async () => {
    for (const role of ['author', 'manager'] as const) {
      const me = members[role];
      for (const next of ['admin', 'owner', 'manager'] as const) {
        const res = await as(server, me)('PUT', `/api/v1/members/${me.id}`, { body: { role: next } });
        expect(res.status, `${role} -> ${next}`).toBe(403);
        expect(res.body.error.code).toBe('PERMISSION_DENIED');
      }
      const row = await server.db.selectFrom('users').select('role').where('id', '=', me.id).executeTakeFirstOrThrow();
      expect(row.role).toBe(role);
    }
  });
});
