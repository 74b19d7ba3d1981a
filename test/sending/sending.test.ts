import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageIdFor } from '../../src/sending/message.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';
import {
  addressMaker,
  FAST_SENDING,
  hit,
  linksIn,
  messagesOfCampaign,
  onServer,
  PUBLIC_URL,
  rawHeader,
  recipientOf,
  recipientRows,
  tamperings,
  tenant,
  type Campaign,
  type Tenant,
} from './send-helpers.ts';

// A campaign sent through a real SMTP server (smtp-server in this process), read back with
// mailparser: audience (D13), headers and content (D16), tracking and one-click unsubscribe (D16),
// statistics (spec "Campaign statistics").

const D1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const EVIL_NAME = '<script>alert(1)</script>';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let campaign: Campaign;
let mail: Map<string, ReceivedMessage>;
const at = addressMaker('full');
const people = {
  alice: at('alice'),
  bob: at('bob'),
  mallory: at('mallory'),
  carol: at('carol'),
  dave: at('dave'),
  erin: at('erin'),
  frank: at('frank'),
};

const HTML = `<html><body>
<h1>Hello {{ first_name }}</h1>
<p>Your plan: {{ plan }} ({{ custom_fields.seats }} seats)</p>
<a href="https://example.com/pricing?a=1&amp;b=2">Pricing</a>
<a href='https://example.com/docs'>Docs</a>
</body></html>`;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  const news = await t.list('News');
  const promos = await t.list('Promos');
  const other = await t.list('Other');
  await t.contact({ email: people.alice, first_name: 'Alice', custom_fields: { plan: 'gold', seats: 3 }, tags: ['vip'], list_id: news });
  await t.contact({ email: people.bob, first_name: 'Bob', custom_fields: { plan: 'basic' }, tags: ['vip', 'early'], list_id: news });
  await t.addToList(promos, [people.bob]); // in both lists: still one message
  await t.contact({ email: people.mallory, first_name: EVIL_NAME, tags: ['vip'], list_id: promos });
  await t.contact({ email: people.carol, first_name: 'Carol', tags: ['vip'], list_id: news });
  expect((await t.call('PUT', `/api/v1/contacts/${people.carol}`, { status: 'UNSUBSCRIBED' })).status).toBe(200);
  await t.contact({ email: people.dave, first_name: 'Dave', tags: ['vip'], list_id: news });
  // The API cannot set BOUNCED (only a bounce can): seeded directly.
  await server.db.updateTable('contacts').set({ status: 'BOUNCED' }).where('email', '=', people.dave).execute();
  await t.contact({ email: people.erin, first_name: 'Erin', tags: ['vip'], list_id: other });
  await t.contact({ email: people.frank, first_name: 'Frank', tags: ['newsletter'], list_id: news });

  campaign = await t.campaign({
    name: 'Spring sale',
    subject: 'Hi {{ first_name }}, your {{ plan }} plan',
    from_name: 'Acme News',
    from_email: 'news@acme.test',
    reply_to: 'support@acme.test',
    html: HTML,
    text: 'Hello {{ first_name }}, plan {{ plan }}. Pricing: https://example.com/pricing',
    list_ids: [news, promos],
    tags: ['vip'],
  });
});

afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('a full send through SMTP (D13)', () => {
  it('POST /send snapshots the audience: SENDING with total_recipients set', async () => {
    const res = await t.call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.data).toMatchObject({ id: campaign.id, status: 'SENDING', total_recipients: 3, sent_at: null, error: null });
  });

  it('ends SENT with sent_at and total_recipients', async () => {
    const done = await t.waitForStatus(campaign.id, ['SENT', 'FAILED']);
    expect(done.status).toBe('SENT');
    expect(done.sent_at).toMatch(D1_TIMESTAMP);
    expect(done.total_recipients).toBe(3);
    expect(done.error).toBeNull();
  });

  it('mails each SUBSCRIBED member of its lists exactly once, with the tag filter (D13)', async () => {
    const received = messagesOfCampaign(sink.messages, campaign.id);
    // alice and bob (news; bob in promos too: once), mallory (promos). Not: carol UNSUBSCRIBED,
    // dave BOUNCED, erin (list not in the campaign), frank (no `vip` tag).
    expect(received.map(recipientOf).sort()).toEqual([people.alice, people.bob, people.mallory].sort());
    mail = new Map(received.map((m) => [recipientOf(m), m]));
    const rows = await recipientRows(server, campaign.id);
    expect([...rows.keys()].sort()).toEqual([people.alice, people.bob, people.mallory].sort());
    for (const row of rows.values()) {
      expect(row).toMatchObject({ status: 'SENT', attempts: 1, last_error: null, claimed_until: null });
      expect(row.sent_at).not.toBeNull();
    }
  });

  it('statistics: sent and delivered match what the SMTP server received', async () => {
    expect(await t.stats(campaign.id)).toEqual({
      human_opened: 0,
      machine_opened: 0,
      human_clicked: 0,
      machine_clicked: 0,
      human_open_rate: 0,
      human_click_rate: 0,
      sent: 3,
      delivered: 3,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      open_rate: 0,
      click_rate: 0,
      bounce_rate: 0,
      click_to_open_rate: 0,
      unsubscribe_rate: 0,
    });
  });
});

describe('headers of each message (D16)', () => {
  it('List-Unsubscribe on one line: an https URL under PUBLIC_URL and a mailto; one-click companion', () => {
    for (const m of mail.values()) {
      const lines = rawHeader(m.raw, 'List-Unsubscribe');
      expect(lines, m.raw.slice(0, 2000)).toHaveLength(1);
      expect(lines[0]).not.toContain('\n'); // not folded
      const value = lines[0].slice('List-Unsubscribe:'.length).trim();
      expect(value).toMatch(new RegExp(`^<${PUBLIC_URL.replace(/\./g, '\\.')}/u/[A-Za-z0-9_.-]+>, <mailto:[^>]+@acme\\.test[^>]*>$`));
      expect(value.startsWith('<https://')).toBe(true);
      expect(rawHeader(m.raw, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
    }
  });

  it('Message-ID is <c{campaign}.r{recipient}.{sig}@{from domain}>, distinct per recipient and fixed per (campaign, recipient)', async () => {
    const rows = await recipientRows(server, campaign.id);
    const ids = new Set<string>();
    for (const [email, m] of mail) {
      const row = rows.get(email)!;
      expect(m.messageId).toMatch(new RegExp(`^<c${campaign.id}\\.r${row.id}\\.[A-Za-z0-9_-]+@acme\\.test>$`));
      // Recomputed from (campaign, recipient) alone: the same value, so a retry or a bounce names the same message.
      expect(m.messageId).toBe(messageIdFor(server.core.signer, campaign.id, row.id, 'acme.test'));
      expect(row.message_id).toBe(m.messageId);
      ids.add(m.messageId!);
    }
    expect(ids.size).toBe(3);
  });

  it('From, Reply-To, To and envelope sender', () => {
    for (const [email, m] of mail) {
      expect(m.from?.value).toEqual([{ name: 'Acme News', address: 'news@acme.test' }]);
      expect(m.replyTo?.value).toEqual([{ name: '', address: 'support@acme.test' }]);
      expect(m.envelope).toEqual({ from: 'news@acme.test', to: [email] });
      const to = Array.isArray(m.to) ? m.to : [m.to];
      expect(to.flatMap((a) => a!.value.map((v) => v.address))).toEqual([email]);
    }
  });
});

describe('content: merge fields, escaping, links (D16)', () => {
  it('renders merge fields and custom fields in subject, HTML and text', () => {
    const alice = mail.get(people.alice)!;
    expect(alice.subject).toBe('Hi Alice, your gold plan');
    expect(alice.html).toContain('<h1>Hello Alice</h1>');
    expect(alice.html).toContain('<p>Your plan: gold (3 seats)</p>');
    expect(alice.text).toContain('Hello Alice, plan gold. Pricing: https://example.com/pricing');
    const bob = mail.get(people.bob)!;
    expect(bob.subject).toBe('Hi Bob, your basic plan');
    expect(bob.html).toContain('<p>Your plan: basic ( seats)</p>'); // a field the contact lacks renders empty
  });

  it("escapes a contact's markup in HTML, but not in the subject or text", () => {
    const m = mail.get(people.mallory)!;
    expect(m.subject).toBe(`Hi ${EVIL_NAME}, your  plan`);
    expect(m.html).toContain('<h1>Hello &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(m.html).not.toContain('<script');
    expect(m.text).toContain(`Hello ${EVIL_NAME}, plan .`);
  });

  it('rewrites every link to /t/c/ under PUBLIC_URL; carries an open pixel, a visible unsubscribe link and (D20) the preference centre link', () => {
    for (const m of mail.values()) {
      const html = m.html as string;
      expect(html).not.toContain('https://example.com/');
      const { hrefs, imgs, traps } = linksIn(html);
      expect(traps).toEqual([expect.stringMatching(new RegExp(`^${PUBLIC_URL}/t/t/[A-Za-z0-9_.-]+$`))]); // D23's hidden trap link
      const unsubscribe = rawHeader(m.raw, 'List-Unsubscribe')[0].match(/<(https:[^>]+)>/)![1];
      expect(hrefs).toHaveLength(4);
      expect(hrefs[0]).toMatch(new RegExp(`^${PUBLIC_URL}/t/c/[A-Za-z0-9_.-]+$`));
      expect(hrefs[1]).toMatch(new RegExp(`^${PUBLIC_URL}/t/c/[A-Za-z0-9_.-]+$`));
      expect(hrefs[0]).not.toBe(hrefs[1]);
      expect(hrefs[2]).toBe(unsubscribe); // the visible link is the same as the header's
      expect(html).toMatch(/<a href="[^"]+\/u\/[^"]+">Unsubscribe<\/a>/);
      expect(hrefs[3]).toMatch(new RegExp(`^${PUBLIC_URL}/p/[A-Za-z0-9_.-]+$`));
      expect(m.text).toContain(`Manage your subscriptions: ${hrefs[3]}`);
      expect(imgs).toHaveLength(1);
      expect(imgs[0]).toMatch(new RegExp(`^${PUBLIC_URL}/t/o/[A-Za-z0-9_.-]+$`));
      expect(m.text).toContain(`Unsubscribe: ${unsubscribe}`);
    }
  });
});

describe('tracking through the links in the received mail (D16)', () => {
  const links = (email: string) => {
    const m = mail.get(email)!;
    const { hrefs, imgs } = linksIn(m.html as string);
    return { pricing: onServer(server, hrefs[0]), docs: onServer(server, hrefs[1]), unsubscribe: onServer(server, hrefs[2]), pixel: onServer(server, imgs[0]) };
  };

  it('the open pixel is a no-cache 1x1 GIF; opens count once per recipient however often hit', async () => {
    const { pixel } = links(people.alice);
    for (let i = 0; i < 3; i++) {
      const res = await hit(pixel);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('cache-control')).toContain('no-cache');
      expect(res.body.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    }
    expect(await t.stats(campaign.id)).toMatchObject({ opened: 1, clicked: 0, open_rate: 33.33 });
    expect((await hit(links(people.bob).pixel)).status).toBe(200);
    expect(await t.stats(campaign.id)).toMatchObject({ opened: 2, clicked: 0, open_rate: 66.67 });
  });

  it('a click answers 302 to the original URL; clicks count once per recipient', async () => {
    const { pricing, docs } = links(people.alice);
    for (const [url, target] of [
      [pricing, 'https://example.com/pricing?a=1&b=2'],
      [pricing, 'https://example.com/pricing?a=1&b=2'],
      [docs, 'https://example.com/docs'],
    ]) {
      const res = await hit(url);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(target);
    }
    expect(await t.stats(campaign.id)).toMatchObject({ opened: 2, clicked: 1, click_rate: 33.33, click_to_open_rate: 50 });
    const rows = await recipientRows(server, campaign.id);
    expect(rows.get(people.alice)!.clicked_at).not.toBeNull();
    expect(rows.get(people.bob)!.clicked_at).toBeNull();
  });

  it('a click without an earlier pixel load counts as an open too', async () => {
    const res = await hit(links(people.mallory).docs);
    expect(res.status).toBe(302);
    expect(await t.stats(campaign.id)).toMatchObject({ opened: 3, clicked: 2 });
  });

  it('a tampered token is 404 and never a redirect, on /t/o, /t/c and /u; nothing is counted', async () => {
    const before = await t.stats(campaign.id);
    const { pixel, pricing, unsubscribe } = links(people.bob);
    for (const url of [pixel, pricing, unsubscribe].flatMap(tamperings)) {
      const res = await hit(url);
      expect(res.status, url).toBe(404);
      expect(res.headers.get('location')).toBeNull();
    }
    for (const url of tamperings(unsubscribe)) {
      const post = await hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(post.status).toBe(404);
    }
    // A valid token of another kind is no key to this door either.
    const openToken = pixel.split('/t/o/')[1];
    expect((await hit(`${server.url}/t/c/${openToken}`)).status).toBe(404);
    expect((await hit(`${server.url}/u/${openToken}`)).status).toBe(404);
    expect(await t.stats(campaign.id)).toEqual(before);
    expect((await t.getContact(people.bob)).status).toBe('SUBSCRIBED');
  });

  it('GET /u/{token} shows a confirmation page with a form, and unsubscribes no one', async () => {
    const res = await hit(links(people.bob).unsubscribe);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<form method="post" action="\/u\/[^"]+"/);
    // D17.1: the page's own form says what it wants; posting RFC 8058's body made it a blank page.
    expect(res.text).toContain('name="action" value="unsubscribe"');
    expect(res.text).not.toContain('List-Unsubscribe');
    expect((await t.getContact(people.bob)).status).toBe('SUBSCRIBED');
    expect((await t.stats(campaign.id)).unsubscribed).toBe(0);
  });

  it('POST /u/{token} (RFC 8058 one-click): blank 200, no redirect, no cookie; contact UNSUBSCRIBED, counted once', async () => {
    const { unsubscribe } = links(people.mallory);
    for (let i = 0; i < 2; i++) {
      const res = await hit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect((await t.getContact(people.mallory)).status).toBe('UNSUBSCRIBED');
    expect((await t.getContact(people.bob)).status).toBe('SUBSCRIBED');
    const rows = await recipientRows(server, campaign.id);
    expect(rows.get(people.mallory)!.unsubscribed_at).not.toBeNull();
    // The spec's counts; which of these opens and clicks were people's (D23) depends on how soon
    // after delivery this test clicked, and is engagement-kinds.test.ts's subject.
    expect(await t.stats(campaign.id)).toMatchObject({
      sent: 3,
      delivered: 3,
      opened: 3,
      clicked: 2,
      bounced: 0,
      complained: 0,
      unsubscribed: 1,
      open_rate: 100,
      click_rate: 66.67,
      bounce_rate: 0,
      click_to_open_rate: 66.67,
      unsubscribe_rate: 33.33,
    });
  });

  it('the confirmation form posts to the same URL and unsubscribes too', async () => {
    const page = await hit(links(people.bob).unsubscribe);
    const action = page.text.match(/action="([^"]+)"/)![1];
    const res = await hit(server.url + action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await t.getContact(people.bob)).status).toBe('UNSUBSCRIBED');
    expect((await t.stats(campaign.id)).unsubscribed).toBe(2);
  });
});
