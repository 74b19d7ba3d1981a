/**
 * issue 28 C2: a segment filter froze the process. `contains` is a LIKE over every contact of the
 * account, and it ran on the HTTP thread (better-sqlite3 is synchronous), so one account's
 * hostile filter stalled every request; on PostgreSQL ten of them held the whole pool. Account A
 * here has 1,000 contacts whose texts make LIKE backtrack, and filters at and over the new caps.
 * Asserted: the caps refuse with 400 naming the limit; the heaviest filter they allow either
 * answers or is stopped at the read budget with a 400 naming it; and meanwhile account B's
 * contact list and /health answer before any of A's counts completes (order, not time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let a: Tenant;
let b: Tenant;

/** The caps (segment-filter.ts FILTER_LIMITS), as numbers: the messages name them. */
const TERM_MAX = 200;
const TERMS_TOTAL = 2000;
const NOTE = 'a'.repeat(1000);
/** A term that almost matches at every position of NOTE: LIKE tries each, comparing up to 200 characters. */
const HOSTILE = 'a'.repeat(TERM_MAX - 1) + 'b';
const contains = (value: string, field = 'custom_fields.note') => ({ field, op: 'contains', value });
/** The heaviest filter the caps allow: every character of the text-match budget spent on hostile terms. */
const AT_CAP = { any: Array.from({ length: TERMS_TOTAL / TERM_MAX }, () => contains(HOSTILE)) };

beforeAll(async () => {
  // A budget short enough that the heaviest count is likely stopped, to see the refusal too.
  server = await startTestServer({ READ_BUDGET_MS: '1500' });
  a = await tenant(server);
  b = await tenant(server);
  const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `c${i}@a.test`, firstName: 'a'.repeat(255), lastName: 'a'.repeat(255), customFields: { note: NOTE } }));
  const imported = await a.call('POST', '/v1/contacts/bulk', { contacts });
  expect(imported.status, imported.text).toBe(200);
  expect((await b.call('POST', '/api/v1/contacts', { email: 'someone@b.test' })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('C2: a segment filter cannot freeze the process (issue 28)', () => {
  it('C2: a text-match term over 200 characters is 400 naming the path and the limit, for a preview and a save', async () => {
    const filter = { all: [contains('x'), contains(HOSTILE + 'b')] };
    for (const [path, body] of [['/api/v1/segments/preview', { filter }], ['/api/v1/segments', { name: 'long', filter }]] as const) {
      const res = await a.call('POST', path, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/^filter\.all\[1\]\.value: .*at most 200 characters$/);
    }
  });

  it("C2: text-match terms over 2,000 characters together are 400 naming where the budget tipped over", async () => {
    const res = await a.call('POST', '/api/v1/segments/preview', { filter: { any: [...AT_CAP.any, contains('a', 'email')] } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toMatch(/^filter\.any\[10\]\.value: .*at most 2000 characters together$/);
  });

  it('C2: a contact search longer than any e-mail or name is 400 naming the limit', async () => {
    const res = await a.call('GET', `/api/v1/contacts?search=${'a'.repeat(256)}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toMatch(/^search must be at most 255 characters/);
  });

  it("C2: while A counts its heaviest filter six times at once (twelve queries, more than PostgreSQL's pool of ten), B's contact list and /health answer before A's counts are done", async () => {
    const finished: string[] = [];
    const track = <T>(label: string, request: Promise<T>) => request.then((res) => (finished.push(label), res));
    const heavy = Array.from({ length: 6 }, (_, i) => track(`A${i}`, a.call('POST', '/api/v1/segments/preview', { filter: AT_CAP })));
    // Sequencing, not a timed assertion: A's requests are on the server before B's are sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const contacts = track('B contacts', b.call('GET', '/api/v1/contacts'));
    const health = track('health', fetch(`${server.url}/health`));
    expect((await contacts).status).toBe(200);
    expect((await health).status).toBe(200);
    const counts = await Promise.all(heavy);
    // A's counts take turns (one of an account's reads at a time), so B queued behind them would
    // finish after the last. On a fast database A's first may be done before B is even sent.
    const lastOfA = Math.max(...finished.map((label, i) => (label.startsWith('A') ? i : -1)));
    expect(finished.indexOf('B contacts'), finished.join(', ')).toBeLessThan(lastOfA);
    expect(finished.indexOf('health'), finished.join(', ')).toBeLessThan(lastOfA);
    for (const res of counts) {
      // Either it answered (no contact holds a "b"), or it was stopped at the budget, saying so.
      if (res.status === 200) expect(res.body.data.count).toBe(0);
      else {
        expect(res.status, res.text).toBe(400);
        expect(res.body.error.message).toMatch(/^filter: the segment's contacts took too long to count; narrow its conditions \(a read may take at most 1\.5 s, READ_BUDGET_MS\)$/);
      }
    }
  }, 120_000);

  it("C2: a search over A's contacts runs in the pool too: it answers with what it found", async () => {
    const res = await a.call('GET', `/api/v1/contacts?search=c99@&size=5`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.contacts.map((c: { email: string }) => c.email)).toEqual(['c99@a.test']);
  });

  it('C2: the list of segments reuses a count (30 s); reading the one segment counts now', async () => {
    const created = await a.call('POST', '/api/v1/segments', { name: 'vip', filter: { field: 'tags', op: 'contains', value: 'vip' } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.data.contact_count).toBe(0);
    expect((await a.call('POST', '/api/v1/contacts', { email: 'vip@a.test', tags: ['vip'] })).status).toBe(200);
    const listed = await a.call('GET', '/api/v1/segments');
    expect(listed.body.data.segments.find((s: { id: number }) => s.id === created.body.data.id).contact_count).toBe(0);
    expect((await a.call('GET', `/api/v1/segments/${created.body.data.id}`)).body.data.contact_count).toBe(1);
    // The single read renewed the list's count.
    const again = await a.call('GET', '/api/v1/segments');
    expect(again.body.data.segments.find((s: { id: number }) => s.id === created.body.data.id).contact_count).toBe(1);
  });
});

describe('C2: a saved segment too slow to count is refused wherever it is read (issue 28)', () => {
  let slow: TestServer;
  let t: Tenant;
  let segmentId: number;

  beforeAll(async () => {
    // The shortest budget there is, so the heaviest filter the caps allow is surely past it.
    slow = await startTestServer({ READ_BUDGET_MS: '100' });
    t = await tenant(slow);
    const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `c${i}@a.test`, customFields: { note: NOTE } }));
    expect((await t.call('POST', '/v1/contacts/bulk', { contacts })).status).toBe(200);
    // Saving counts it first, so such a filter is never saved now; one saved before this change is.
    const refused = await t.call('POST', '/api/v1/segments', { name: 'slow', filter: AT_CAP });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.message).toMatch(/^filter: the segment's contacts took too long to count.*READ_BUDGET_MS\)$/);
    expect(await slow.db.selectFrom('segments').select('id').where('account_id', '=', t.accountId).execute()).toEqual([]);
    const now = new Date().toISOString().slice(0, 19);
    const row = await slow.db
      .insertInto('segments')
      .values({ account_id: t.accountId, name: 'slow', name_key: 'slow', description: null, filter: JSON.stringify(AT_CAP), created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    segmentId = Number(row.id);
  }, 60_000);

  afterAll(async () => {
    await slow?.close();
  });

  it('C2: the list of segments, the audience estimate, a send and a schedule answer 400 naming the limit, and nothing is sent', async () => {
    const listed = await t.call('GET', '/api/v1/segments');
    expect(listed.status, listed.text).toBe(400);
    expect(listed.body.error.message).toMatch(new RegExp(`^segment ${segmentId} \\("slow"\\): filter: the segment's contacts took too long to count.*READ_BUDGET_MS\\)$`));

    const estimate = await t.call('GET', `/api/v1/campaigns/audience-estimate?segment_ids=${segmentId}`);
    expect(estimate.status, estimate.text).toBe(400);
    expect(estimate.body.error.message).toMatch(/^segment_ids: the audience took too long to count.*READ_BUDGET_MS\)$/);

    const campaign = await t.call('POST', '/api/v1/campaigns', { ...sendable([]), name: 'to the slow segment', list_ids: [], segment_ids: [segmentId] });
    expect(campaign.status, campaign.text).toBe(200);
    for (const [path, body] of [[`/api/v1/campaigns/${campaign.body.data.id}/send`, undefined], [`/api/v1/campaigns/${campaign.body.data.id}/schedule`, { scheduled_at: '2099-01-01T00:00:00' }]] as const) {
      const res = await t.call('POST', path, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.message).toMatch(/^segment_ids: the audience took too long to count.*READ_BUDGET_MS\)$/);
    }
    expect((await t.call('GET', `/api/v1/campaigns/${campaign.body.data.id}`)).body.data.status).toBe('DRAFT');
    expect(await slow.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.body.data.id).execute()).toEqual([]);
  });

  it("C2, issue 34: the contacts' CSV export by the segment runs in the read pool and is refused at the budget before any of the file is sent", async () => {
    const res = await t.call('GET', `/api/v1/contacts/export?segment_id=${segmentId}`);
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.error.message).toMatch(/^segment_id: the contacts took too long to export; narrow the filter \(a read may take at most 0\.1 s, READ_BUDGET_MS\)$/);
  });
});
