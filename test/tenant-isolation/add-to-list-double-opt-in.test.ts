/**
 * Issue 28 (also seen, rule 4): a workflow's ADD_TO_LIST step subscribed contacts to a double
 * opt-in list without asking them. Now the membership waits UNCONFIRMED, the person gets D20's
 * confirmation mail (the form's path, after the step commits), the list's campaigns leave them out
 * until they confirm, and LIST_JOINED fires only then. A single opt-in list is joined at once, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAutomation, allEnded, event, waitForRuns } from '../automations/helpers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, messagesOfCampaign, onServer, PUBLIC_URL, recipientOf, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('addlist');

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

const membershipsOf = async (email: string) => (await t.getContact(email)).memberships;

async function listCampaignTo(list: number): Promise<string[]> {
  const campaign = await t.campaign(sendable([list], { name: `to ${list} ${Math.random()}` }));
  const send = await t.call('POST', `/api/v1/campaigns/${campaign.id}/send`);
  // An audience of nobody is refused, naming why.
  if (send.status === 400 && /no recipients/.test(send.body.error.message)) return [];
  expect(send.status, send.text).toBe(200);
  await t.waitForStatus(campaign.id, ['SENT', 'FAILED']);
  return messagesOfCampaign(sink.messages, campaign.id).map(recipientOf);
}

describe('ADD_TO_LIST on a double opt-in list (issue 28)', () => {
  it('ADD_TO_LIST: the membership waits for the confirmation mailed to the contact; joined only once it confirms', async () => {
    const double = (await t.call('POST', '/api/v1/lists', { name: 'Flow double', opt_in: 'double' })).body.data.id as number;
    const single = (await t.call('POST', '/api/v1/lists', { name: 'Flow single' })).body.data.id as number;
    const flow = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'signed-up' }, steps: [{ type: 'ADD_TO_LIST', list_id: double }, { type: 'ADD_TO_LIST', list_id: single }] });
    const joined = await activeAutomation(t, { name: 'On joining', trigger: { type: 'LIST_JOINED', list_id: double }, steps: [{ type: 'ADD_TAG', tag: 'joined-double' }] });

    const email = at('ann');
    await t.contact({ email });
    expect((await event(server, t.key, { email, event: 'signed-up' })).status).toBe(202);
    await waitForRuns(t, flow, allEnded(1));

    expect(await membershipsOf(email)).toEqual(expect.arrayContaining([
      { list_id: double, status: 'UNCONFIRMED' },
      { list_id: single, status: 'SUBSCRIBED' },
    ]));
    expect((await t.call('GET', `/api/v1/lists/${double}`)).body.data.contact_count).toBe(0);
    expect(await listCampaignTo(double)).toEqual([]);
    expect(await listCampaignTo(single)).toEqual([email]);

    // The confirmation mail, through the same path as a form's sign-up, names the list.
    const deadline = Date.now() + 10_000;
    while (sink.to(email).filter((m) => m.subject?.startsWith('Please confirm')).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const mails = sink.to(email).filter((m) => m.subject?.startsWith('Please confirm'));
    expect(mails.map((m) => m.subject)).toEqual(['Please confirm your subscription to Flow double']);
    expect(await runsOf(joined)).toBe(0);

    const link = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/c/[A-Za-z0-9_.-]+`).exec(mails[0].text ?? '')![0];
    expect((await hit(onServer(server, link), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(200);
    expect(await membershipsOf(email)).toEqual(expect.arrayContaining([{ list_id: double, status: 'SUBSCRIBED' }]));
    expect(await listCampaignTo(double)).toEqual([email]);
    await waitForRuns(t, joined, allEnded(1));
  });
});

async function runsOf(automationId: number): Promise<number> {
  return (await t.call('GET', `/api/v1/automations/${automationId}/runs?size=100`)).body.data.runs.length;
}
