import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, sendable, tenant, type Tenant } from './send-helpers.ts';

// D13 through HTTP: every campaign action from every status, allowed or refused (409
// INVALID_STATE); what makes a campaign unsendable (400); who may send (campaigns.send).
// The sender is driven round by round (runOnce), so a SENDING campaign stays SENDING until a
// test moves it on.

// Issue 34 adds PAUSED and CANCELLED, reached by /pause and /cancel of a SENDING campaign.
type Status = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'PAUSED' | 'SENT' | 'FAILED' | 'CANCELLED';
const STATUSES: Status[] = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'FAILED', 'CANCELLED'];

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('states');

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

/** Runs sending rounds until the campaign leaves SENDING. */
async function driveUntilDone(id: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const { status } = await t.getCampaign(id);
    if (status !== 'SENDING') return status;
    await server.sender.dispatcher.runOnce();
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`campaign ${id} stayed SENDING`);
}

/** A fresh sendable campaign brought to `status` the way a user and the sender would. */
async function campaignIn(status: Status): Promise<number> {
  const { id } = await t.campaign(sendable([list]));
  if (status === 'DRAFT') return id;
  if (status === 'SCHEDULED') {
    expect((await t.call('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: inAnHour() })).status).toBe(200);
    return id;
  }
  await t.send(id);
  if (status === 'SENDING') return id;
  if (status === 'PAUSED' || status === 'CANCELLED') {
    expect((await t.call('POST', `/api/v1/campaigns/${id}/${status === 'PAUSED' ? 'pause' : 'cancel'}`)).body.data.status).toBe(status);
    return id;
  }
  // FAILED: the mail server refuses service (new connections and open ones); the budget is 1.
  if (status === 'FAILED') sink.respond(({ stage }) => (stage === 'connect' || stage === 'mail' ? { code: 421, message: 'Service not available' } : undefined));
  try {
    expect(await driveUntilDone(id)).toBe(status);
  } finally {
    sink.respond(undefined);
  }
  return id;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_FAILURE_BUDGET: '1' });
  t = await tenant(server);
  list = await t.list('Audience');
  for (const name of ['ann', 'ben']) await t.contact({ email: at(name), first_name: name, list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** D13's transitions: action -> { from: to }. Everything else is 409 INVALID_STATE. */
const ALLOWED: Record<string, Partial<Record<Status, Status>>> = {
  send: { DRAFT: 'SENDING', SCHEDULED: 'SENDING', FAILED: 'SENDING' },
  schedule: { DRAFT: 'SCHEDULED' },
  unschedule: { SCHEDULED: 'DRAFT' },
  // Issue 34
  pause: { SENDING: 'PAUSED' },
  resume: { PAUSED: 'SENDING' },
  cancel: { SENDING: 'CANCELLED', PAUSED: 'CANCELLED' },
};

describe.each(Object.keys(ALLOWED))('POST /campaigns/{id}/%s from each status (D13)', (action) => {
  it.each(STATUSES)(`from %s`, async (from) => {
    const id = await campaignIn(from);
    const before = await t.getCampaign(id);
    expect(before.status).toBe(from);
    const res = await t.call('POST', `/api/v1/campaigns/${id}/${action}`, action === 'schedule' ? { scheduled_at: inAnHour() } : undefined);
    const to = ALLOWED[action][from];
    if (to === undefined) {
      expectError(res, 409, 'INVALID_STATE');
      expect(await t.getCampaign(id)).toEqual(before); // nothing changed
      return;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, data: expect.any(Object), message: expect.any(String) });
    expect(res.body.data.status).toBe(to);
    // `held` is left out of the comparison: a pace's hold (issue 30) ends on its own at its
    // `until`, which can fall between the answer and the read (seen once in a full CI run).
    expect({ ...(await t.getCampaign(id)), held: null }).toEqual({ ...res.body.data, held: null });
    if (action === 'send') {
      expect(res.body.data.total_recipients).toBe(2);
      expect(res.body.data.error).toBeNull();
      // and the sender finishes it
      expect(await driveUntilDone(id)).toBe('SENT');
    }
    if (action === 'schedule') expect(res.body.data.scheduled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    if (action === 'unschedule') expect(res.body.data.scheduled_at).toBeNull();
    if (action === 'resume') expect(await driveUntilDone(id)).toBe('SENT');
    if (action === 'cancel') expect((await t.call('GET', `/api/v1/campaigns/${id}/recipients?status=CANCELLED`)).body.data.totalElements).toBe(2);
  });
});

describe('edit and delete from each status (D13)', () => {
  it.each(STATUSES)('PUT from %s', async (from) => {
    const id = await campaignIn(from);
    const res = await t.call('PUT', `/api/v1/campaigns/${id}`, { subject: 'Changed {{ first_name }}' });
    // D17.4: a FAILED campaign may be edited too (its wording; it stays FAILED until /send resumes it).
    if (from === 'DRAFT' || from === 'SCHEDULED' || from === 'FAILED') {
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: from, subject: 'Changed {{ first_name }}' });
    } else {
      expectError(res, 409, 'INVALID_STATE');
      expect((await t.getCampaign(id)).subject).toBe('Hello {{ first_name }}');
    }
  });

  it.each(STATUSES)('DELETE from %s', async (from) => {
    const id = await campaignIn(from);
    const res = await t.call('DELETE', `/api/v1/campaigns/${id}`);
    if (from === 'SENDING' || from === 'PAUSED') {
      expectError(res, 409, 'INVALID_STATE');
      expect((await t.getCampaign(id)).status).toBe(from);
    } else {
      expect(res.status).toBe(200);
      expectError(await t.call('GET', `/api/v1/campaigns/${id}`), 404, 'CAMPAIGN_NOT_FOUND');
    }
  });
});

describe('what cannot be sent or scheduled: 400 (D13)', () => {
  const cases: [string, () => Promise<Record<string, unknown>>][] = [
    ['no subject', async () => sendable([list], { subject: null })],
    ['a blank subject', async () => sendable([list], { subject: '   ' })],
    ['no from_email', async () => sendable([list], { from_email: null })],
    ['no content (neither html nor text)', async () => sendable([list], { html: null, text: null })],
    ['no lists', async () => sendable([])],
    ['lists with no SUBSCRIBED contact', async () => {
      const empty = await t.list(`Empty ${Math.random()}`);
      const gone = at(`gone${Math.random().toString(36).slice(2, 8)}`);
      await t.contact({ email: gone, list_id: empty });
      await t.call('PUT', `/api/v1/contacts/${gone}`, { status: 'UNSUBSCRIBED' });
      return sendable([empty]);
    }],
    ['a tag filter no contact matches', async () => sendable([list], { tags: ['nobody-has-this'] })],
  ];

  it.each(cases)('%s', async (_label, body) => {
    const { id } = await t.campaign(await body());
    for (const [action, payload] of [['send', undefined], ['schedule', { scheduled_at: inAnHour() }]] as const) {
      const res = await t.call('POST', `/api/v1/campaigns/${id}/${action}`, payload);
      expectError(res, 400, 'INVALID_REQUEST');
    }
    expect(await t.getCampaign(id)).toMatchObject({ status: 'DRAFT', total_recipients: 0, scheduled_at: null });
    const rows = await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', id).execute();
    expect(rows).toEqual([]);
  });

  it('a text-only or an html-only campaign can be sent', async () => {
    for (const content of [{ html: null }, { text: null }]) {
      const { id } = await t.campaign(sendable([list], content));
      expect((await t.send(id)).status).toBe('SENDING');
      expect(await driveUntilDone(id)).toBe('SENT');
    }
  });

  it.each([
    ['in the past', new Date(Date.now() - 60_000).toISOString()],
    ['now-ish, without a fraction, in the past', '2020-01-01T00:00:00'],
    ['not a date', 'tomorrow'],
    ['an impossible date', '2030-02-30T10:00:00'],
  ])('schedule with scheduled_at %s: 400', async (_label, scheduledAt) => {
    const { id } = await t.campaign(sendable([list]));
    expectError(await t.call('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: scheduledAt }), 400, 'INVALID_REQUEST');
    expect((await t.getCampaign(id)).status).toBe('DRAFT');
  });

  it('schedule without scheduled_at: 400', async () => {
    const { id } = await t.campaign(sendable([list]));
    expectError(await t.call('POST', `/api/v1/campaigns/${id}/schedule`, {}), 400, 'INVALID_REQUEST');
  });

  it('schedule accepts D1 form and an offset, read as the same instant', async () => {
    const { id } = await t.campaign(sendable([list]));
    const res = await t.call('POST', `/api/v1/campaigns/${id}/schedule`, { scheduled_at: '2099-06-01T12:00:00+02:00' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'SCHEDULED', scheduled_at: '2099-06-01T10:00:00' });
  });
});

describe('who may send (D13 permissions, D3)', () => {
  const ACTIONS = [
    ['send', undefined],
    ['schedule', () => ({ scheduled_at: inAnHour() })],
    ['unschedule', undefined],
    ['test', () => ({ emails: ['someone@example.org'] })],
    ['pause', undefined],
    ['resume', undefined],
    ['cancel', undefined],
  ] as const;
  /** the status each action starts from */
  const fromOf = (action: string): Status => ({ unschedule: 'SCHEDULED', pause: 'SENDING', cancel: 'SENDING', resume: 'PAUSED' } as Record<string, Status>)[action] ?? 'DRAFT';

  it.each(ACTIONS)('a campaigns.write + campaigns.read key gets 403 on %s, and nothing changes', async (action, body) => {
    const { key } = await server.createKey(t.accountId, ['campaigns.write', 'campaigns.read']);
    const id = await campaignIn(fromOf(action));
    const before = await t.getCampaign(id);
    const sinkBefore = sink.messages.length;
    const res = await server.request('POST', `/api/v1/campaigns/${id}/${action}`, { key, body: body?.() });
    expectError(res, 403, 'PERMISSION_DENIED');
    // D8: permission comes before validation
    expectError(await server.request('POST', `/api/v1/campaigns/${id}/${action}`, { key, rawBody: '{"bad json' }), 403, 'PERMISSION_DENIED');
    expect(await t.getCampaign(id)).toEqual(before);
    expect(sink.messages.length).toBe(sinkBefore);
  });

  it('a campaigns.send key may schedule, unschedule and send', async () => {
    const { key } = await server.createKey(t.accountId, ['campaigns.send']);
    const { id } = await t.campaign(sendable([list]));
    const call = (action: string, body?: unknown) => server.request('POST', `/api/v1/campaigns/${id}/${action}`, { key, body });
    expect((await call('schedule', { scheduled_at: inAnHour() })).body.data.status).toBe('SCHEDULED');
    expect((await call('unschedule')).body.data.status).toBe('DRAFT');
    expect((await call('send')).body.data.status).toBe('SENDING');
    expect(await driveUntilDone(id)).toBe('SENT');
  });

  it.each(ACTIONS)("another account's campaign: %s is 404 CAMPAIGN_NOT_FOUND (D3)", async (action, body) => {
    const other = await tenant(server);
    const id = await campaignIn(fromOf(action));
    const before = await t.getCampaign(id);
    expectError(await other.call('POST', `/api/v1/campaigns/${id}/${action}`, body?.()), 404, 'CAMPAIGN_NOT_FOUND');
    expect(await t.getCampaign(id)).toEqual(before);
  });
});
