import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, messagesOfCampaign, onServer, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// Issue 14: what anonymous GETs of the links in a sent mail can cost.
// - H2: a click reads the link list stored when the campaign started sending; it never compiles
//   the campaign's content.
// - L2: a pixel fetched over and over gives one email.opened webhook event, then at most one per
//   10 minutes; and each client IP has a per-minute budget on the tracking routes (429, Retry-After).

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('abuse');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sends a campaign to one new contact and answers its id and the mail's links. */
async function sentTo(name: string, html: string) {
  const email = at(name);
  const list = await t.list(`List ${name}`);
  await t.contact({ email, list_id: list });
  const { id } = await t.campaign(sendable([list], { html }));
  await t.send(id);
  expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
  const [mail] = messagesOfCampaign(sink.messages, id);
  const { hrefs, imgs } = linksIn(mail.html as string);
  return { id, email, click: onServer(server, hrefs[0]), pixel: onServer(server, imgs.find((i) => i.includes('/t/o/'))!) };
}

describe('H2: a click never compiles the campaign', () => {
  it("reads the link list stored when sending started: a changed content row changes nowhere a click leads", async () => {
    const sent = await sentTo('h2', '<p>{{ first_name }}</p><a href="https://shop.example/sale">Sale</a>');
    // Were the click to compile the content, it would now find this link at index 0.
    await server.db.updateTable('campaigns').set({ html: '<a href="https://phish.example/login">Log in</a>' }).where('id', '=', sent.id).execute();
    const clicked = await hit(sent.click);
    expect(clicked.status).toBe(302);
    expect(clicked.headers.get('location')).toBe('https://shop.example/sale');
    const [campaign] = await server.db.selectFrom('campaigns').select(['links']).where('id', '=', sent.id).execute();
    expect(JSON.parse(campaign.links!)).toEqual(['https://shop.example/sale']);
  });
});

describe('L2: anonymous GETs of an open pixel', () => {
  let endpointId: number;
  /** `unique` of each email.opened event queued for the endpoint, oldest first */
  const openedEvents = async () =>
    (await server.db.selectFrom('webhook_deliveries').select(['payload', 'event_type']).where('endpoint_id', '=', endpointId).orderBy('id').execute()).map(
      (d) => `${d.event_type} unique=${JSON.parse(d.payload).data.unique}`,
    );

  beforeAll(async () => {
    const res = await t.call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/opens', event_types: ['email.opened'] });
    expect(res.status, res.text).toBe(200);
    endpointId = res.body.data.id;
  });

  it('L2: 300 GETs of one pixel make one email.opened delivery (unique), and a repeat only 10 minutes after the last', async () => {
    const sent = await sentTo('l2', '<p>Hello</p>');
    for (let batch = 0; batch < 15; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => hit(sent.pixel)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    }
    // The endpoint's delivery log holds one delivery: the first open's.
    const log = await t.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`);
    expect(log.body.data.totalElements).toBe(1);
    expect(await openedEvents()).toEqual(['email.opened unique=true']);
    // The statistics count the one unique open (D16).
    const [row] = (await recipientRows(server, sent.id)).values();
    expect(row.opened_at).not.toBeNull();

    // Ten minutes later (the last event's time moved back rather than waited for), one repeat.
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000).toISOString();
    await server.db.updateTable('campaign_recipients').set({ open_event_at: elevenMinutesAgo }).where('id', '=', row.id).execute();
    for (let i = 0; i < 5; i++) expect((await hit(sent.pixel)).status).toBe(200);
    expect(await openedEvents()).toEqual(['email.opened unique=true', 'email.opened unique=false']);
  });

  it('L2: a client over its per-minute budget on the tracking routes gets 429 with Retry-After', async () => {
    const sent = await sentTo('l2limit', '<a href="https://shop.example/x">X</a>');
    // The default budget is 600 per minute per client IP on each route kind; the test before spent 305 of it on /t/o.
    let limited: Awaited<ReturnType<typeof hit>> | undefined;
    for (let sentCount = 0; sentCount < 700 && !limited; sentCount += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => hit(sent.pixel)));
      limited = answers.find((a) => a.status === 429);
      for (const a of answers) expect([200, 429]).toContain(a.status);
    }
    expect(limited, 'no 429 within 700 requests').toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited!.text)).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
    // Each route kind has its own budget: clicks from the same client still answer.
    expect((await hit(sent.click)).status).toBe(302);
  });
});
