/**
 * D21 through the API: one person's data exported as one document, and erased, with sent
 * campaigns' statistics exactly as they were, and the address never mailed again (campaigns,
 * automations, test sends) when a contact with it is created again, by the API, a bulk import or
 * an event. Mail goes to a real SMTP server; opens and clicks come through the links it received.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAutomation, allEnded, event, waitForRuns } from '../automations/helpers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, recipientRows, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('personal-data');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  server.sender.automationRunner.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const path = (email: string, action: 'export' | 'erase') => `/api/v1/contacts/${encodeURIComponent(email)}/${action}`;
const exportOf = (email: string, who = t) => who.call('GET', path(email, 'export'));
const erase = (email: string, who = t) => who.call('POST', path(email, 'erase'));
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Sends a campaign to the list and waits until it is SENT. */
async function sendCampaign(listId: number, extra: Record<string, unknown> = {}) {
  const campaign = await t.campaign(sendable([listId], { name: `Campaign ${Math.random()}`, ...extra }));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  return campaign;
}

/** Opens and clicks the campaign's message to `email` through the links it received. */
async function engage(email: string) {
  const [mail] = sink.to(email).slice(-1);
  const { hrefs, imgs } = linksIn(String(mail.html));
  expect((await hit(onServer(server, imgs[0]))).status).toBe(200);
  expect((await hit(onServer(server, hrefs.find((h) => h.includes('/t/c/'))!))).status).toBe(302);
}

/** Everything the API reports about a campaign's outcome, with recipient addresses left out. */
async function campaignReport(campaignId: number) {
  const read = async (p: string) => {
    const res = await t.call('GET', p);
    expect(res.status, `${p}: ${res.text}`).toBe(200);
    return res.body;
  };
  const recipients = (await read(`/api/v1/campaigns/${campaignId}/recipients?size=100`)).data;
  return {
    statistics: await read(`/api/v1/campaigns/${campaignId}/statistics`),
    integration: await read(`/v1/campaigns/${campaignId}/stats`),
    links: await read(`/api/v1/campaigns/${campaignId}/links`),
    progress: await read(`/api/v1/campaigns/${campaignId}/progress`),
    engagement: await read(`/api/v1/campaigns/${campaignId}/engagement`),
    campaign: await read(`/api/v1/campaigns/${campaignId}`),
    recipients: { ...recipients, recipients: recipients.recipients.map(({ email: _email, contact_id: _contact, ...rest }: Record<string, unknown>) => rest) },
    opened: (await read(`/api/v1/campaigns/${campaignId}/recipients?opened=true`)).data.totalElements,
    clicked: (await read(`/api/v1/campaigns/${campaignId}/recipients?clicked=true`)).data.totalElements,
  };
}

describe('D21: GET /api/v1/contacts/{email}/export', () => {
  it('answers the contact, memberships, consents, events, automation runs and campaigns with their engagement', async () => {
    const email = at('ann');
    const list = await t.list(`Export ${Math.random()}`);
    await t.contact({ email, first_name: 'Ann', last_name: 'Lee', tags: ['vip'], custom_fields: { plan: 'gold' }, list_id: list });
    const automation = await activeAutomation(t, { trigger: { type: 'EVENT', event: `ordered-${list}` }, steps: [{ type: 'ADD_TAG', tag: 'buyer' }] });
    expect((await event(server, t.key, { email, event: `ordered-${list}`, data: { order: 'A-1', total: 30 } })).status).toBe(202);
    await waitForRuns(t, automation, allEnded(1));
    const campaign = await sendCampaign(list, { name: 'Spring news' });
    await engage(email);

    const res = await exportOf(email.toUpperCase());
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'data']);
    const data = res.body.data;
    expect(Object.keys(data)).toEqual(['contact', 'memberships', 'consents', 'events', 'automation_runs', 'campaigns']);
    expect(data.contact).toEqual((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).body.data);
    expect(data.contact).toMatchObject({ email, first_name: 'Ann', last_name: 'Lee', tags: ['vip', 'buyer'], custom_fields: { plan: 'gold' } });
    expect(data.memberships).toEqual([expect.objectContaining({ list_id: list, list_name: expect.stringMatching(/^Export /), status: 'SUBSCRIBED', created_at: expect.any(String) })]);
    expect(Object.keys(data.memberships[0])).toEqual(['list_id', 'list_name', 'status', 'created_at', 'status_changed_at']);
    expect(data.events).toEqual([{ id: expect.any(Number), name: `ordered-${list}`, data: { order: 'A-1', total: 30 }, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/) }]);
    expect(data.automation_runs).toEqual([
      expect.objectContaining({
        automation_id: automation,
        automation_name: 'Flow',
        status: 'COMPLETED',
        trigger_type: 'EVENT',
        event_data: { order: 'A-1', total: 30 },
        history: [expect.objectContaining({ step_index: 0, type: 'ADD_TAG', status: 'DONE' })],
      }),
    ]);
    const [row] = await server.db.selectFrom('campaign_recipients').selectAll().where('campaign_id', '=', campaign.id).execute();
    expect(data.campaigns).toEqual([{ campaign_id: campaign.id, name: 'Spring news', sent_at: expect.any(String), opened_at: expect.any(String), clicked_at: expect.any(String) }]);
    expect(Date.parse(data.campaigns[0].sent_at + 'Z')).toBe(Math.floor(new Date(row.sent_at!).getTime() / 1000) * 1000);
    // D20: adding by the API with list_id recorded the account's word for it; the same records as the consents API's.
    expect(data.consents).toEqual((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`)).body.data.consents);
    expect(data.consents).toEqual([{ source: 'API', form_id: null, list_ids: [list], ip: expect.any(String), user_agent: expect.any(String), statement: null, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/) }]);
  });

  it("an unknown address, and another account's contact, are 404 CONTACT_NOT_FOUND; reading needs contacts.read", async () => {
    const email = at('private');
    await t.contact({ email });
    const other = await tenant(server);
    for (const res of [await exportOf(at('nobody')), await exportOf(email, other), await erase(email, other), await erase(at('nobody'))]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'CONTACT_NOT_FOUND', message: expect.any(String) } });
    }
    const writer = await tenant(server, ['contacts.write']);
    expect((await exportOf(email, writer)).status).toBe(403);
    const reader = await tenant(server, ['contacts.read']);
    expect((await erase(email, reader)).status).toBe(403);
    expect((await t.getContact(email)).email).toBe(email);
  });
});

describe('D21: POST /api/v1/contacts/{email}/erase', () => {
  it("deletes the contact and every personal field tied to it; sent campaigns' statistics stay exactly as they were", async () => {
    const email = at('erased');
    const neighbour = at('neighbour');
    const list = await t.list(`Erase ${Math.random()}`);
    await t.contact({ email, first_name: 'Eve', list_id: list });
    await t.contact({ email: neighbour, list_id: list });
    const automation = await activeAutomation(t, { trigger: { type: 'EVENT', event: `visited-${list}` }, steps: [{ type: 'ADD_TAG', tag: 'seen' }] });
    await event(server, t.key, { email, event: `visited-${list}`, data: { page: '/pricing' } });
    await waitForRuns(t, automation, allEnded(1));
    const campaign = await sendCampaign(list);
    await engage(email);
    expect((await t.call('POST', '/api/v1/suppressions', { value: email, reason: 'asked by phone' })).status).toBe(200);
    const contactId = (await t.getContact(email)).id;
    const before = await campaignReport(campaign.id);
    expect(before.statistics.data).toMatchObject({ sent: 2, opened: 1, clicked: 1 });
    const listBefore = (await t.call('GET', `/api/v1/lists/${list}`)).body.data;

    const res = await erase(email);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, data: { email, suppression: sha256(email) }, message: 'Personal data erased' });

    expect(await campaignReport(campaign.id)).toEqual(before);
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(404);
    expect((await exportOf(email)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/lists/${list}`)).body.data.contact_count).toBe(listBefore.contact_count - 1);
    // Rows read back: nothing holds the address, or anything tied to the contact, any more.
    const rows = [...(await recipientRows(server, campaign.id)).values()];
    expect(rows.map((r) => r.email).sort()).toEqual([neighbour, expect.stringMatching(/^erased-\d+@erased\.invalid$/)].sort());
    const erasedRow = rows.find((r) => r.email !== neighbour)!;
    expect(erasedRow).toMatchObject({ status: 'SENT', contact_id: null });
    expect(erasedRow.opened_at).not.toBeNull();
    expect(erasedRow.clicked_at).not.toBeNull();
    expect(await server.db.selectFrom('events').select('id').where('contact_id', '=', contactId).execute()).toEqual([]);
    expect(await server.db.selectFrom('events').select('id').where('data', 'like', '%/pricing%').execute()).toEqual([]);
    expect(await server.db.selectFrom('automation_runs').select('id').where('contact_id', '=', contactId).execute()).toEqual([]);
    expect(await server.db.selectFrom('consents').select('id').where('contact_id', '=', contactId).execute()).toEqual([]);
    expect(await server.db.selectFrom('list_members').select('list_id').where('contact_id', '=', contactId).execute()).toEqual([]);
    expect(await server.db.selectFrom('campaign_recipients').select('id').where('email', '=', email).execute()).toEqual([]);
    // The address's own entry is replaced by its hash.
    const entries = (await t.call('GET', `/api/v1/suppressions?size=100`)).body.data.suppressions;
    expect(entries.filter((s: any) => s.value === email)).toEqual([]);
    expect(entries.filter((s: any) => s.value === sha256(email))).toEqual([expect.objectContaining({ source: 'ERASURE' })]);
    // The neighbour is untouched.
    expect((await t.getContact(neighbour)).list_ids).toEqual([list]);
  });

  it('messages not yet sent to the address are never sent: FAILED with the reason, the address erased', async () => {
    const email = at('waiting');
    const list = await t.list(`Waiting ${Math.random()}`);
    await t.contact({ email, list_id: list });
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    // A send window that excludes now (D23): the campaign is SENDING with its row PENDING.
    const window = { days: [1, 2, 3, 4, 5, 6, 7], start: hhmm(Date.now() + 3_600_000), end: hhmm(Date.now() + 7_200_000), timezone: 'UTC' };
    const campaign = await t.campaign(sendable([list], { send_window: window }));
    await t.send(campaign.id);
    expect((await erase(email)).status).toBe(200);
    const [row] = await server.db.selectFrom('campaign_recipients').selectAll().where('campaign_id', '=', campaign.id).execute();
    expect(row).toMatchObject({ status: 'FAILED', last_error: 'not sent: the personal data of this address was erased', email: `erased-${row.id}@erased.invalid` });
    // Opening the window sends nothing to it, and retry-failed does not bring it back.
    expect((await t.call('PUT', `/api/v1/campaigns/${campaign.id}`, { send_window: null })).status).toBe(200);
    await t.waitForStatus(campaign.id, 'SENT');
    expect((await t.call('POST', `/api/v1/campaigns/${campaign.id}/retry-failed`)).status).toBe(409);
    expect(sink.to(email)).toEqual([]);
    expect(sink.messages.filter((m) => m.envelope.to.some((to) => to.endsWith('@erased.invalid')))).toEqual([]);
  });

  it("webhook deliveries that name the address keep their id and type and lose their data (the delivery log shows bodies)", async () => {
    const w = await tenant(server);
    const endpoint = (await w.call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/crm', event_types: ['contact.created', 'contact.updated'] })).body.data;
    const email = at('hooked');
    const bystander = at('bystander');
    await w.contact({ email, first_name: 'Hedy' });
    await w.contact({ email: bystander });
    await w.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, { last_name: 'Lamarr' });
    const log = async () => (await w.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries?size=100`)).body.data.deliveries as { event_type: string; payload: any }[];
    expect((await log()).filter((d) => JSON.stringify(d.payload).includes(email))).toHaveLength(2);

    expect((await erase(email, w)).status).toBe(200);
    const after = await log();
    expect(after).toHaveLength(3);
    expect(JSON.stringify(after)).not.toContain(email);
    expect(JSON.stringify(after)).not.toContain('Hedy');
    const erased = after.filter((d) => d.payload.data.erased === true);
    expect(erased.map((d) => d.event_type).sort()).toEqual(['contact.created', 'contact.updated']);
    for (const d of erased) expect(d.payload).toEqual({ id: expect.stringMatching(/^evt_/), type: d.event_type, created_at: expect.any(String), account_id: w.accountId, data: { erased: true } });
    expect(after.filter((d) => d.payload.data.contact?.email === bystander)).toHaveLength(1);
  });

  it('erasing twice: the second is 404; one ERASURE entry', async () => {
    const email = at('twice');
    await t.contact({ email });
    expect((await erase(email)).status).toBe(200);
    expect((await erase(email)).status).toBe(404);
    const hashed = await server.db.selectFrom('suppressions').select(['value', 'source']).where('account_id', '=', t.accountId).where('value', '=', sha256(email)).execute();
    expect(hashed).toEqual([{ value: sha256(email), source: 'ERASURE' }]);
  });
});

describe('D21: an erased address is never mailed again when it comes back', () => {
  async function erasedAddress(label: string) {
    const email = at(label);
    await t.contact({ email });
    expect((await erase(email)).status).toBe(200);
    return email;
  }
  const addressEntries = async (email: string) =>
    (await server.db.selectFrom('suppressions').select(['value', 'source']).where('account_id', '=', t.accountId).where('value', 'in', [email, sha256(email)]).orderBy('value').execute()).map((r) => ({ ...r }));

  it('created again by the API, a bulk import or an event: the address is suppressed (ERASURE) and every sending path refuses it', async () => {
    const byApi = await erasedAddress('again-api');
    const byBulk = await erasedAddress('again-bulk');
    const byEvent = await erasedAddress('again-event');
    const fresh = at('fresh');
    const list = await t.list(`Back ${Math.random()}`);

    await t.contact({ email: byApi.toUpperCase(), list_id: list });
    const bulk = await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { listId: String(list), contacts: [{ email: byBulk }, { email: fresh }] } });
    expect(bulk.body, bulk.text).toMatchObject({ created: 2, failed: 0 });
    expect((await event(server, t.key, { email: byEvent, event: 'came-back' })).status).toBe(202);
    await t.addToList(list, [byEvent]);

    for (const email of [byApi, byBulk, byEvent]) {
      expect(await addressEntries(email)).toEqual([
        { value: email, source: 'ERASURE' },
        { value: sha256(email), source: 'ERASURE' },
      ]);
    }
    expect(await addressEntries(fresh)).toEqual([]);

    // A campaign: only the fresh address is in the audience.
    const campaign = await sendCampaign(list);
    expect([...(await recipientRows(server, campaign.id)).keys()]).toEqual([fresh]);
    for (const email of [byApi, byBulk, byEvent]) expect(sink.to(email)).toEqual([]);
    // A test send: 400 naming it.
    const test = await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [byApi] });
    expect(test.status).toBe(400);
    expect(test.body.error.message).toContain(byApi);
    // An automation's message: skipped.
    const automation = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: `welcome-${list}` },
      steps: [{ type: 'SEND_EMAIL', subject: 'Welcome', from_email: 'hello@acme.test', html: '<p>Hi</p>' }],
    });
    await event(server, t.key, { email: byEvent, event: `welcome-${list}` });
    const [run] = await waitForRuns(t, automation, allEnded(1));
    expect(run.history).toEqual([expect.objectContaining({ type: 'SEND_EMAIL', status: 'SKIPPED', detail: "not sent: the address is on the account's suppression list" })]);
    expect(sink.to(byEvent)).toEqual([]);
  });

  it("comes back only through a form's double opt-in: the API's add mails nothing, the form's confirmation is let through, and confirming removes both ERASURE entries", async () => {
    const email = await erasedAddress('again-confirmed');
    const list = (await t.call('POST', '/api/v1/lists', { name: `Double ${Math.random()}`, opt_in: 'double', is_public: true })).body.data.id;
    const before = sink.messages.length;
    await t.contact({ email, list_id: list, double_opt_in: true });
    expect(await addressEntries(email)).toEqual([
      { value: email, source: 'ERASURE' },
      { value: sha256(email), source: 'ERASURE' },
    ]);
    // D21 made precise: an API add mails an erased address nothing, not even a confirmation. The
    // person's own sign-up by a form is the one exception: its confirmation mail goes.
    const form = (await t.call('POST', '/api/v1/forms', { name: `Back ${Math.random()}`, list_ids: [list], fields: [{ name: 'email', label: 'E-mail' }] })).body.data;
    expect((await server.request('POST', `/f/${form.uid}`, { body: { email }, headers: { accept: 'application/json' } })).status).toBe(200);
    await sink.waitFor(before + 1);
    expect(sink.messages.length).toBe(before + 1);
    const [mail] = sink.to(email);
    const token = /\/c\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(String(mail.text))![1];
    // Nothing else goes until the person confirms.
    const estimate = async () => (await t.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${list}`)).body.data.recipients;
    expect(await estimate()).toBe(0);

    // The person confirms: the `/c/{token}` page's button.
    expect((await hit(`${server.url}/c/${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(200);
    expect(await addressEntries(email)).toEqual([]);
    expect(await estimate()).toBe(1);
    const after = await sendCampaign(list);
    expect([...(await recipientRows(server, after.id)).keys()]).toEqual([email]);
    expect(sink.to(email)).toHaveLength(2);
  });

  it("another account's erasure of the same address changes nothing here", async () => {
    const email = at('shared');
    const other = await tenant(server);
    await other.contact({ email });
    expect((await erase(email, other)).status).toBe(200);
    await t.contact({ email });
    expect(await addressEntries(email)).toEqual([]);
  });
});
