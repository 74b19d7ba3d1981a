import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCampaignRecipient } from '../../src/db/schema.ts';
import { insertRecipients } from '../../src/domain/campaigns/campaigns.repo.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

// Campaigns and their statistics: spec "Campaign", "GET /api/v1/campaigns...", D1, D2, D3, D4,
// D5, D6, D7, D8, D11, D13.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'FAILED'] as const;
type Status = (typeof STATUSES)[number];

/** Spec fields plus D13's, D22's (format, template_id), D23's (variants, ab_test, send_window) and D26.2's (held), nothing else (D5: absent optional strings are present as null). */
const CAMPAIGN_KEYS = [
  'id', 'name', 'subject', 'status', 'total_recipients', 'created_at', 'sent_at', 'from_name', 'from_email',
  'reply_to', 'preheader', 'html', 'text', 'list_ids', 'segment_ids', 'tags', 'follow_up', 'variants', 'ab_test', 'scheduled_at', 'updated_at', 'error',
  'send_window', 'format', 'template_id', 'archive', 'archive_url', 'held',
].sort();

/** D1: UTC, `YYYY-MM-DDTHH:MM:SS`, no fraction, no offset. */
const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Bad path ids per D2 (URL-safe spellings). */
const BAD_IDS = ['0', '-1', 'abc', '1.5', '01'];

/** An account of its own with a `*` key, and request helpers bound to that key. */
async function tenant(permissions: string[] = ['*']) {
  const { accountId, key } = await server.createAccountWithKey(permissions);
  const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
  return {
    accountId,
    key,
    call,
    async campaign(body: Record<string, unknown> = {}) {
      const res = await call('POST', '/api/v1/campaigns', { name: 'Campaign', ...body });
      expect(res.status).toBe(200);
      return res.body.data as Record<string, any>;
    },
    async list(name: string): Promise<number> {
      const res = await call('POST', '/api/v1/lists', { name });
      expect(res.status).toBe(200);
      return res.body.data.id;
    },
    async contact(email: string): Promise<number> {
      const res = await call('POST', '/api/v1/contacts', { email });
      expect(res.status).toBe(200);
      return res.body.data.id;
    },
  };
}

function expectError(res: ApiResponse, status: number, code: string, messageMentions?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  if (messageMentions) expect(res.body.error.message).toContain(messageMentions);
}

/** Sending is a later feature: statuses are set directly in the database. */
async function setStatus(id: number, status: Status, extra: Record<string, string | null> = {}) {
  await server.db.updateTable('campaigns').set({ status, ...extra }).where('id', '=', id).execute();
}

async function campaignRow(id: number) {
  return server.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

describe('POST /api/v1/campaigns: create (D13, D4, D5, D1)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  beforeAll(async () => {
    t = await tenant();
  });

  it('needs only name: a DRAFT with every other field null or empty, exact key set', async () => {
    const before = new Date().toISOString().slice(0, 19);
    const res = await t.call('POST', '/api/v1/campaigns', { name: 'Spring sale' });
    const after = new Date().toISOString().slice(0, 19);
    expect(res.status).toBe(200); // D4: creates are 200
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.message.length).toBeGreaterThan(0);

    const c = res.body.data;
    expect(Object.keys(c).sort()).toEqual(CAMPAIGN_KEYS);
    expect(Number.isInteger(c.id)).toBe(true);
    expect(c.id).toBeGreaterThan(0);
    expect(c).toEqual({
      id: c.id,
      name: 'Spring sale',
      subject: null,
      status: 'DRAFT',
      total_recipients: 0,
      created_at: c.created_at,
      sent_at: null,
      from_name: null,
      from_email: null,
      reply_to: null,
      preheader: null,
      html: null,
      text: null,
      list_ids: [],
      segment_ids: [],
      tags: [],
      follow_up: null,
      variants: null,
      ab_test: null,
      scheduled_at: null,
      updated_at: c.created_at,
      error: null,
      send_window: null,
      format: 'html',
      template_id: null,
      archive: false,
      archive_url: null,
      held: null,
    });
    expect(c.created_at).toMatch(D1_TIMESTAMP);
    expect(c.created_at >= before && c.created_at <= after).toBe(true);

    const row = await campaignRow(c.id);
    expect(row?.account_id).toBe(t.accountId);
    expect(row?.status).toBe('DRAFT');
  });

  it('stores and returns every optional field, normalising e-mails, list ids and tags', async () => {
    const l1 = await t.list('Newsletter');
    const l2 = await t.list('Customers');
    const res = await t.call('POST', '/api/v1/campaigns', {
      name: '  Launch  ',
      subject: 'We launched',
      from_name: 'Acme Team',
      from_email: '  News@Example.COM ',
      reply_to: 'Support@Example.com',
      preheader: 'Read this first',
      html: '<p>Hello</p>',
      text: 'Hello',
      list_ids: [l2, l1, l2],
      tags: [' vip ', 'VIP', 'beta', 'Beta'],
    });
    expect(res.status).toBe(200);
    const c = res.body.data;
    expect(Object.keys(c).sort()).toEqual(CAMPAIGN_KEYS);
    expect(c).toMatchObject({
      name: 'Launch',
      subject: 'We launched',
      status: 'DRAFT',
      total_recipients: 0,
      sent_at: null,
      from_name: 'Acme Team',
      from_email: 'news@example.com', // trimmed and lower-cased like every e-mail (D11)
      reply_to: 'support@example.com',
      preheader: 'Read this first',
      html: '<p>Hello</p>',
      text: 'Hello',
      list_ids: [l2, l1], // deduplicated, order kept
      tags: ['vip', 'beta'], // trimmed, duplicates removed case-insensitively, first spelling kept (D11 rules)
      scheduled_at: null,
      error: null,
    });
    // The same object comes back on read (D4: reads carry no message).
    const got = await t.call('GET', `/api/v1/campaigns/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ success: true, data: c });
  });

  it('ignores unknown and read-only body fields (D7): status, total_recipients, id, sent_at', async () => {
    const res = await t.call('POST', '/api/v1/campaigns', {
      name: 'Sneaky',
      status: 'SENT',
      total_recipients: 99,
      id: 424242,
      sent_at: '2026-01-01T00:00:00',
      error: 'x',
      whatever: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Sneaky', status: 'DRAFT', total_recipients: 0, sent_at: null, error: null });
    expect(res.body.data.id).not.toBe(424242);
    expect(res.body.data).not.toHaveProperty('whatever');
  });

  it('accepts a name of exactly 255 characters, counted as code points', async () => {
    expect((await t.call('POST', '/api/v1/campaigns', { name: 'n'.repeat(255) })).body.data.name).toBe('n'.repeat(255));
    const emoji = '\u{1F600}'.repeat(255);
    const res = await t.call('POST', '/api/v1/campaigns', { name: emoji });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe(emoji);
  });

  describe('400 INVALID_REQUEST, nothing created (D7)', () => {
    const cases: [string, unknown, string][] = [
      ['name missing', { subject: 'x' }, 'name'],
      ['name empty', { name: '' }, 'name'],
      ['name blank after trimming', { name: '   ' }, 'name'],
      ['name of 256 characters', { name: 'n'.repeat(256) }, 'name'],
      ['name not a string', { name: 42 }, 'name'],
      ['name null', { name: null }, 'name'],
      ['from_email invalid', { name: 'x', from_email: 'not-an-email' }, 'from_email'],
      ['from_email without a dotted domain', { name: 'x', from_email: 'a@localhost' }, 'from_email'],
      ['from_email empty', { name: 'x', from_email: '' }, 'from_email'],
      ['reply_to invalid', { name: 'x', reply_to: 'reply@' }, 'reply_to'],
      ['reply_to not a string', { name: 'x', reply_to: 5 }, 'reply_to'],
      ['list_ids not an array', { name: 'x', list_ids: 1 }, 'list_ids'],
      ['list_ids with 0', { name: 'x', list_ids: [0] }, 'list_ids'],
      ['list_ids with a string id', { name: 'x', list_ids: ['1'] }, 'list_ids'],
      ['tags not an array', { name: 'x', tags: 'vip' }, 'tags'],
      ['a tag that is not a string', { name: 'x', tags: [1] }, 'tags'],
      ['an empty tag', { name: 'x', tags: [''] }, 'tags'],
      ['a blank tag', { name: 'x', tags: ['   '] }, 'tags'],
      ['a tag of 65 characters', { name: 'x', tags: ['t'.repeat(65)] }, 'tags'],
      ['101 distinct tags', { name: 'x', tags: Array.from({ length: 101 }, (_, i) => `tag${i}`) }, 'tags'],
    ];
    for (const [label, body, field] of cases) {
      it(label, async () => {
        const countBefore = (await t.call('GET', '/api/v1/campaigns?size=1')).body.data.totalElements;
        expectError(await t.call('POST', '/api/v1/campaigns', body), 400, 'INVALID_REQUEST', field);
        expect((await t.call('GET', '/api/v1/campaigns?size=1')).body.data.totalElements).toBe(countBefore);
      });
    }

    it('malformed JSON', async () => {
      expectError(await server.request('POST', '/api/v1/campaigns', { key: t.key, rawBody: '{"name": ' }), 400, 'INVALID_REQUEST');
    });
  });

  it('tags follow the contact rules: 64 characters and 100 tags are fine; 101 spellings of 100 tags too', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `tag${i}`);
    const res = await t.call('POST', '/api/v1/campaigns', { name: 'Tags', tags: hundred });
    expect(res.status).toBe(200);
    expect(res.body.data.tags).toEqual(hundred);
    // D11: duplicates are removed first; at most 100 remain. 101 entries naming 100 tags is accepted, as for contacts.
    const dup = await t.call('POST', '/api/v1/campaigns', { name: 'Tags', tags: [...hundred, 'TAG0'] });
    expect(dup.status).toBe(200);
    expect(dup.body.data.tags).toEqual(hundred);
    const long = await t.call('POST', '/api/v1/campaigns', { name: 'Tags', tags: ['t'.repeat(64)] });
    expect(long.status).toBe(200);
    expect(long.body.data.tags).toEqual(['t'.repeat(64)]);
  });

  it('list_ids naming a missing list: 404 LIST_NOT_FOUND, nothing created', async () => {
    const ok = await t.list('Exists');
    const countBefore = (await t.call('GET', '/api/v1/campaigns?size=1')).body.data.totalElements;
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', list_ids: [ok, 999999] }), 404, 'LIST_NOT_FOUND');
    expect((await t.call('GET', '/api/v1/campaigns?size=1')).body.data.totalElements).toBe(countBefore);
  });

  it("list_ids naming another account's list: 404 LIST_NOT_FOUND (D3)", async () => {
    const other = await tenant();
    const foreign = await other.list('Theirs');
    expectError(await t.call('POST', '/api/v1/campaigns', { name: 'x', list_ids: [foreign] }), 404, 'LIST_NOT_FOUND');
  });
});

describe('GET /api/v1/campaigns: paging, order and status filter (D6)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  /** ids by status, newest first */
  const byStatus: Record<Status, number[]> = { DRAFT: [], SCHEDULED: [], SENDING: [], SENT: [], FAILED: [] };
  let all: number[] = [];

  beforeAll(async () => {
    t = await tenant();
    // 8 campaigns created in order; the last two share one created_at (tie broken by id, D6).
    const plan: Status[] = ['DRAFT', 'SENT', 'SCHEDULED', 'SENT', 'FAILED', 'SENDING', 'DRAFT', 'SENT'];
    const created: number[] = [];
    for (const [i, status] of plan.entries()) {
      const c = await t.campaign({ name: `C${i}` });
      const createdAt = i >= 6 ? '2026-03-01T12:00:00.000Z' : `2026-02-0${i + 1}T12:00:00.000Z`;
      await setStatus(c.id, status, { created_at: createdAt });
      created.push(c.id);
    }
    all = [...created].reverse();
    for (const id of all) byStatus[plan[created.indexOf(id)]].push(id);
  });

  const ids = (res: ApiResponse) => res.body.data.campaigns.map((c: { id: number }) => c.id);

  it('pages newest first with ties by id descending; default page 0, size 20; no message on reads', async () => {
    const res = await t.call('GET', '/api/v1/campaigns');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    expect(res.body.data).toEqual({ campaigns: expect.any(Array), page: 0, size: 20, totalElements: 8, totalPages: 1 });
    expect(ids(res)).toEqual(all);
    for (const c of res.body.data.campaigns) expect(Object.keys(c).sort()).toEqual(CAMPAIGN_KEYS);
    // The tie: equal created_at, the higher id first.
    expect(res.body.data.campaigns[0].created_at).toBe(res.body.data.campaigns[1].created_at);
    expect(res.body.data.campaigns[0].id).toBeGreaterThan(res.body.data.campaigns[1].id);
  });

  it('pages of 3: contiguous slices with true totals', async () => {
    const pages = [];
    for (const page of [0, 1, 2]) {
      const res = await t.call('GET', `/api/v1/campaigns?page=${page}&size=3`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page, size: 3, totalElements: 8, totalPages: 3 });
      pages.push(...ids(res));
    }
    expect(pages).toEqual(all);
  });

  for (const status of STATUSES) {
    it(`status=${status} returns only ${status} campaigns, newest first, and totalElements counts the filter`, async () => {
      const res = await t.call('GET', `/api/v1/campaigns?status=${status}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(byStatus[status]);
      for (const c of res.body.data.campaigns) expect(c.status).toBe(status);
      expect(res.body.data.totalElements).toBe(byStatus[status].length);
      expect(res.body.data.totalPages).toBe(Math.ceil(byStatus[status].length / 20));
    });
  }

  it('filter and paging together: status=SENT&size=2&page=1', async () => {
    const res = await t.call('GET', '/api/v1/campaigns?status=SENT&size=2&page=1');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
    expect(ids(res)).toEqual(byStatus.SENT.slice(2));
  });

  for (const bad of ['ARCHIVED', 'draft', 'SENT,DRAFT']) {
    it(`unknown status ${bad}: 400 INVALID_REQUEST`, async () => {
      expectError(await t.call('GET', `/api/v1/campaigns?status=${encodeURIComponent(bad)}`), 400, 'INVALID_REQUEST', 'status');
    });
  }

  it('size=100 is accepted', async () => {
    const res = await t.call('GET', '/api/v1/campaigns?size=100');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ page: 0, size: 100, totalElements: 8, totalPages: 1 });
    expect(ids(res)).toEqual(all);
  });

  for (const query of ['size=101', 'size=0', 'size=-1', 'size=abc', 'size=2.5', 'page=-1', 'page=abc', 'page=1.5']) {
    it(`${query}: 400 INVALID_REQUEST`, async () => {
      expectError(await t.call('GET', `/api/v1/campaigns?${query}`), 400, 'INVALID_REQUEST', query.split('=')[0]);
    });
  }

  it('a page past the last: 200, empty array, true totals', async () => {
    const res = await t.call('GET', '/api/v1/campaigns?page=5&size=3');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { campaigns: [], page: 5, size: 3, totalElements: 8, totalPages: 3 } });
    const filtered = await t.call('GET', '/api/v1/campaigns?status=FAILED&page=1');
    expect(filtered.body.data).toEqual({ campaigns: [], page: 1, size: 20, totalElements: 1, totalPages: 1 });
  });

  it("never shows another account's campaigns (D3); an empty account has 0 pages", async () => {
    const other = await tenant();
    const res = await other.call('GET', '/api/v1/campaigns');
    expect(res.body).toEqual({ success: true, data: { campaigns: [], page: 0, size: 20, totalElements: 0, totalPages: 0 } });
  });
});

describe('GET /api/v1/campaigns/{id} (D2, D3)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  beforeAll(async () => {
    t = await tenant();
  });

  it('shows a SENT campaign with sent_at and total_recipients in D1 form', async () => {
    const c = await t.campaign({ name: 'Done' });
    await setStatus(c.id, 'SENT', { sent_at: '2026-01-02T03:04:05.678Z' });
    await server.db.updateTable('campaigns').set({ total_recipients: 12 }).where('id', '=', c.id).execute();
    const res = await t.call('GET', `/api/v1/campaigns/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { ...c, status: 'SENT', sent_at: '2026-01-02T03:04:05', total_recipients: 12 } });
  });

  it('404 CAMPAIGN_NOT_FOUND for an unknown id', async () => {
    expectError(await t.call('GET', '/api/v1/campaigns/999999'), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it("404 CAMPAIGN_NOT_FOUND for another account's campaign (D3)", async () => {
    const other = await tenant();
    const theirs = await other.campaign({ name: 'Theirs' });
    expectError(await t.call('GET', `/api/v1/campaigns/${theirs.id}`), 404, 'CAMPAIGN_NOT_FOUND');
  });

  for (const huge of ['99999999999999999999', '9007199254740993']) {
    it(`a huge id ${huge} is a positive integer: 404, not 400 or 500 (D2)`, async () => {
      expectError(await t.call('GET', `/api/v1/campaigns/${huge}`), 404, 'CAMPAIGN_NOT_FOUND');
    });
  }

  it('D2: ids that are not positive integers are 400 INVALID_REQUEST on every campaign route', async () => {
    for (const id of BAD_IDS) {
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PUT', '', { name: 'x' }],
        ['DELETE', '', undefined],
        ['GET', '/statistics', undefined],
      ] as const) {
        const res = await t.call(method, `/api/v1/campaigns/${id}${suffix}`, body);
        expect([method, suffix, id, res.status]).toEqual([method, suffix, id, 400]);
        expectError(res, 400, 'INVALID_REQUEST');
      }
    }
  });
});

describe('PUT /api/v1/campaigns/{id}: edit only in DRAFT or SCHEDULED (D13)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  beforeAll(async () => {
    t = await tenant();
  });

  it('edits a DRAFT: given fields change, omitted ones are kept, updated_at moves, message present', async () => {
    const list = await t.list('Edit list');
    const c = await t.campaign({ name: 'Draft', subject: 'Old subject', from_email: 'a@example.com', tags: ['keep'] });
    await server.db.updateTable('campaigns').set({ created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' }).where('id', '=', c.id).execute();

    const res = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { subject: 'New subject', html: '<b>hi</b>', list_ids: [list], reply_to: ' R@Example.com ' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(typeof res.body.message).toBe('string');
    const u = res.body.data;
    expect(Object.keys(u).sort()).toEqual(CAMPAIGN_KEYS);
    expect(u).toEqual({
      ...c,
      subject: 'New subject',
      html: '<b>hi</b>',
      list_ids: [list],
      reply_to: 'r@example.com',
      created_at: '2025-01-01T00:00:00',
      updated_at: u.updated_at,
    });
    expect(u.updated_at).toMatch(D1_TIMESTAMP);
    expect(u.updated_at > '2025-01-01T00:00:00').toBe(true);
    expect((await t.call('GET', `/api/v1/campaigns/${c.id}`)).body.data).toEqual(u);
  });

  it('null clears an optional field; tags and list_ids are replaced entirely', async () => {
    const l1 = await t.list('R1');
    const l2 = await t.list('R2');
    const c = await t.campaign({ name: 'Clear', subject: 'S', preheader: 'P', list_ids: [l1], tags: ['a', 'b'] });
    const res = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { subject: null, preheader: null, list_ids: [l2], tags: ['C '] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Clear', subject: null, preheader: null, list_ids: [l2], tags: ['C'] });
    const emptied = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { list_ids: [], tags: [] });
    expect(emptied.body.data).toMatchObject({ list_ids: [], tags: [] });
  });

  it('edits a SCHEDULED campaign and keeps it SCHEDULED with its schedule', async () => {
    const c = await t.campaign({ name: 'Planned' });
    await setStatus(c.id, 'SCHEDULED', { scheduled_at: '2030-06-01T08:00:00.000Z' });
    const res = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { name: 'Planned, renamed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: c.id, name: 'Planned, renamed', status: 'SCHEDULED', scheduled_at: '2030-06-01T08:00:00' });
  });

  for (const status of ['SENDING', 'SENT'] as const) {
    it(`409 INVALID_STATE in ${status}; nothing changes`, async () => {
      const c = await t.campaign({ name: `In ${status}`, subject: 'Fixed' });
      await setStatus(c.id, status);
      const before = await campaignRow(c.id);
      expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, { name: 'Changed', subject: 'Changed' }), 409, 'INVALID_STATE');
      expect(await campaignRow(c.id)).toEqual(before);
    });
  }

  describe('validation (D7), nothing changes', () => {
    const cases: [string, unknown, number, string][] = [
      ['name empty', { name: '' }, 400, 'INVALID_REQUEST'],
      ['name blank', { name: '  ' }, 400, 'INVALID_REQUEST'],
      ['name null', { name: null }, 400, 'INVALID_REQUEST'],
      ['name of 256 characters', { name: 'n'.repeat(256) }, 400, 'INVALID_REQUEST'],
      ['from_email invalid', { from_email: 'nope' }, 400, 'INVALID_REQUEST'],
      ['reply_to invalid', { reply_to: 'nope@nope' }, 400, 'INVALID_REQUEST'],
      ['a tag of 65 characters', { tags: ['t'.repeat(65)] }, 400, 'INVALID_REQUEST'],
      ['list_ids naming a missing list', { subject: 'Changed', list_ids: [999999] }, 404, 'LIST_NOT_FOUND'],
    ];
    for (const [label, body, status, code] of cases) {
      it(`${label}: ${status} ${code}`, async () => {
        const c = await t.campaign({ name: 'Valid', subject: 'Kept' });
        const before = await campaignRow(c.id);
        expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, body), status, code);
        expect(await campaignRow(c.id)).toEqual(before);
      });
    }

    it("list_ids naming another account's list: 404 LIST_NOT_FOUND (D3)", async () => {
      const other = await tenant();
      const foreign = await other.list('Foreign');
      const c = await t.campaign({ name: 'Valid' });
      expectError(await t.call('PUT', `/api/v1/campaigns/${c.id}`, { list_ids: [foreign] }), 404, 'LIST_NOT_FOUND');
    });
  });

  it('404 CAMPAIGN_NOT_FOUND for an unknown id and for another account\'s campaign (D3)', async () => {
    expectError(await t.call('PUT', '/api/v1/campaigns/999999', { name: 'x' }), 404, 'CAMPAIGN_NOT_FOUND');
    const other = await tenant();
    const theirs = await other.campaign({ name: 'Theirs' });
    expectError(await t.call('PUT', `/api/v1/campaigns/${theirs.id}`, { name: 'Mine now' }), 404, 'CAMPAIGN_NOT_FOUND');
    expect((await campaignRow(theirs.id))?.name).toBe('Theirs');
  });
});

describe('DELETE /api/v1/campaigns/{id}: allowed unless SENDING (D13)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  beforeAll(async () => {
    t = await tenant();
  });

  for (const status of ['DRAFT', 'SCHEDULED', 'SENT', 'FAILED'] as const) {
    it(`deletes a ${status} campaign: 200 with id and message, then 404`, async () => {
      const c = await t.campaign({ name: `Delete ${status}` });
      await setStatus(c.id, status);
      const res = await t.call('DELETE', `/api/v1/campaigns/${c.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: c.id }, message: expect.any(String) });
      expect(await campaignRow(c.id)).toBeUndefined();
      expectError(await t.call('GET', `/api/v1/campaigns/${c.id}`), 404, 'CAMPAIGN_NOT_FOUND');
      expectError(await t.call('DELETE', `/api/v1/campaigns/${c.id}`), 404, 'CAMPAIGN_NOT_FOUND');
    });
  }

  it('deleting a SENT campaign keeps its recipient rows, for the links in delivered mail (D17.3), and hides it', async () => {
    const c = await t.campaign({ name: 'With recipients' });
    await setStatus(c.id, 'SENT');
    await seedRecipients(c.id, [{ sent: true }, { sent: true, opened: true }]);
    expect((await t.call('DELETE', `/api/v1/campaigns/${c.id}`)).status).toBe(200);
    expect(await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', c.id).execute()).toHaveLength(2);
    expectError(await t.call('GET', `/api/v1/campaigns/${c.id}`), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('409 INVALID_STATE while SENDING; the campaign stays', async () => {
    const c = await t.campaign({ name: 'Busy' });
    await setStatus(c.id, 'SENDING');
    expectError(await t.call('DELETE', `/api/v1/campaigns/${c.id}`), 409, 'INVALID_STATE');
    expect((await t.call('GET', `/api/v1/campaigns/${c.id}`)).body.data).toMatchObject({ id: c.id, status: 'SENDING' });
  });

  it("404 CAMPAIGN_NOT_FOUND for an unknown id and another account's campaign, which stays (D3)", async () => {
    expectError(await t.call('DELETE', '/api/v1/campaigns/999999'), 404, 'CAMPAIGN_NOT_FOUND');
    const other = await tenant();
    const theirs = await other.campaign({ name: 'Theirs' });
    expectError(await t.call('DELETE', `/api/v1/campaigns/${theirs.id}`), 404, 'CAMPAIGN_NOT_FOUND');
    expect(await campaignRow(theirs.id)).toBeDefined();
  });
});

/** One recipient's outcome; every outcome implies it was sent (D13: bounced counts within sent). */
interface Outcome {
  sent?: boolean;
  bounced?: boolean;
  opened?: boolean;
  clicked?: boolean;
  complained?: boolean;
  unsubscribed?: boolean;
  contactId?: number;
  email?: string;
}

let recipientSeq = 0;
async function seedRecipients(campaignId: number, outcomes: Outcome[]) {
  const at = (flag: boolean | undefined, minute: number) => (flag ? `2026-01-10T10:0${minute}:00.000Z` : null);
  const rows: NewCampaignRecipient[] = outcomes.map((o) => ({
    campaign_id: campaignId,
    contact_id: o.contactId ?? null,
    email: o.email ?? `r${++recipientSeq}@example.com`,
    status: o.bounced ? 'BOUNCED' : o.sent ? 'SENT' : 'PENDING',
    sent_at: at(o.sent, 0),
    bounced_at: at(o.bounced, 1),
    opened_at: at(o.opened, 2),
    clicked_at: at(o.clicked, 3),
    complained_at: at(o.complained, 4),
    unsubscribed_at: at(o.unsubscribed, 5),
  }));
  await insertRecipients(server.db, rows);
}

const repeat = (n: number, o: Outcome): Outcome[] => Array.from({ length: n }, () => ({ ...o }));

describe('GET /api/v1/campaigns/{id}/statistics (spec definitions, D13, D11)', () => {
  let t: Awaited<ReturnType<typeof tenant>>;
  beforeAll(async () => {
    t = await tenant();
  });

  async function sentCampaign(outcomes: Outcome[]) {
    const c = await t.campaign({ name: 'Sent' });
    await setStatus(c.id, 'SENT', { sent_at: '2026-01-10T10:00:00.000Z' });
    await seedRecipients(c.id, outcomes);
    return c.id as number;
  }
  const stats = (id: number) => t.call('GET', `/api/v1/campaigns/${id}/statistics`);

  for (const status of ['DRAFT', 'SCHEDULED', 'SENDING', 'FAILED'] as const) {
    it(`409 CAMPAIGN_NOT_SENT for a ${status} campaign, even with recipient rows`, async () => {
      const c = await t.campaign({ name: status });
      await setStatus(c.id, status);
      await seedRecipients(c.id, [{ sent: true, opened: true }]);
      expectError(await stats(c.id), 409, 'CAMPAIGN_NOT_SENT');
    });
  }

  it('404 CAMPAIGN_NOT_FOUND for an unknown id and for another account\'s SENT campaign (D3)', async () => {
    expectError(await stats(999999), 404, 'CAMPAIGN_NOT_FOUND');
    const other = await tenant();
    const theirs = await other.campaign({ name: 'Theirs' });
    await setStatus(theirs.id, 'SENT');
    expectError(await stats(theirs.id), 404, 'CAMPAIGN_NOT_FOUND');
  });

  // 12 recipients: 10 sent (1 bounced) and 2 never sent. delivered = 9.
  const MIX: Outcome[] = [
    { sent: true, bounced: true },
    { sent: true, opened: true, clicked: true },
    { sent: true, opened: true, clicked: true },
    { sent: true, opened: true },
    { sent: true, opened: true, complained: true },
    { sent: true, opened: true },
    { sent: true, opened: true },
    { sent: true },
    { sent: true, unsubscribed: true },
    { sent: true },
    { sent: false },
    { sent: false },
  ];
  // D23's kinds: rows seeded here carry none, as rows recorded before the classification do.
  const NO_KINDS = { human_opened: 0, machine_opened: 0, human_clicked: 0, machine_clicked: 0, human_open_rate: 0, human_click_rate: 0 };
  const MIX_STATS = {
    ...NO_KINDS,
    sent: 10,
    delivered: 9, // sent - bounced
    opened: 6,
    clicked: 2,
    bounced: 1,
    complained: 1,
    unsubscribed: 1,
    open_rate: 66.67, // 6 / 9 = 66.666..., rounded up
    click_rate: 22.22, // 2 / 9 = 22.222..., rounded down
    bounce_rate: 10, // 1 / 10
    click_to_open_rate: 33.33, // 2 / 6
    unsubscribe_rate: 11.11, // 1 / 9
  };

  it('counts every outcome and computes every rate exactly, to 2 decimals; no message on a read', async () => {
    const id = await sentCampaign(MIX);
    // Another campaign's recipients never count.
    await sentCampaign([{ sent: true, opened: true, clicked: true }, { sent: true, bounced: true }]);
    const res = await stats(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: MIX_STATS });
  });

  it('is computed in real time: an open through the tracking pixel shows at once, counted once', async () => {
    const id = await sentCampaign(repeat(3, { sent: true }));
    expect((await stats(id)).body.data).toMatchObject({ sent: 3, delivered: 3, opened: 0, open_rate: 0, click_to_open_rate: 0 });
    const first = await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', id).orderBy('id').executeTakeFirstOrThrow();
    const pixel = `/t/o/${server.core.signer.sign({ kind: 'open', recipientId: first.id })}`;
    expect((await server.request('GET', pixel)).status).toBe(200);
    expect((await server.request('GET', pixel)).status).toBe(200);
    expect((await stats(id)).body.data).toMatchObject({ opened: 1, open_rate: 33.33, click_to_open_rate: 0 }); // 1 / 3
  });

  it('rounds half up at 2 decimals: 23 bounced of 160 sent is 14.375% -> 14.38', async () => {
    const id = await sentCampaign([...repeat(23, { sent: true, bounced: true }), ...repeat(137, { sent: true })]);
    const res = await stats(id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...NO_KINDS,
      sent: 160,
      delivered: 137,
      opened: 0,
      clicked: 0,
      bounced: 23,
      complained: 0,
      unsubscribed: 0,
      open_rate: 0,
      click_rate: 0,
      bounce_rate: 14.38,
      click_to_open_rate: 0,
      unsubscribe_rate: 0,
    });
  });

  it('zero denominators give 0 (D13): a SENT campaign with no recipients', async () => {
    const id = await sentCampaign([]);
    const res = await stats(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        ...NO_KINDS,
        sent: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        bounced: 0,
        complained: 0,
        unsubscribed: 0,
        open_rate: 0,
        click_rate: 0,
        bounce_rate: 0,
        click_to_open_rate: 0,
        unsubscribe_rate: 0,
      },
    });
  });

  it('zero denominators give 0 (D13): everything bounced, so delivered is 0 while bounce_rate is 100', async () => {
    const id = await sentCampaign(repeat(2, { sent: true, bounced: true }));
    expect((await stats(id)).body.data).toEqual({
      ...NO_KINDS,
      sent: 2,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 2,
      complained: 0,
      unsubscribed: 0,
      open_rate: 0,
      click_rate: 0,
      bounce_rate: 100,
      click_to_open_rate: 0,
      unsubscribe_rate: 0,
    });
  });

  it('deleting contacts afterwards leaves the statistics unchanged (D11)', async () => {
    const emails = MIX.map((_, i) => `stat-${i}@example.com`);
    const contactIds: number[] = [];
    for (const email of emails) contactIds.push(await t.contact(email));
    const id = await sentCampaign(MIX.map((o, i) => ({ ...o, contactId: contactIds[i], email: emails[i] })));
    expect((await stats(id)).body.data).toEqual(MIX_STATS);

    // Delete the bounced, a clicking, the complaining and the unsubscribed recipient, plus one never sent.
    for (const i of [0, 1, 4, 8, 10]) {
      const res = await t.call('DELETE', `/api/v1/contacts/${encodeURIComponent(emails[i])}`);
      expect(res.status).toBe(200);
    }
    const after = await stats(id);
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ success: true, data: MIX_STATS });
    // The recipient rows stay, only detached from the deleted contacts.
    const rows = await server.db.selectFrom('campaign_recipients').select(['email', 'contact_id']).where('campaign_id', '=', id).orderBy('id').execute();
    expect(rows.map((r) => r.email)).toEqual(emails);
    expect(rows.map((r) => (r.contact_id === null ? null : Number(r.contact_id)))).toEqual(contactIds.map((cid, i) => ([0, 1, 4, 8, 10].includes(i) ? null : cid)));
  });
});

describe('permissions (D13, D8)', () => {
  let owner: Awaited<ReturnType<typeof tenant>>;
  let campaignId: number;
  let sentId: number;
  beforeAll(async () => {
    owner = await tenant();
    campaignId = (await owner.campaign({ name: 'Perm' })).id;
    sentId = (await owner.campaign({ name: 'Perm sent' })).id;
    await setStatus(sentId, 'SENT');
  });

  async function keyWith(permissions: string[]) {
    const { key } = await server.createKey(owner.accountId, permissions);
    return (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
  }

  it('campaigns.read: every read and statistics; 403 PERMISSION_DENIED on create, edit and delete', async () => {
    const call = await keyWith(['campaigns.read']);
    expect((await call('GET', '/api/v1/campaigns')).status).toBe(200);
    expect((await call('GET', `/api/v1/campaigns/${campaignId}`)).status).toBe(200);
    expect((await call('GET', `/api/v1/campaigns/${sentId}/statistics`)).status).toBe(200);
    expectError(await call('POST', '/api/v1/campaigns', { name: 'No' }), 403, 'PERMISSION_DENIED');
    expectError(await call('PUT', `/api/v1/campaigns/${campaignId}`, { name: 'No' }), 403, 'PERMISSION_DENIED');
    expectError(await call('DELETE', `/api/v1/campaigns/${campaignId}`), 403, 'PERMISSION_DENIED');
    expect((await campaignRow(campaignId))?.name).toBe('Perm');
    expect((await owner.call('GET', '/api/v1/campaigns')).body.data.totalElements).toBe(2);
  });

  it('campaigns.write: create, edit, delete; 403 PERMISSION_DENIED on reads and statistics', async () => {
    const call = await keyWith(['campaigns.write']);
    const created = await call('POST', '/api/v1/campaigns', { name: 'By writer' });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect((await call('PUT', `/api/v1/campaigns/${id}`, { subject: 'Edited' })).body.data.subject).toBe('Edited');
    expectError(await call('GET', '/api/v1/campaigns'), 403, 'PERMISSION_DENIED');
    expectError(await call('GET', `/api/v1/campaigns/${id}`), 403, 'PERMISSION_DENIED');
    expectError(await call('GET', `/api/v1/campaigns/${sentId}/statistics`), 403, 'PERMISSION_DENIED');
    expect((await call('DELETE', `/api/v1/campaigns/${id}`)).status).toBe(200);
    expect(await campaignRow(id)).toBeUndefined();
  });

  it('other permissions (campaigns.send, contacts.*, lists.*) grant nothing here', async () => {
    const call = await keyWith(['campaigns.send', 'contacts.read', 'contacts.write', 'lists.read', 'lists.write']);
    expectError(await call('GET', '/api/v1/campaigns'), 403, 'PERMISSION_DENIED');
    expectError(await call('GET', `/api/v1/campaigns/${campaignId}`), 403, 'PERMISSION_DENIED');
    expectError(await call('GET', `/api/v1/campaigns/${sentId}/statistics`), 403, 'PERMISSION_DENIED');
    expectError(await call('POST', '/api/v1/campaigns', { name: 'No' }), 403, 'PERMISSION_DENIED');
    expectError(await call('PUT', `/api/v1/campaigns/${campaignId}`, { name: 'No' }), 403, 'PERMISSION_DENIED');
    expectError(await call('DELETE', `/api/v1/campaigns/${campaignId}`), 403, 'PERMISSION_DENIED');
  });

  it('permission comes before validation and before lookups (D8)', async () => {
    const call = await keyWith(['campaigns.read']);
    expectError(await call('POST', '/api/v1/campaigns', { name: '' }), 403, 'PERMISSION_DENIED');
    expectError(await call('PUT', '/api/v1/campaigns/abc', { name: 5 }), 403, 'PERMISSION_DENIED');
    expectError(await call('DELETE', '/api/v1/campaigns/999999'), 403, 'PERMISSION_DENIED');
    const writer = await keyWith(['campaigns.write']);
    expectError(await writer('GET', '/api/v1/campaigns?size=0'), 403, 'PERMISSION_DENIED');
    expectError(await writer('GET', '/api/v1/campaigns/0/statistics'), 403, 'PERMISSION_DENIED');
  });

  it('no key: 401 UNAUTHORIZED on every campaign route, before validation', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/campaigns', undefined],
      ['POST', '/api/v1/campaigns', { name: '' }],
      ['GET', `/api/v1/campaigns/${campaignId}`, undefined],
      ['PUT', `/api/v1/campaigns/${campaignId}`, { name: 'x' }],
      ['DELETE', `/api/v1/campaigns/${campaignId}`, undefined],
      ['GET', `/api/v1/campaigns/${sentId}/statistics`, undefined],
    ] as const) {
      expectError(await server.request(method, path, { body }), 401, 'UNAUTHORIZED');
    }
    expect(await campaignRow(campaignId)).toBeDefined();
  });
});
