/**
 * The read endpoints the dashboard's campaign pages add (issue 6): audience estimate (D13's rule),
 * send progress, and unique opens and clicks per hour (D16's unique counts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, linksIn, onServer, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
let news: number;
let promo: number;
const at = addressMaker('insights');

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  news = await t.list('News');
  promo = await t.list('Promo');
  await t.contact({ email: at('a'), list_id: news, tags: ['vip'] });
  await t.contact({ email: at('b'), list_id: news });
  await t.contact({ email: at('c'), list_id: promo, tags: ['VIP'] });
  await t.addToList(promo, [at('a')]); // in both lists: counted once
  await t.contact({ email: at('gone'), list_id: news });
  await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('gone'))}`, { status: 'UNSUBSCRIBED' });
});
afterAll(() => server?.close());

const estimate = async (query: string) => {
  const res = await t.call('GET', `/api/v1/campaigns/audience-estimate${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.recipients;
};

describe('GET /api/v1/campaigns/audience-estimate', () => {
  it("counts SUBSCRIBED contacts of any of the lists once each, filtered by any of the tags (D13)", async () => {
    expect(await estimate(`?list_ids=${news}`)).toBe(2);
    expect(await estimate(`?list_ids=${news}&list_ids=${promo}`)).toBe(3);
    expect(await estimate(`?list_ids=${news}&list_ids=${promo}&tags=vip`)).toBe(2);
    expect(await estimate(`?list_ids=${promo}&tags=nobody`)).toBe(0);
    expect(await estimate('')).toBe(0);
  });

  it("never counts another account's contacts (D3), and needs campaigns.read", async () => {
    const other = await tenant(server);
    const res = await other.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${news}`);
    expect(res.body.data.recipients).toBe(0);
    const reader = await tenant(server, ['contacts.read']);
    expect((await reader.call('GET', '/api/v1/campaigns/audience-estimate')).status).toBe(403);
    expect((await server.request('GET', '/api/v1/campaigns/audience-estimate')).status).toBe(401);
  });

  it("D26.10: a missing or another account's segment is 404 SEGMENT_NOT_FOUND, as campaign create answers it", async () => {
    const vips = await t.call('POST', '/api/v1/segments', { name: 'VIPs', filter: { field: 'tags', op: 'contains', value: 'vip' } });
    expect(vips.status, vips.text).toBe(200);
    expect(await estimate(`?segment_ids=${vips.body.data.id}`)).toBe(2);
    const other = await tenant(server);
    for (const [who, query] of [[t, '?segment_ids=999999'], [other, `?segment_ids=${vips.body.data.id}`]] as const) {
      const res = await who.call('GET', `/api/v1/campaigns/audience-estimate${query}`);
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('SEGMENT_NOT_FOUND');
      const create = await who.call('POST', '/api/v1/campaigns', { name: 'Agree', segment_ids: [Number(query.split('=')[1])] });
      expect(create.body.error.code).toBe('SEGMENT_NOT_FOUND');
    }
  });

  it('refuses a list id that is not a positive integer: 400', async () => {
    const res = await t.call('GET', '/api/v1/campaigns/audience-estimate?list_ids=abc');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });
});

describe('progress and engagement of a campaign', () => {
  it('shows a draft at zero, then the sent campaign complete; opens and clicks land in their hour once per recipient', async () => {
    const campaign = await t.campaign(sendable([news]));
    const draft = await t.call('GET', `/api/v1/campaigns/${campaign.id}/progress`);
    expect(draft.body.data).toEqual({ status: 'DRAFT', total_recipients: 0, sent: 0, bounced: 0, failed: 0, cancelled: 0, remaining: 0 });
    expect((await t.call('GET', `/api/v1/campaigns/${campaign.id}/engagement`)).body.data).toEqual({ hours: [] });

    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const done = await t.call('GET', `/api/v1/campaigns/${campaign.id}/progress`);
    expect(done.body.data).toEqual({ status: 'SENT', total_recipients: 2, sent: 2, bounced: 0, failed: 0, cancelled: 0, remaining: 0 });

    // One recipient opens twice and clicks; the other only opens.
    const inbox = (await t.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages.filter((m: any) => m.campaign_id === campaign.id);
    expect(inbox).toHaveLength(2);
    for (const [i, m] of inbox.entries()) {
      const { hrefs, imgs } = linksIn(m.html);
      const pixel = imgs.find((u) => u.includes('/t/o/'))!;
      expect((await fetch(onServer(server, pixel))).status).toBe(200);
      if (i === 0) {
        await fetch(onServer(server, pixel));
        const click = hrefs.find((u) => u.includes('/t/c/'))!;
        expect((await fetch(onServer(server, click), { redirect: 'manual' })).status).toBe(302);
      }
    }
    const hours = (await t.call('GET', `/api/v1/campaigns/${campaign.id}/engagement`)).body.data.hours;
    const thisHour = new Date().toISOString().slice(0, 13) + ':00:00';
    const earlier = new Date(Date.now() - 3_600_000).toISOString().slice(0, 13) + ':00:00';
    expect(hours).toHaveLength(1);
    expect([thisHour, earlier]).toContain(hours[0].hour);
    expect(hours[0]).toMatchObject({ opens: 2, clicks: 1 });
  });

  it("answers 404 CAMPAIGN_NOT_FOUND for a missing or another account's campaign (D3)", async () => {
    const campaign = await t.campaign({ name: 'mine' });
    const other = await tenant(server);
    for (const path of ['progress', 'engagement']) {
      for (const res of [await other.call('GET', `/api/v1/campaigns/${campaign.id}/${path}`), await t.call('GET', `/api/v1/campaigns/999999/${path}`)]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
      }
    }
  });
});
