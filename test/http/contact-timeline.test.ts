/**
 * Issue 34: GET /api/v1/contacts/{email}/timeline: a contact's activity, newest first, paged by
 * cursor across its kinds. A real send through the dev inbox, real pixel, link, trap and
 * one-click unsubscribe requests; the times are then spread out in the rows, so the order
 * asserted is the one a reader would see over days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, hit, linksIn, onServer, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const EMAIL = 'ann@timeline.test';
const path = (email: string, query = '') => `/api/v1/contacts/${encodeURIComponent(email)}/timeline${query}`;

let server: TestServer;
let t: Tenant;
let campaignId: number;
let listId: number;
let otherListId: number;

/** Every page of the timeline at `size`, following next_cursor. */
async function allPages(size: number, key = t.key) {
  const entries: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const res: { status: number; body: any } = await server.request('GET', path(EMAIL, `?size=${size}${cursor ? `&cursor=${cursor}` : ''}`), { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.entries.length).toBeLessThanOrEqual(size);
    entries.push(...res.body.data.entries);
    cursor = res.body.data.next_cursor;
    if (cursor === null) return entries;
  }
  throw new Error('the timeline never ended');
}

const minutesAgo = (n: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, 0) - n * 60_000).toISOString();

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING, TRUST_PROXY: '127.0.0.1' });
  server.sender.dispatcher.start();
  t = await tenant(server);
  listId = await t.list('Readers');
  otherListId = (await t.call('POST', '/api/v1/lists', { name: 'Offers', is_public: true })).body.data.id;
  await t.contact({ email: EMAIL, first_name: 'Ann', list_id: listId });
  // A sign-up by a form to the second list (D20: a FORM consent record, naming the form).
  const form = await t.call('POST', '/api/v1/forms', { name: 'Offers form', list_ids: [otherListId], fields: [{ name: 'email', label: 'E-mail', required: true }] });
  expect(form.status, form.text).toBe(200);
  const signUp = await server.request('POST', `/f/${form.body.data.uid}`, { body: { email: EMAIL }, headers: { accept: 'application/json', 'x-forwarded-for': '198.51.100.20' } });
  expect(signUp.status, signUp.text).toBeLessThan(300);
  const automation = await t.call('POST', '/api/v1/automations', { name: 'After a purchase', trigger: { type: 'EVENT', event: 'purchase' }, steps: [{ type: 'WAIT', seconds: 3600 }] });
  expect(automation.status).toBe(200);
  expect((await t.call('POST', `/api/v1/automations/${automation.body.data.id}/activate`)).status).toBe(200);

  campaignId = (await t.campaign({ ...sendable([listId]), name: 'November news' })).id;
  await t.send(campaignId);
  await t.waitForStatus(campaignId, 'SENT');
  const mail = (await t.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages.find((m: any) => m.campaign_id === campaignId && m.to === EMAIL);
  const { hrefs, imgs, traps } = linksIn(mail.html);
  // Delivered a minute ago, so the click below is a person's (D23: not within 2 seconds of delivery).
  await server.db.updateTable('campaign_recipients').set({ sent_at: new Date(Date.now() - 60_000).toISOString() }).where('campaign_id', '=', campaignId).execute();
  const from = { headers: { 'x-forwarded-for': '203.0.113.10', 'user-agent': CHROME } };
  expect((await hit(onServer(server, imgs.find((u) => u.includes('/t/o/'))!), from)).status).toBe(200);
  expect((await hit(onServer(server, hrefs.find((u) => u.includes('/t/c/'))!), from)).status).toBe(302);
  // The hidden trap link: a scanner's machine click and open (D23).
  await hit(onServer(server, traps[0]!), from);
  const unsubscribe = onServer(server, hrefs.find((u) => u.includes('/u/'))!);
  expect((await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })).status).toBeLessThan(400);
  expect((await t.call('POST', '/v1/events', { email: EMAIL, event: 'purchase', data: { total: 42 } })).status).toBe(202);

  // Spread the times out, one kind a minute, so the order is known (newest first = the list's end first).
  const recipient = () => server.db.updateTable('campaign_recipients').where('campaign_id', '=', campaignId);
  const contactId = (await t.getContact(EMAIL)).id;
  await server.db.updateTable('consents').set({ created_at: minutesAgo(90) }).where('contact_id', '=', contactId).execute();
  await recipient().set({ sent_at: minutesAgo(80), machine_opened_at: minutesAgo(79), machine_clicked_at: minutesAgo(79), human_opened_at: minutesAgo(70), human_clicked_at: minutesAgo(60), unsubscribed_at: minutesAgo(50) }).execute();
  await server.db.updateTable('list_members').set({ status: 'UNSUBSCRIBED', status_changed_at: minutesAgo(40) }).where('contact_id', '=', contactId).where('list_id', '=', otherListId).execute();
  await server.db.updateTable('events').set({ created_at: minutesAgo(30) }).where('contact_id', '=', contactId).execute();
  await server.db.updateTable('automation_runs').set({ created_at: minutesAgo(20) }).where('contact_id', '=', contactId).execute();
});
afterAll(() => server?.close());

describe('issue 34: the contact timeline', () => {
  it('shows each kind newest first, opens and clicks by people and by machines apart', async () => {
    const entries = await allPages(100);
    expect(entries.map((e) => e.kind)).toEqual([
      'automation_run',
      'event',
      'left_list',
      'unsubscribed',
      'clicked',
      'opened',
      // Same minute: by kind, the click (a later kind) first.
      'clicked_by_machine',
      'opened_by_machine',
      'sent',
      // The consents: the list the contact was created on (API) and the form's sign-up, same minute: the later id first.
      'subscribed',
      'subscribed',
    ]);
    const byKind = Object.fromEntries(entries.map((e) => [e.kind, e]));
    for (const kind of ['sent', 'opened', 'opened_by_machine', 'clicked', 'clicked_by_machine', 'unsubscribed']) {
      expect(byKind[kind]).toMatchObject({ campaign: { id: campaignId, name: 'November news' }, form: null, list: null, automation: null });
    }
    expect(byKind.unsubscribed.at).toBe(minutesAgo(50).slice(0, 19));
    expect(byKind.left_list).toMatchObject({ id: otherListId, list: { id: otherListId, name: 'Offers' }, campaign: null });
    expect(byKind.event).toMatchObject({ event: 'purchase', campaign: null });
    expect(byKind.automation_run).toMatchObject({ automation: { name: 'After a purchase' }, detail: 'ACTIVE' });
    expect(entries.slice(-2)).toEqual([
      expect.objectContaining({ kind: 'subscribed', detail: 'FORM', form: { id: expect.any(Number), name: 'Offers form' } }),
      expect.objectContaining({ kind: 'subscribed', detail: 'API', form: null }),
    ]);
    expect(entries[1].at).toBe(minutesAgo(30).slice(0, 19));
  });

  it('pages across kinds by cursor: every page size gives the same entries, each once', async () => {
    const whole = (await allPages(100)).map((e) => `${e.kind}:${e.id}`);
    for (const size of [1, 2, 3, 5]) expect((await allPages(size)).map((e) => `${e.kind}:${e.id}`)).toEqual(whole);
  });

  it('pages through entries of the same instant without losing or repeating one', async () => {
    const same = minutesAgo(5);
    const contactId = (await t.getContact(EMAIL)).id;
    await server.db.updateTable('campaign_recipients').set({ sent_at: same, human_opened_at: same, machine_opened_at: same }).where('campaign_id', '=', campaignId).execute();
    await server.db.updateTable('events').set({ created_at: same }).where('contact_id', '=', contactId).execute();
    const whole = await allPages(100);
    expect(whole.slice(0, 4).map((e) => e.kind)).toEqual(['opened', 'opened_by_machine', 'sent', 'event']);
    expect((await allPages(1)).map((e) => `${e.kind}:${e.id}`)).toEqual(whole.map((e) => `${e.kind}:${e.id}`));
  });

  it('is 404 CONTACT_NOT_FOUND for another account, and needs contacts.read', async () => {
    const other = await tenant(server);
    const res = await other.call('GET', path(EMAIL));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('CONTACT_NOT_FOUND');
    const { key } = await server.createKey(t.accountId, ['campaigns.read']);
    expect((await server.request('GET', path(EMAIL), { key })).status).toBe(403);
    const { key: reader } = await server.createKey(t.accountId, ['contacts.read']);
    expect((await allPages(100, reader)).length).toBeGreaterThan(0);
  });

  it('refuses a size out of range and a cursor it did not give', async () => {
    for (const query of ['?size=0', '?size=101', '?cursor=not-a-cursor', `?cursor=${Buffer.from('["x","sent",1]').toString('base64url')}`, `?cursor=${'A'.repeat(201)}`]) {
      const res = await t.call('GET', path(EMAIL, query));
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('shows each recipient\'s unsubscribe and complaint in the campaign ledger', async () => {
    await server.db.updateTable('campaign_recipients').set({ complained_at: minutesAgo(45) }).where('campaign_id', '=', campaignId).execute();
    const ledger = await t.call('GET', `/api/v1/campaigns/${campaignId}/recipients`);
    expect(ledger.body.data.recipients).toEqual([expect.objectContaining({ email: EMAIL, unsubscribed_at: minutesAgo(50).slice(0, 19), complained_at: minutesAgo(45).slice(0, 19) })]);
    expect((await allPages(100)).some((e) => e.kind === 'complained')).toBe(true);
  });
});
