/**
 * Issue 34 item 3: the account's time zone, through GET and PUT /api/v1/account: UTC until set,
 * an IANA name kept as given (D26.9), an unknown one 400 INVALID_REQUEST naming the field, who
 * may change it (an owner or admin, a key with `*`), one account's change never another's, and
 * the session's account carrying it for the dashboard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { as, firstOwner, join, type Member } from '../teams/team.ts';

let server: TestServer;
let a: { accountId: number; key: string };
let b: { accountId: number; key: string };
let owner: Member;
let viewer: Member;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.createAccountWithKey(['*']);
  b = await server.createAccountWithKey(['*']);
  owner = await firstOwner(server, a.accountId, `tz-owner-${Date.now()}@example.com`);
  viewer = await join(server, owner, `tz-viewer-${Date.now()}@example.com`, 'viewer');
}, 60_000);
afterAll(() => server?.close());

const get = (key: string) => server.request('GET', '/api/v1/account', { key });
const put = (key: string, body: unknown) => server.request('PUT', '/api/v1/account', { key, body });
const stored = async (accountId: number) => (await server.db.selectFrom('accounts').select('time_zone').where('id', '=', accountId).executeTakeFirstOrThrow()).time_zone;

describe('the account time zone', () => {
  it('is UTC for a new account, with the account\'s name, plan and slug', async () => {
    const res = await get(b.key);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: b.accountId, name: expect.any(String), plan: expect.any(String), slug: expect.any(String), time_zone: 'UTC', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/) } });
  });

  it('takes an IANA name and keeps it as given (D26.9), the case of Intl\'s own corrected', async () => {
    for (const [given, kept] of [['Europe/Paris', 'Europe/Paris'], ['Asia/Kolkata', 'Asia/Kolkata'], ['america/new_york', 'America/New_York'], ['UTC', 'UTC']]) {
      const res = await put(a.key, { time_zone: given });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id: a.accountId, time_zone: kept }, message: expect.any(String) });
      expect((await get(a.key)).body.data.time_zone).toBe(kept);
      expect(await stored(a.accountId)).toBe(kept);
    }
  });

  it.each([
    ['an unknown name', 'Mars/Olympus'],
    ['a bare offset', '+01:00'],
    ['an abbreviation', 'CEST'],
    ['blanks', '   '],
  ])('refuses %s: 400 INVALID_REQUEST naming time_zone, nothing changed', async (_what, zone) => {
    await put(a.key, { time_zone: 'Europe/Paris' });
    const res = await put(a.key, { time_zone: zone });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('time_zone') } });
    expect(await stored(a.accountId)).toBe('Europe/Paris');
  });

  it.each([
    ['empty', ''],
    ['longer than 100 characters', `Europe/${'x'.repeat(100)}`],
    ['not a string', 3600],
    ['null', null],
  ])('refuses a time_zone %s with 400 naming the field', async (_what, zone) => {
    const res = await put(a.key, { time_zone: zone });
    expect(res.status, res.text).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.message).toContain('time_zone');
  });

  it('leaves the zone as it is when the body names none', async () => {
    await put(a.key, { time_zone: 'Asia/Tokyo' });
    const res = await put(a.key, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.time_zone).toBe('Asia/Tokyo');
  });

  it("is each account's own: B's change leaves A's zone, and each reads only its own", async () => {
    await put(a.key, { time_zone: 'Europe/Paris' });
    expect((await put(b.key, { time_zone: 'America/Los_Angeles' })).status).toBe(200);
    expect((await get(a.key)).body.data).toMatchObject({ id: a.accountId, time_zone: 'Europe/Paris' });
    expect((await get(b.key)).body.data).toMatchObject({ id: b.accountId, time_zone: 'America/Los_Angeles' });
    expect(await stored(a.accountId)).toBe('Europe/Paris');
  });

  it('is changed by an owner or a * key only: a viewer and a key without * are 403 PERMISSION_DENIED, and read it only as the member they are', async () => {
    await put(a.key, { time_zone: 'Europe/Paris' });
    const narrow = await server.createKey(a.accountId, ['contacts.read', 'contacts.write', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write'], { name: 'no star' });
    for (const res of [await put(narrow.key, { time_zone: 'Asia/Tokyo' }), await as(server, viewer)('PUT', '/api/v1/account', { body: { time_zone: 'Asia/Tokyo' } })]) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('PERMISSION_DENIED');
    }
    expect((await get(narrow.key)).status).toBe(403);
    expect((await as(server, viewer)('GET', '/api/v1/account')).body.data.time_zone).toBe('Europe/Paris');
    expect(await stored(a.accountId)).toBe('Europe/Paris');

    const byOwner = await as(server, owner)('PUT', '/api/v1/account', { body: { time_zone: 'Asia/Tokyo' } });
    expect(byOwner.status, byOwner.text).toBe(200);
    expect(await stored(a.accountId)).toBe('Asia/Tokyo');
  });

  it("is in the signed-in session's account, for the dashboard", async () => {
    await put(a.key, { time_zone: 'Europe/Berlin' });
    const me = await as(server, viewer)('GET', '/api/v1/auth/me');
    expect(me.body.data.account).toMatchObject({ id: a.accountId, time_zone: 'Europe/Berlin' });
  });

  it('records a change in the audit log as account.updated, and a non-change not at all', async () => {
    await put(a.key, { time_zone: 'Europe/Paris' });
    const count = async () => Number((await server.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', a.accountId).where('action', '=', 'account.updated').executeTakeFirstOrThrow()).n);
    const before = await count();
    await put(a.key, { time_zone: 'Europe/Paris' });
    expect(await count()).toBe(before);
    await put(a.key, { time_zone: 'Europe/Lisbon' });
    expect(await count()).toBe(before + 1);
  });
});
