import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, rawHeader, sendable, tamperings, tenant, type Tenant } from './send-helpers.ts';

// D13: POST /campaigns/{id}/test sends the campaign to 1-10 given addresses, with the merge
// fields of matching contacts, without changing its status, recipients or statistics.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('test');
const known = at('known');
const member = at('member');

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

const testSend = (id: number, emails: unknown) => t.call('POST', `/api/v1/campaigns/${id}/test`, { emails });

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
  list = await t.list('Members');
  await t.contact({ email: known, first_name: 'Kim', custom_fields: { city: 'Oslo' } });
  await t.contact({ email: member, first_name: 'Mo', list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('test send (D13)', () => {
  it('sends to exactly the given addresses, with the merge fields of matching contacts', async () => {
    const campaign = await t.campaign(sendable([list], { subject: 'Hi {{ first_name }} from {{ city }}', html: '<p>Dear {{ first_name }}</p>' }));
    const stranger = at('stranger');
    const res = await testSend(campaign.id, [known.toUpperCase(), stranger]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { results: [{ email: known, outcome: 'sent', error: null }, { email: stranger, outcome: 'sent', error: null }] },
      message: expect.any(String),
    });
    const got = [...sink.to(known), ...sink.to(stranger)];
    expect(got).toHaveLength(2);
    expect(sink.to(member)).toEqual([]); // the list's member is not mailed
    const toKnown = sink.to(known)[0];
    expect(toKnown.subject).toContain('Hi Kim from Oslo');
    expect(toKnown.html).toContain('<p>Dear Kim</p>');
    const toStranger = sink.to(stranger)[0];
    // Issue 15: no contact: the merge fields come from the list's first member (they rendered blank).
    expect(toStranger.subject).toMatch(/Hi \S+ from/);
    expect(toStranger.subject).not.toMatch(/Hi {2}from/);
    expect(toStranger.html).not.toContain('<p>Dear </p>');
    // A test message looks like the real one (D16 headers included).
    expect(rawHeader(toKnown.raw, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
    expect(rawHeader(toKnown.raw, 'List-Unsubscribe')).toHaveLength(1);
    expect(toKnown.messageId).not.toBe(toStranger.messageId);
  });

  it('changes neither the status, total_recipients nor any recipient row of a DRAFT campaign', async () => {
    const campaign = await t.campaign(sendable([list]));
    expect((await testSend(campaign.id, [member])).status).toBe(200);
    expect(sink.to(member)).toHaveLength(1);
    expect(await t.getCampaign(campaign.id)).toEqual(campaign);
    expect(await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.id).execute()).toEqual([]);
  });

  it('changes neither the status nor the statistics of a SENT campaign', async () => {
    server.sender.dispatcher.start();
    const { id } = await t.campaign(sendable([list]));
    await t.send(id);
    const sent = await t.waitForStatus(id, ['SENT', 'FAILED']);
    await server.sender.dispatcher.stop();
    expect(sent.status).toBe('SENT');
    const stats = await t.stats(id);
    expect(stats).toMatchObject({ sent: 1, delivered: 1 });
    const before = sink.messages.length;
    expect((await testSend(id, [known, member])).status).toBe(200);
    expect(sink.messages.length).toBe(before + 2);
    expect(await t.getCampaign(id)).toEqual(sent);
    expect(await t.stats(id)).toEqual(stats);
  });

  it('takes 1 to 10 addresses: 0 or 11 is 400, and nothing is sent', async () => {
    const { id } = await t.campaign(sendable([list]));
    const before = sink.messages.length;
    expectError(await testSend(id, []), 400, 'INVALID_REQUEST');
    expectError(await testSend(id, Array.from({ length: 11 }, (_, i) => at(`many${i}`))), 400, 'INVALID_REQUEST');
    expectError(await testSend(id, ['not-an-address']), 400, 'INVALID_REQUEST');
    expectError(await t.call('POST', `/api/v1/campaigns/${id}/test`, {}), 400, 'INVALID_REQUEST');
    const ten = Array.from({ length: 10 }, (_, i) => at(`ten${i}`));
    const res = await testSend(id, ten);
    expect(res.status).toBe(200);
    expect(res.body.data.results).toHaveLength(10);
    await sink.waitFor(before + 10);
    expect(sink.messages.length).toBe(before + 10);
    expect(sink.messages.slice(before).map((m) => m.envelope.to[0]).sort()).toEqual([...ten].sort());
  });

  it('a campaign without subject, sender or content cannot be test-sent: 400', async () => {
    for (const missing of [{ subject: null }, { from_email: null }, { html: null, text: null }]) {
      const { id } = await t.campaign(sendable([list], missing));
      expectError(await testSend(id, [known]), 400, 'INVALID_REQUEST');
    }
  });

  it("has working links that count nowhere: a click goes to the campaign's link, the pixel and unsubscribe answer, nobody leaves", async () => {
    const campaign = await t.campaign(sendable([list], { html: '<p><a href="https://shop.example/sale">Sale</a></p>' }));
    expect((await testSend(campaign.id, [member])).status).toBe(200);
    const [mail] = sink.to(member).slice(-1);
    const { hrefs, imgs } = linksIn(mail.html as string);
    const click = hrefs.find((h) => h.includes('/t/c/'))!;
    const clicked = await hit(onServer(server, click));
    expect(clicked.status).toBe(302);
    expect(clicked.headers.get('location')).toBe('https://shop.example/sale');
    const pixel = await hit(onServer(server, imgs.find((i) => i.includes('/t/o/'))!));
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    const unsubscribe = onServer(server, hrefs.find((h) => h.includes('/u/'))!);
    expect((await hit(unsubscribe)).status).toBe(200);
    const oneClick = await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect((await t.getContact(member)).status).toBe('SUBSCRIBED');
    expect((await t.getCampaign(campaign.id)).status).toBe('DRAFT');
    expect(await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.id).execute()).toEqual([]);
    // Signed like every other link (D16): altered, it leads nowhere.
    for (const bad of tamperings(onServer(server, click))) expect((await hit(bad)).status).toBe(404);
  });

  it('a missing campaign is 404 CAMPAIGN_NOT_FOUND', async () => {
    expectError(await testSend(999_999, [known]), 404, 'CAMPAIGN_NOT_FOUND');
  });
});

// Issue 14: a test send keeps the links its messages were rendered with (a row per test send);
// its tokens name that row and die after 7 days; it renders on the render thread, and content
// that cannot be rendered is the caller's 400.
describe('issue 14: test-send links', () => {
  const clickOf = (html: string, index: number) => linksIn(html).hrefs.filter((h) => h.includes('/t/c/'))[index];
  const testSendRows = (campaignId: number) => server.db.selectFrom('test_sends').selectAll().where('campaign_id', '=', campaignId).orderBy('id').execute();

  it('H2: a large draft\'s test-send click answers 302 from the list stored when it was sent, and still after the draft changed (L4)', async () => {
    const items = Array.from({ length: 2500 }, (_, i) => `<p>{{ first_name }} <a href="https://shop.example/item/${i}?a=1&amp;b=2">Item ${i}</a></p>`);
    const html = items.join('\n');
    expect(html.length).toBeGreaterThan(200_000);
    const campaign = await t.campaign(sendable([list], { html }));
    const res = await testSend(campaign.id, [member]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [mail] = sink.to(member).slice(-1);
    const last = onServer(server, clickOf(mail.html as string, 2499));
    const first = await hit(last);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('https://shop.example/item/2499?a=1&b=2');

    // The draft now says something else: the test message's links lead where they did (L4).
    const edited = await t.call('PUT', `/api/v1/campaigns/${campaign.id}`, { html: '<a href="https://phish.example/login">Log in</a>' });
    expect(edited.status, edited.text).toBe(200);
    for (const [index, url] of [
      [2499, 'https://shop.example/item/2499?a=1&b=2'],
      [0, 'https://shop.example/item/0?a=1&b=2'],
    ] as const) {
      const clicked = await hit(onServer(server, clickOf(mail.html as string, index)));
      expect(clicked.status).toBe(302);
      expect(clicked.headers.get('location')).toBe(url);
    }

    // The stored list is what the message held, in its order.
    const [row] = await testSendRows(campaign.id);
    const stored = JSON.parse(row.links) as string[];
    expect(stored).toEqual(items.map((_, i) => `https://shop.example/item/${i}?a=1&b=2`));
    expect(linksIn(mail.html as string).hrefs.filter((h) => h.includes('/t/c/'))).toHaveLength(stored.length);
  });

  it('L4: a test token older than 7 days answers 404 on the click, the pixel and the unsubscribe link, never a redirect', async () => {
    const campaign = await t.campaign(sendable([list], { html: '<p><a href="https://shop.example/old">Old</a></p>' }));
    expect((await testSend(campaign.id, [member])).status).toBe(200);
    const [mail] = sink.to(member).slice(-1);
    const { hrefs, imgs } = linksIn(mail.html as string);
    const click = onServer(server, hrefs.find((h) => h.includes('/t/c/'))!);
    const pixel = onServer(server, imgs.find((i) => i.includes('/t/o/'))!);
    const unsubscribe = onServer(server, hrefs.find((h) => h.includes('/u/'))!);
    const [row] = await testSendRows(campaign.id);
    const age = async (days: number) => {
      const createdAt = new Date(Date.now() - days * 24 * 3600_000).toISOString();
      await server.db.updateTable('test_sends').set({ created_at: createdAt }).where('id', '=', row.id).execute();
    };

    await age(6.9);
    expect((await hit(click)).status).toBe(302);
    expect((await hit(pixel)).status).toBe(200);
    expect((await hit(unsubscribe)).status).toBe(200);

    await age(7.01);
    const clicked = await hit(click);
    expect(clicked.status).toBe(404);
    expect(clicked.headers.get('location')).toBeNull();
    expect((await hit(pixel)).status).toBe(404);
    expect((await hit(unsubscribe)).status).toBe(404);
    const oneClick = await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(404);

    // Expired rows go when the next test send is made.
    expect((await testSend(campaign.id, [member])).status).toBe(200);
    expect((await testSendRows(campaign.id)).map((r) => r.id)).not.toContain(row.id);
  });

  it('L7: a test send of content that cannot be rendered answers 400 INVALID_REQUEST with the reason, and sends nothing', async () => {
    for (const [html, reason] of [
      ['<p>Hi {{ first_name </p>', /^html has a Liquid syntax error: /], // a Liquid syntax error (saved before D17.4): no message can be made
      ["<p>Hi</p>{% include 'header' %}", /^the message to .* cannot be rendered: /], // fails while rendering each message
    ] as const) {
      const { id } = await t.campaign(sendable([list]));
      // Written past the API, as a draft saved before D17.4's check on save (and D22's compile) would hold it.
      await server.db.updateTable('campaigns').set({ html, compiled_html: null }).where('id', '=', id).execute();
      const before = sink.messages.length;
      const res = await testSend(id, [member, known]);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(reason);
      expect(sink.messages.length).toBe(before);
      expect(await testSendRows(id)).toEqual([]);
    }
  });
});
