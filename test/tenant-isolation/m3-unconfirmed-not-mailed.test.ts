/**
 * Issue 28 M3: an address typed into a double opt-in form and never confirmed was a SUBSCRIBED
 * contact (D20 keeps its status so), and a segment campaign (`status eq SUBSCRIBED`) mailed it.
 * Rule 4: unconfirmed memberships and contacts are mailed nothing but their confirmation: no list
 * campaign, no segment campaign, no automation SEND_EMAIL, and a segment does not count them as
 * SUBSCRIBED. After the person confirms, all of them reach it. Mail is read from a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAutomation, allEnded, waitForRuns } from '../automations/helpers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, messagesOfCampaign, onServer, PUBLIC_URL, recipientOf, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('m3');

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

async function mailsTo(email: string, n: number): Promise<ReceivedMessage[]> {
  const deadline = Date.now() + 10_000;
  while (sink.to(email).length < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} mails to ${email}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return sink.to(email);
}

/** The `/c/{token}` link of the address's confirmation mail. */
async function confirmLinkOf(email: string): Promise<string> {
  const [mail] = await mailsTo(email, 1);
  const m = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/c/[A-Za-z0-9_.-]+`).exec(mail.text ?? '');
  expect(m, mail.text).not.toBeNull();
  return m![0];
}

/** Sends a campaign to `audience` and answers the addresses its messages went to. */
async function sentTo(audience: Record<string, unknown>): Promise<string[]> {
  const campaign = await t.campaign(sendable([], { ...audience, name: `M3 ${Math.random()}` }));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, ['SENT', 'FAILED']);
  return messagesOfCampaign(sink.messages, campaign.id).map(recipientOf).sort();
}

describe('M3: a double opt-in sign-up that is not confirmed is mailed nothing but its confirmation', () => {
  it('M3: not by a list campaign, a segment campaign or a workflow; not SUBSCRIBED in a segment; all of them after it confirms', async () => {
    const list = (await t.call('POST', '/api/v1/lists', { name: 'M3 news', opt_in: 'double', is_public: true })).body.data.id as number;
    const form = (await t.call('POST', '/api/v1/forms', { name: 'M3 form', list_ids: [list], fields: [{ name: 'email', label: 'E-mail', required: true }] })).body.data;
    const segment = (await t.call('POST', '/api/v1/segments', { name: 'M3 subscribed', filter: { all: [{ field: 'email', op: 'ends_with', value: '@example.org' }, { field: 'status', op: 'eq', value: 'SUBSCRIBED' }] } })).body.data;
    // A workflow that mails every contact created: the sign-ups start it.
    const flow = await activeAutomation(t, {
      trigger: { type: 'CONTACT_CREATED' },
      steps: [{ type: 'SEND_EMAIL', subject: 'Welcome aboard', from_email: 'hello@acme.test', html: '<p>Hi</p>' }],
    });

    // The control: a contact the account vouches for, on the list and in the segment.
    const vouched = at('vouched');
    await t.contact({ email: vouched });
    await t.addToList(list, [vouched]);

    const never = at('never');
    const later = at('later');
    for (const email of [never, later]) {
      const res = await server.request('POST', `/f/${form.uid}`, { body: { email }, headers: { accept: 'application/json', 'x-forwarded-for': `10.28.3.${email === never ? 1 : 2}` } });
      expect(res.status, res.text).toBe(200);
    }
    expect((await t.getContact(never)).status).toBe('SUBSCRIBED'); // D20: the status stays; the flag holds it back
    await waitForRuns(t, flow, allEnded(3));
    const steps = (await t.call('GET', `/api/v1/automations/${flow}/runs?size=100`)).body.data.runs.map((r: any) => [r.email, r.history[0].status]);
    expect(steps.sort()).toEqual([[later, 'SKIPPED'], [never, 'SKIPPED'], [vouched, 'SENT']].sort());

    // A segment counts them as not SUBSCRIBED, a campaign (by list or by segment) leaves them out.
    const preview = await t.call('POST', '/api/v1/segments/preview', { filter: { all: [{ field: 'status', op: 'eq', value: 'SUBSCRIBED' }] } });
    expect(preview.body.data.contacts.map((c: any) => c.email)).toEqual([vouched]);
    const notSubscribed = await t.call('POST', '/api/v1/segments/preview', { filter: { all: [{ field: 'status', op: 'neq', value: 'SUBSCRIBED' }] } });
    expect(notSubscribed.body.data.contacts.map((c: any) => c.email).sort()).toEqual([later, never].sort());
    expect(await sentTo({ segment_ids: [segment.id] })).toEqual([vouched]);
    expect(await sentTo({ list_ids: [list] })).toEqual([vouched]);
    // Each of them got the confirmation mail, and only it.
    expect((await mailsTo(never, 1)).map((m) => m.subject)).toEqual(['Please confirm your subscription to M3 news']);

    // `later` confirms: from now on it is mailed like anyone else; `never` still is not.
    const link = await confirmLinkOf(later);
    const confirmed = await hit(onServer(server, link), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(confirmed.status).toBe(200);
    expect(await sentTo({ segment_ids: [segment.id] })).toEqual([later, vouched].sort());
    expect(await sentTo({ list_ids: [list] })).toEqual([later, vouched].sort());
    expect((await t.call('GET', `/api/v1/segments/${segment.id}`)).body.data.contact_count).toBe(2);
    expect(sink.to(never)).toHaveLength(1);
  });

  it("M3: an explicit PUT to SUBSCRIBED is the account's word, as D20's API add without double opt-in", async () => {
    const list = (await t.call('POST', '/api/v1/lists', { name: 'M3 api', opt_in: 'double' })).body.data.id as number;
    const email = at('api');
    await t.contact({ email, list_id: list, double_opt_in: true });
    const segment = { all: [{ field: 'email', op: 'eq', value: email }, { field: 'status', op: 'eq', value: 'SUBSCRIBED' }] };
    expect((await t.call('POST', '/api/v1/segments/preview', { filter: segment })).body.data.count).toBe(0);
    expect((await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, { status: 'SUBSCRIBED' })).status).toBe(200);
    expect((await t.call('POST', '/api/v1/segments/preview', { filter: segment })).body.data.count).toBe(1);
  });
});
