/**
 * D23 A/B tests: variants over a campaign's content, a test share split equally between them, a
 * wait, and the variant with the best human rate sent to the rest, durably. Real sends to the
 * SMTP sink, real pixel requests from a browser user agent, a real restart during the wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, messagesOfCampaign, onServer, recipientOf, sendable, tenant, type Tenant } from './send-helpers.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const AB_TEST = { test_percent: 50, metric: 'human_opens', wait_minutes: 60 };
const VARIANTS = [{ subject: 'Subject A' }, { subject: 'Subject B', html: '<p>Variant B</p><a href="https://example.com/b">B</a>' }];

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;

const env = () => ({ SMTP_URL: sink.url, ...FAST_SENDING });

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer(env());
  server.sender.dispatcher.start();
  t = await tenant(server);
  list = await t.list('A/B readers');
  const address = addressMaker('ab');
  const emails = Array.from({ length: 40 }, (_, i) => address(`r${i}`));
  for (const email of emails) await t.contact({ email });
  await t.addToList(list, emails);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Polls `read` until `done` holds of its value (fails after 15 s). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const abState = (campaignId: number) =>
  server.db.selectFrom('campaigns').select(['status', 'ab_phase', 'ab_wait_until', 'ab_winner']).where('id', '=', campaignId).executeTakeFirstOrThrow();

const recipientStatuses = async (campaignId: number) => {
  const rows = await server.db.selectFrom('campaign_recipients').select(['email', 'status', 'variant']).where('campaign_id', '=', campaignId).execute();
  return rows;
};

const expectInvalid = async (body: Record<string, unknown>, field: string, method = 'POST', path = '/api/v1/campaigns') => {
  const res = await t.call(method, path, { name: 'Bad A/B', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('INVALID_REQUEST');
  expect(res.body.error.message).toContain(field);
};

describe('A/B settings (D23)', () => {
  it('refuses settings out of range or inconsistent, 400 naming the field', async () => {
    await expectInvalid({ variants: VARIANTS, ab_test: { ...AB_TEST, test_percent: 51 } }, 'ab_test.test_percent');
    await expectInvalid({ variants: VARIANTS, ab_test: { ...AB_TEST, test_percent: 1 } }, 'ab_test.test_percent');
    await expectInvalid({ variants: VARIANTS, ab_test: { ...AB_TEST, wait_minutes: 0 } }, 'ab_test.wait_minutes');
    await expectInvalid({ variants: VARIANTS, ab_test: { ...AB_TEST, wait_minutes: 10081 } }, 'ab_test.wait_minutes');
    await expectInvalid({ variants: VARIANTS, ab_test: { ...AB_TEST, metric: 'opens' } }, 'ab_test.metric');
    await expectInvalid({ variants: [{ subject: 'only one' }], ab_test: AB_TEST }, 'variants');
    await expectInvalid({ variants: [{}, {}, {}, {}, {}], ab_test: AB_TEST }, 'variants');
    await expectInvalid({ variants: [{}, {}, { subject: 'x'.repeat(999) }], ab_test: AB_TEST }, 'variants[2].subject');
    await expectInvalid({ variants: [{}, { html: '<p>{% if %}</p>' }], ab_test: AB_TEST }, 'variants[1].html');
    await expectInvalid({ variants: [{ subject: 'Hi {{ name | nope }}' }, {}], ab_test: AB_TEST }, 'variants[0].subject');
    await expectInvalid({ variants: VARIANTS }, 'ab_test');
    await expectInvalid({ ab_test: AB_TEST }, 'variants');
    const plain = await t.campaign(sendable([list]));
    await expectInvalid({ ab_test: AB_TEST }, 'variants', 'PUT', `/api/v1/campaigns/${plain.id}`);
  });

  it('saves, reads, updates and duplicates the settings', async () => {
    const c = await t.campaign(sendable([list], { variants: VARIANTS, ab_test: AB_TEST }));
    expect(c).toMatchObject({ variants: VARIANTS, ab_test: AB_TEST });
    const updated = (await t.call('PUT', `/api/v1/campaigns/${c.id}`, { ab_test: { ...AB_TEST, wait_minutes: 5 } })).body.data;
    expect(updated).toMatchObject({ variants: VARIANTS, ab_test: { wait_minutes: 5 } });
    const copy = (await t.call('POST', `/api/v1/campaigns/${c.id}/duplicate`)).body.data;
    expect(copy).toMatchObject({ variants: VARIANTS, ab_test: { ...AB_TEST, wait_minutes: 5 } });
    const removed = (await t.call('PUT', `/api/v1/campaigns/${copy.id}`, { variants: null, ab_test: null })).body.data;
    expect(removed).toMatchObject({ variants: null, ab_test: null });
    // The preview shows the base content (a variant is previewed by sending its fields); a test send, the first variant.
    expect((await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, {})).body.data.subject).toMatch(/^Hello/);
    const tester = addressMaker('abtest')('tester');
    expect((await t.call('POST', `/api/v1/campaigns/${c.id}/test`, { emails: [tester] })).status).toBe(200);
    const [testMail] = await until(() => Promise.resolve(sink.messages.filter((m) => recipientOf(m) === tester)), (m) => m.length === 1, 'the test send');
    expect(testMail.subject).toBe('[Test] Subject A');
    // Before sending, the report shows the planned shares and no winner.
    expect((await t.call('GET', `/api/v1/campaigns/${c.id}/variants`)).body.data.variants).toEqual([
      expect.objectContaining({ index: 0, subject: 'Subject A', from_name: 'Acme News', share_percent: 25, sent: 0, winner: null }),
      expect.objectContaining({ index: 1, subject: 'Subject B', share_percent: 25, sent: 0, winner: null }),
    ]);
  });

  it('answers an empty list for a campaign without variants, 404 for no campaign', async () => {
    const plain = await t.campaign(sendable([list]));
    expect((await t.call('GET', `/api/v1/campaigns/${plain.id}/variants`)).body.data).toEqual({ variants: [] });
    const missing = await t.call('GET', '/api/v1/campaigns/999999/variants');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
  });
});

describe('sending an A/B test (D23)', () => {
  it('sends each variant to its share, waits durably through a restart, and sends the winner to the rest', async () => {
    const campaign = await t.campaign(sendable([list], { variants: VARIANTS, ab_test: AB_TEST }));
    await t.send(campaign.id);

    // The test share: 50% of 40, 10 per variant, each with its own subject; the rest is held.
    const testShare = await until(() => Promise.resolve(messagesOfCampaign(sink.messages, campaign.id)), (m) => m.length >= 20, 'the test share');
    const state = await until(() => abState(campaign.id), (s) => s.ab_phase === 'WAITING', 'the wait');
    expect(state.status).toBe('SENDING');
    expect(messagesOfCampaign(sink.messages, campaign.id)).toHaveLength(20);
    const bySubject = (messages: ReceivedMessage[], subject: string) => messages.filter((m) => m.subject === subject);
    expect(bySubject(testShare, 'Subject A')).toHaveLength(10);
    expect(bySubject(testShare, 'Subject B')).toHaveLength(10);
    expect(bySubject(testShare, 'Subject B').every((m) => String(m.html).includes('Variant B'))).toBe(true);
    const rows = await recipientStatuses(campaign.id);
    expect(rows.filter((r) => r.status === 'HELD' && r.variant === null)).toHaveLength(20);
    // The ledger shows the held rest as PENDING.
    expect((await t.call('GET', `/api/v1/campaigns/${campaign.id}/recipients?status=PENDING`)).body.data.totalElements).toBe(20);

    // People open: three of B's, one of A's. Opens are human whenever they come (only clicks are timed).
    const pixelOf = (m: ReceivedMessage) => onServer(server, linksIn(String(m.html)).imgs.find((u) => u.includes('/t/o/'))!);
    const opens = [...bySubject(testShare, 'Subject B').slice(0, 3), bySubject(testShare, 'Subject A')[0]];
    for (const m of opens) expect((await hit(pixelOf(m), { headers: { 'user-agent': CHROME } })).status).toBe(200);
    const running = (await t.call('GET', `/api/v1/campaigns/${campaign.id}/variants`)).body.data.variants;
    expect(running).toEqual([
      { index: 0, subject: 'Subject A', from_name: 'Acme News', share_percent: 25, sent: 10, human_opened: 1, human_clicked: 0, human_open_rate: 10, human_click_rate: 0, winner: null },
      { index: 1, subject: 'Subject B', from_name: 'Acme News', share_percent: 25, sent: 10, human_opened: 3, human_clicked: 0, human_open_rate: 30, human_click_rate: 0, winner: null },
    ]);

    // A restart during the wait: the phase, its end and the held recipients are in the database.
    await server.close({ keepData: true });
    server = await startTestServer({ ...server.env, ...env() });
    expect(await abState(campaign.id)).toEqual(state);
    expect((await recipientStatuses(campaign.id)).filter((r) => r.status === 'HELD')).toHaveLength(20);

    // The wait is over (moved back in the database rather than waited for). Two senders look at
    // once: one picks, the other finds it picked.
    await server.db.updateTable('campaigns').set({ ab_wait_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', campaign.id).execute();
    const picks = await Promise.all([server.core.campaignLifecycle.advanceAbTest(campaign.id), server.core.campaignLifecycle.advanceAbTest(campaign.id)]);
    expect(picks.filter((p) => p.winner !== undefined)).toEqual([{ settled: false, winner: 1 }]);
    server.sender.dispatcher.start();
    t = { ...t, call: (method: string, path: string, body?: unknown) => server.request(method, path, { key: t.key, body }) } as Tenant;
    await until(() => abState(campaign.id), (s) => s.status === 'SENT', 'the campaign to be SENT');

    const all = messagesOfCampaign(sink.messages, campaign.id);
    expect(all).toHaveLength(40);
    expect(new Set(all.map(recipientOf)).size).toBe(40);
    expect(bySubject(all.slice(20), 'Subject B')).toHaveLength(20);
    expect((await abState(campaign.id)).ab_winner).toBe(1);
    expect((await t.call('GET', `/api/v1/campaigns/${campaign.id}/variants`)).body.data.variants).toEqual([
      { index: 0, subject: 'Subject A', from_name: 'Acme News', share_percent: 25, sent: 10, human_opened: 1, human_clicked: 0, human_open_rate: 10, human_click_rate: 0, winner: false },
      { index: 1, subject: 'Subject B', from_name: 'Acme News', share_percent: 75, sent: 30, human_opened: 3, human_clicked: 0, human_open_rate: 10, human_click_rate: 0, winner: true },
    ]);

    // The campaign's one link list holds each variant's links in turn: every message's click goes where its own content said.
    expect((await t.call('GET', `/api/v1/campaigns/${campaign.id}/links`)).body.data.links.map((l: { url: string }) => l.url)).toEqual(['https://example.com/a', 'https://example.com/b']);
    const linkOf = (m: ReceivedMessage) => onServer(server, linksIn(String(m.html)).hrefs.find((u) => u.includes('/t/c/'))!);
    expect((await hit(linkOf(bySubject(all, 'Subject A')[0]), { method: 'HEAD' })).headers.get('location')).toBe('https://example.com/a');
    expect((await hit(linkOf(bySubject(all, 'Subject B')[0]), { method: 'HEAD' })).headers.get('location')).toBe('https://example.com/b');

    // A follow-up takes the winner's content, without a test.
    const followUp = (await t.call('POST', `/api/v1/campaigns/${campaign.id}/follow-up`, { audience: 'NOT_OPENED' })).body.data;
    expect(followUp).toMatchObject({ subject: 'Subject B', html: VARIANTS[1].html, variants: null, ab_test: null });

    // Once started, the test stays as it was drawn: a FAILED A/B campaign (made so here) saves
    // its settings unchanged, as the editor sends every field, but cannot change them (409).
    await server.db.updateTable('campaigns').set({ status: 'FAILED' }).where('id', '=', campaign.id).execute();
    expect((await t.call('PUT', `/api/v1/campaigns/${campaign.id}`, { variants: VARIANTS, ab_test: AB_TEST })).status).toBe(200);
    const changed = await t.call('PUT', `/api/v1/campaigns/${campaign.id}`, { variants: [...VARIANTS, { subject: 'Subject C' }] });
    expect(changed.status).toBe(409);
    expect(changed.body.error.message).toMatch(/variants and ab_test cannot change/);
  });
});
