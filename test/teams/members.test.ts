/**
 * D24.2: an account's members, their roles and their removal, within the caller's reach; D24.1's
 * last owner; a role change or a removal applying to live sessions at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/domain/api-keys/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { as, firstOwner, join, type Member } from './team.ts';

let server: TestServer;
let accountId: number;
let key: string;
let owner: Member;
let admin: Member;
let n = 0;
const uniqueEmail = (what: string) => `${what}-${++n}@example.com`;

beforeAll(async () => {
  server = await startTestServer();
  ({ accountId, key } = await server.createAccountWithKey(['*']));
  owner = await firstOwner(server, accountId, 'owner@example.com');
  admin = await join(server, owner, 'admin@example.com', 'admin');
}, 30_000);
afterAll(() => server?.close());

const error = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });
const roleOf = async (id: number) => (await server.db.selectFrom('users').select('role').where('id', '=', id).executeTakeFirst())?.role;
const auditOf = (action: string, targetId: number) =>
  server.db.selectFrom('audit_log').select(['actor_type', 'actor_id', 'target_type', 'target_id']).where('account_id', '=', accountId).where('action', '=', action).where('target_id', '=', String(targetId)).execute();

describe('D24.2: GET /api/v1/members', () => {
  it("lists the account's members with their role, two-factor state and dates, to any role", async () => {
    const viewer = await join(server, owner, uniqueEmail('lister'), 'viewer');
    const res = await as(server, viewer)('GET', '/api/v1/members?size=100');
    expect(res.status, res.text).toBe(200);
    const mine = res.body.data.members.find((m: any) => m.id === viewer.id);
    expect(mine).toEqual({ id: viewer.id, email: viewer.email, role: 'viewer', two_factor: false, last_sign_in_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/), created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/) });
    expect(res.body.data.members.map((m: any) => m.id)).toEqual(expect.arrayContaining([owner.id, admin.id, viewer.id]));
    const rows = await server.db.selectFrom('users').select('id').where('account_id', '=', accountId).execute();
    expect(res.body.data.totalElements).toBe(rows.length);
  });

  it('a key needs `*`: every named permission is not enough', async () => {
    expect((await server.request('GET', '/api/v1/members', { key })).status).toBe(200);
    const named = await server.createKey(accountId, PERMISSIONS.filter((p) => p !== '*'));
    const res = await server.request('GET', '/api/v1/members', { key: named.key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(error('PERMISSION_DENIED'));
  });

  it("never shows another account's members", async () => {
    const other = await server.createAccount();
    const stranger = await firstOwner(server, other.id, uniqueEmail('stranger'));
    const res = await as(server, stranger)('GET', '/api/v1/members');
    expect(res.body.data.members.map((m: any) => m.id)).toEqual([stranger.id]);
  });
});

describe('D24.2: PUT /api/v1/members/{id}', () => {
  it("changes a role; the member's live session has the new role's permissions from its next request", async () => {
    const member = await join(server, owner, uniqueEmail('promoted'), 'viewer');
    const call = as(server, member);
    expect((await call('POST', '/api/v1/lists', { body: { name: 'before' } })).status).toBe(403);
    const res = await as(server, owner)('PUT', `/api/v1/members/${member.id}`, { body: { role: 'manager' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: member.id, role: 'manager' });
    expect((await call('POST', '/api/v1/lists', { body: { name: `after ${n}` } })).status).toBe(200);
    expect((await call('GET', '/api/v1/auth/me')).body.data.user.role).toBe('manager');
    // And back down: refused at once again.
    expect((await as(server, owner)('PUT', `/api/v1/members/${member.id}`, { body: { role: 'viewer' } })).status).toBe(200);
    expect((await call('POST', '/api/v1/lists', { body: { name: 'again' } })).status).toBe(403);
    const audit = await auditOf('member.role_changed', member.id);
    expect(audit).toEqual([
      { actor_type: 'user', actor_id: String(owner.id), target_type: 'user', target_id: String(member.id) },
      { actor_type: 'user', actor_id: String(owner.id), target_type: 'user', target_id: String(member.id) },
    ]);
  });

  it('an admin reaches non-owners only, and only with roles that are not owner; an owner reaches anyone', async () => {
    const second = await join(server, owner, uniqueEmail('second-owner'), 'owner');
    const viewer = await join(server, owner, uniqueEmail('reach'), 'viewer');
    const byAdmin = as(server, admin);
    for (const [id, role] of [[second.id, 'admin'], [viewer.id, 'owner'], [owner.id, 'viewer']] as const) {
      const res = await byAdmin('PUT', `/api/v1/members/${id}`, { body: { role } });
      expect(res.status, `${id} -> ${role}`).toBe(403);
      expect(res.body).toEqual(error('PERMISSION_DENIED'));
    }
    expect(await roleOf(second.id)).toBe('owner');
    expect(await roleOf(viewer.id)).toBe('viewer');
    expect((await byAdmin('PUT', `/api/v1/members/${viewer.id}`, { body: { role: 'admin' } })).status).toBe(200);
    // An owner makes and unmakes owners.
    expect((await as(server, owner)('PUT', `/api/v1/members/${viewer.id}`, { body: { role: 'owner' } })).status).toBe(200);
    expect((await as(server, owner)('PUT', `/api/v1/members/${second.id}`, { body: { role: 'author' } })).status).toBe(200);
    expect(await roleOf(viewer.id)).toBe('owner');
    expect(await roleOf(second.id)).toBe('author');
  });

  it('a `*` key has an admin\'s reach: non-owners only, never to owner', async () => {
    const viewer = await join(server, owner, uniqueEmail('by-key'), 'viewer');
    expect((await server.request('PUT', `/api/v1/members/${owner.id}`, { key, body: { role: 'admin' } })).status).toBe(403);
    expect((await server.request('PUT', `/api/v1/members/${viewer.id}`, { key, body: { role: 'owner' } })).status).toBe(403);
    const ok = await server.request('PUT', `/api/v1/members/${viewer.id}`, { key, body: { role: 'author' } });
    expect(ok.status, ok.text).toBe(200);
    expect(await auditOf('member.role_changed', viewer.id)).toEqual([{ actor_type: 'api_key', actor_id: expect.any(String), target_type: 'user', target_id: String(viewer.id) }]);
  });

  it('404 MEMBER_NOT_FOUND for an unknown id or another account\'s member, which stays as it was', async () => {
    const other = await server.createAccount();
    const stranger = await firstOwner(server, other.id, uniqueEmail('foreign'));
    for (const id of [987654321, stranger.id]) {
      for (const [method, body] of [['PUT', { role: 'viewer' }], ['DELETE', undefined]] as const) {
        const res = await as(server, owner)(method, `/api/v1/members/${id}`, { body });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toEqual(error('MEMBER_NOT_FOUND'));
      }
    }
    expect(await roleOf(stranger.id)).toBe('owner');
    expect((await as(server, stranger)('GET', '/api/v1/auth/me')).status).toBe(200);
  });
});

describe('D24.1: an account always keeps an owner', () => {
  it('demoting or removing the last owner is 409 LAST_OWNER; an admin trying it is 403 first (reach before LAST_OWNER)', async () => {
    const account = await server.createAccount();
    const only = await firstOwner(server, account.id, uniqueEmail('only-owner'));
    const itsAdmin = await join(server, only, uniqueEmail('its-admin'), 'admin');
    const self = as(server, only);
    const demote = await self('PUT', `/api/v1/members/${only.id}`, { body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual(error('LAST_OWNER'));
    const remove = await self('DELETE', `/api/v1/members/${only.id}`);
    expect(remove.status).toBe(409);
    expect(remove.body).toEqual(error('LAST_OWNER'));
    for (const [method, body] of [['PUT', { role: 'viewer' }], ['DELETE', undefined]] as const) {
      const res = await as(server, itsAdmin)(method, `/api/v1/members/${only.id}`, { body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(error('PERMISSION_DENIED'));
    }
    expect(await roleOf(only.id)).toBe('owner');
    // With a second owner, either may go; then the other is the last.
    const second = await join(server, only, uniqueEmail('co-owner'), 'owner');
    expect((await self('PUT', `/api/v1/members/${only.id}`, { body: { role: 'admin' } })).status).toBe(200);
    const last = await as(server, second)('DELETE', `/api/v1/members/${second.id}`);
    expect(last.status).toBe(409);
    expect(last.body).toEqual(error('LAST_OWNER'));
  });

  it('two owners demoting each other at once: one succeeds, the other is 409 LAST_OWNER', async () => {
    for (let round = 0; round < 3; round++) {
      const account = await server.createAccount();
      const a = await firstOwner(server, account.id, uniqueEmail('race-a'));
      const b = await join(server, a, uniqueEmail('race-b'), 'owner');
      const [x, y] = await Promise.all([
        as(server, a)('PUT', `/api/v1/members/${b.id}`, { body: { role: 'admin' } }),
        as(server, b)('DELETE', `/api/v1/members/${a.id}`),
      ]);
      const statuses = [x.status, y.status];
      expect(statuses.filter((s) => s === 200), JSON.stringify([x.body, y.body])).toHaveLength(1);
      // The loser: no longer an owner (403), not the only other owner any more (409), or removed before its request was read (401).
      const loser = [x, y].find((r) => r.status !== 200)!;
      expect(['PERMISSION_DENIED', 'LAST_OWNER', 'UNAUTHORIZED']).toContain(loser.body.error.code);
      const owners = await server.db.selectFrom('users').select('id').where('account_id', '=', account.id).where('role', '=', 'owner').execute();
      expect(owners).toHaveLength(1);
    }
  });
});

describe('D24.2: DELETE /api/v1/members/{id}', () => {
  it("removes the member: its cookie is refused at once (401), its sessions and user row are gone, the removal recorded", async () => {
    const member = await join(server, owner, uniqueEmail('removed'), 'manager');
    const call = as(server, member);
    expect((await call('GET', '/api/v1/members')).status).toBe(200);
    const res = await as(server, admin)('DELETE', `/api/v1/members/${member.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: member.id, email: member.email, role: 'manager' });
    expect((await call('GET', '/api/v1/members')).status).toBe(401);
    expect((await call('GET', '/api/v1/auth/me')).status).toBe(401);
    expect(await server.db.selectFrom('sessions').select('id').where('user_id', '=', member.id).execute()).toEqual([]);
    expect(await roleOf(member.id)).toBeUndefined();
    expect(await auditOf('member.removed', member.id)).toEqual([{ actor_type: 'user', actor_id: String(admin.id), target_type: 'user', target_id: String(member.id) }]);
    // Its address may be invited again.
    expect((await as(server, owner)('POST', '/api/v1/invitations', { body: { email: member.email, role: 'viewer' } })).status).toBe(200);
  });

  it('an admin cannot remove an owner (403); an owner can remove another owner', async () => {
    const other = await join(server, owner, uniqueEmail('removable-owner'), 'owner');
    const refused = await as(server, admin)('DELETE', `/api/v1/members/${other.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(error('PERMISSION_DENIED'));
    expect((await server.request('DELETE', `/api/v1/members/${other.id}`, { key })).status).toBe(403);
    expect((await as(server, other)('GET', '/api/v1/auth/me')).status).toBe(200);
    expect((await as(server, owner)('DELETE', `/api/v1/members/${other.id}`)).status).toBe(200);
    expect((await as(server, other)('GET', '/api/v1/auth/me')).status).toBe(401);
  });

  it('a member without an admin\'s role cannot remove anyone, itself included', async () => {
    const manager = await join(server, owner, uniqueEmail('manager'), 'manager');
    const viewer = await join(server, owner, uniqueEmail('victim'), 'viewer');
    for (const id of [viewer.id, manager.id]) {
      const res = await as(server, manager)('DELETE', `/api/v1/members/${id}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(error('PERMISSION_DENIED'));
    }
    expect(await roleOf(viewer.id)).toBe('viewer');
  });
});
