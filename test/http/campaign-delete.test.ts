/**
 * D17.3: deleting a sent campaign made every link in mail already delivered answer 404, the
 * unsubscribe link included. Now the campaign answers 404 everywhere in the API, but its links
 * keep working: the unsubscribe page, one-click, click redirects and the open pixel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(() => server.close());

describe('D17.3: deleting a campaign that has sent mail', () => {
  it('answers 404 everywhere in the API, while every link in delivered mail keeps working', async () => {
    const list = await t.list('Deleted campaign');
    await t.contact({ email: 'kept@example.com', first_name: 'Kim', list_id: list });
    const campaign = await t.campaign({ name: 'To delete', ...sendable([list]) });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const mail = await server.db.selectFrom('dev_inbox').select('html').where('to_address', '=', 'kept@example.com').executeTakeFirstOrThrow();
    const { hrefs, imgs } = linksIn(mail.html!);
    const click = onServer(server, hrefs.find((h) => h.startsWith(`${PUBLIC_URL}/t/c/`))!);
    const unsubscribe = onServer(server, hrefs.find((h) => h.startsWith(`${PUBLIC_URL}/u/`))!);
    const pixel = onServer(server, imgs.find((i) => i.startsWith(`${PUBLIC_URL}/t/o/`))!);

    const deleted = await t.call('DELETE', `/api/v1/campaigns/${campaign.id}`);
    expect(deleted.status, deleted.text).toBe(200);

    for (const [method, path, body] of [
      ['GET', `/api/v1/campaigns/${campaign.id}`],
      ['PUT', `/api/v1/campaigns/${campaign.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/campaigns/${campaign.id}`],
      ['GET', `/api/v1/campaigns/${campaign.id}/statistics`],
      ['POST', `/api/v1/campaigns/${campaign.id}/send`],
      ['POST', `/api/v1/campaigns/${campaign.id}/duplicate`],
      ['POST', `/api/v1/campaigns/${campaign.id}/preview`, {}],
      ['GET', `/api/v1/campaigns/${campaign.id}/progress`],
    ] as [string, string, unknown?][]) {
      const res = await t.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    }
    const flat = await server.request('GET', `/v1/campaigns/${campaign.id}/stats`, { key: t.key });
    expect(flat.status).toBe(404);
    const listed = await t.call('GET', '/api/v1/campaigns?size=100');
    expect(listed.body.data.campaigns.map((c: { id: number }) => c.id)).not.toContain(campaign.id);

    // The links in the delivered message.
    const opened = await hit(pixel);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('image/gif');
    const clicked = await hit(click);
    expect(clicked.status).toBe(302);
    expect(clicked.headers.get('location')).toBe('https://example.com/a');
    const page = await hit(unsubscribe);
    expect(page.status).toBe(200);
    expect(page.text).toContain('kept@example.com');
    const oneClick = await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect((await t.getContact('kept@example.com')).status).toBe('UNSUBSCRIBED');
  });

  it('a campaign that never sent mail is deleted outright', async () => {
    const draft = await t.campaign({ name: 'Just a draft' });
    expect((await t.call('DELETE', `/api/v1/campaigns/${draft.id}`)).status).toBe(200);
    expect(await server.db.selectFrom('campaigns').select('id').where('id', '=', draft.id).executeTakeFirst()).toBeUndefined();
  });
});
