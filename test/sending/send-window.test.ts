/**
 * D23: a campaign's send window: `{ days, start, end, timezone }` or null, on create, update,
 * read and duplicate; 400 naming the field for bad days, times and time zones. Outside the window
 * nothing of the campaign is claimed and it stays SENDING; the window may change while it sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  t = await tenant(server);
  server.sender.dispatcher.start();
});
afterAll(() => server?.close());

const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
/** Every day, from one to two hours from now (UTC): it cannot include now. */
const excludingNow = () => ({ days: ALL_DAYS, start: hhmm(Date.now() + 3_600_000), end: hhmm(Date.now() + 7_200_000), timezone: 'UTC' });
/** Start = end: a whole day from 00:00, every day. */
const always = { days: ALL_DAYS, start: '00:00', end: '00:00', timezone: 'Europe/Berlin' };

async function listOf(name: string, n: number): Promise<number> {
  const list = await t.list(name);
  for (let i = 0; i < n; i++) await t.contact({ email: `${name.toLowerCase()}${i}@window.test`, list_id: list });
  return list;
}

function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.message).toContain(field);
}

describe('D23: send_window on the campaign', () => {
  it('is null by default, set on create, read back, changed, copied by duplicate and cleared', async () => {
    expect((await t.campaign({})).send_window).toBeNull();
    const window = { days: [5, 1, 3, 1], start: '09:00', end: '17:30', timezone: 'europe/berlin' };
    const created = await t.campaign({ send_window: window });
    // Days sorted and once each; the time zone as given, its case corrected (D26.9).
    const stored = { days: [1, 3, 5], start: '09:00', end: '17:30', timezone: 'Europe/Berlin' };
    expect(created.send_window).toEqual(stored);
    expect((await t.getCampaign(created.id)).send_window).toEqual(stored);

    // D26.9: a zone Intl knows by another name (Asia/Calcutta) reads back as written.
    const kolkata = { days: [1], start: '09:00', end: '17:00', timezone: 'Asia/Kolkata' };
    const renamed = await t.call('PUT', `/api/v1/campaigns/${created.id}`, { send_window: kolkata });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data.send_window).toEqual(kolkata);
    expect((await t.getCampaign(created.id)).send_window).toEqual(kolkata);

    const night = { days: [5], start: '22:00', end: '06:00', timezone: 'America/New_York' };
    const updated = await t.call('PUT', `/api/v1/campaigns/${created.id}`, { send_window: night });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data.send_window).toEqual(night);

    const copy = await t.call('POST', `/api/v1/campaigns/${created.id}/duplicate`);
    expect(copy.status, copy.text).toBe(200);
    expect(copy.body.data.send_window).toEqual(night);

    const cleared = await t.call('PUT', `/api/v1/campaigns/${created.id}`, { send_window: null });
    expect(cleared.body.data.send_window).toBeNull();
  });

  it.each([
    ['no days', { days: [] }, 'send_window.days'],
    ['day 0', { days: [0] }, 'send_window.days'],
    ['day 8', { days: [8] }, 'send_window.days'],
    ['start 24:00', { start: '24:00' }, 'send_window.start'],
    ['start without its leading zero', { start: '9:00' }, 'send_window.start'],
    ['end 12:60', { end: '12:60' }, 'send_window.end'],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'send_window.timezone'],
    ['a bare offset for a time zone', { timezone: '+02:00' }, 'send_window.timezone'],
    ['no time zone', { timezone: undefined }, 'send_window.timezone'],
  ])('400 naming the field on create and update: %s', async (_name, change, field) => {
    const body = { send_window: { ...always, ...change } };
    expect400(await t.call('POST', '/api/v1/campaigns', { name: 'Bad window', ...body }), field);
    const draft = await t.campaign({});
    expect400(await t.call('PUT', `/api/v1/campaigns/${draft.id}`, body), field);
  });

  it('outside the window nothing is sent and the campaign stays SENDING, held for its window (D26.2); a window that includes now sends it', async () => {
    const madeAt = Date.now();
    const windowed = await t.campaign(sendable([await listOf('Windowed', 3)], { send_window: excludingNow() }));
    // It opens at its start, an hour after madeAt to the minute (within the hour: the same day or the next).
    const opens = new Date(Math.floor((madeAt + 3_600_000) / 60_000) * 60_000).toISOString().slice(0, 19);
    await t.send(windowed.id);
    // A campaign without a window, started after it, is sent: the sender has had rounds meanwhile.
    const control = await t.campaign(sendable([await listOf('Control', 2)]));
    await t.send(control.id);
    await t.waitForStatus(control.id, 'SENT');

    expect((await t.getCampaign(windowed.id)).status).toBe('SENDING');
    expect([...(await recipientRows(server, windowed.id)).values()].map((r) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect((await t.getCampaign(windowed.id)).held).toEqual({ reason: 'send_window', until: opens });
    expect((await t.getCampaign(control.id)).held).toBeNull();

    // Content is frozen while SENDING (D13), the window is not.
    const content = await t.call('PUT', `/api/v1/campaigns/${windowed.id}`, { subject: 'Changed', send_window: always });
    expect(content.status).toBe(409);
    const opened = await t.call('PUT', `/api/v1/campaigns/${windowed.id}`, { send_window: always });
    expect(opened.status, opened.text).toBe(200);
    expect((await t.waitForStatus(windowed.id, 'SENT')).held).toBeNull();
    expect([...(await recipientRows(server, windowed.id)).values()].map((r) => [r.status, r.attempts])).toEqual([
      ['SENT', 1],
      ['SENT', 1],
      ['SENT', 1],
    ]);
  });
});
