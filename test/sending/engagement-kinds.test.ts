/**
 * D23: every open and click is counted (the spec's `opened` and `clicked` do not change) and told
 * apart as a person's or a machine's: Apple's privacy proxy, scanners, HEAD requests and clicks
 * within 2 seconds of delivery are machines. Real sends through the dev inbox, real pixel and
 * link requests; the client address comes through TRUST_PROXY, as behind a reverse proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, hit, linksIn, onServer, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const IPHONE_MAIL = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';

let server: TestServer;
let t: Tenant;
let campaignId: number;
const mails = new Map<string, { pixel: string; link: string; trap: string; text: string }>();
const address = (name: string) => `${name}@kinds.test`;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING, TRUST_PROXY: '127.0.0.1' });
  server.sender.dispatcher.start();
  t = await tenant(server);
  const list = await t.list('Readers');
  for (const name of ['ann', 'bob', 'cat', 'dan', 'eve']) await t.contact({ email: address(name), first_name: name, list_id: list });
  campaignId = (await t.campaign(sendable([list]))).id;
  await t.send(campaignId);
  await t.waitForStatus(campaignId, 'SENT');
  const inbox = (await t.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages.filter((m: any) => m.campaign_id === campaignId);
  for (const m of inbox) {
    const { hrefs, imgs, traps } = linksIn(m.html);
    mails.set(m.to, {
      pixel: onServer(server, imgs.find((u) => u.includes('/t/o/'))!),
      link: onServer(server, hrefs.find((u) => u.includes('/t/c/'))!),
      trap: onServer(server, traps[0]),
      text: m.text,
    });
  }
  expect(mails.size).toBe(5);
  // Delivered a minute ago, so only the click meant to be early is; dan's is delivered "later"
  // than his click, which is what a scanner clicking on arrival looks like.
  const minuteAgo = new Date(Date.now() - 60_000).toISOString();
  await server.db.updateTable('campaign_recipients').set({ sent_at: minuteAgo }).where('campaign_id', '=', campaignId).execute();
  await server.db.updateTable('campaign_recipients').set({ sent_at: new Date(Date.now() + 60_000).toISOString() }).where('campaign_id', '=', campaignId).where('email', '=', address('dan')).execute();
});
afterAll(() => server?.close());

const from = (ip: string, agent: string) => ({ headers: { 'x-forwarded-for': ip, 'user-agent': agent } });

describe('human and machine opens and clicks (D23)', () => {
  it('classifies each hit, and keeps the spec counts whole', async () => {
    // ann opens in a browser: human.
    expect((await hit(mails.get(address('ann'))!.pixel, from('203.0.113.10', CHROME))).status).toBe(200);
    // bob's mail app is behind Apple's proxy, which fetches first; then bob opens it himself.
    expect((await hit(mails.get(address('bob'))!.pixel, from('17.58.101.4', IPHONE_MAIL))).status).toBe(200);
    expect((await hit(mails.get(address('bob'))!.pixel, from('203.0.113.11', CHROME))).status).toBe(200);
    // cat's gateway checks the link with HEAD: answered as a GET would be, without a body.
    const head = await hit(mails.get(address('cat'))!.link, { method: 'HEAD', ...from('198.51.100.7', CHROME) });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe('https://example.com/a');
    expect(head.body.length).toBe(0);
    // dan's click comes before a person could have read the mail.
    expect((await hit(mails.get(address('dan'))!.link, from('203.0.113.13', CHROME))).status).toBe(302);
    // eve reads, then clicks.
    expect((await hit(mails.get(address('eve'))!.link, from('203.0.113.14', CHROME))).status).toBe(302);

    const stats = await t.stats(campaignId);
    expect(stats).toMatchObject({ delivered: 5, opened: 5, clicked: 3 });
    expect(stats).toMatchObject({ human_opened: 3, machine_opened: 3, human_clicked: 1, machine_clicked: 2, human_open_rate: 60, human_click_rate: 20, open_rate: 100, click_rate: 60 });

    const rows = await recipientRows(server, campaignId);
    const kinds = (name: string) => {
      const r = rows.get(address(name))!;
      return [r.human_opened_at, r.machine_opened_at, r.human_clicked_at, r.machine_clicked_at].map((v) => (v === null ? '-' : 'x')).join('');
    };
    expect(Object.fromEntries(['ann', 'bob', 'cat', 'dan', 'eve'].map((n) => [n, kinds(n)]))).toEqual({ ann: 'x---', bob: 'xx--', cat: '-x-x', dan: '-x-x', eve: 'x-x-' });
  });

  it('counts each recipient once per kind, however often it comes back', async () => {
    for (let i = 0; i < 3; i++) {
      await hit(mails.get(address('ann'))!.pixel, from('203.0.113.10', CHROME));
      await hit(mails.get(address('cat'))!.link, { method: 'HEAD', ...from('198.51.100.7', 'python-requests/2.32') });
    }
    expect(await t.stats(campaignId)).toMatchObject({ opened: 5, clicked: 3, human_opened: 3, machine_opened: 3, human_clicked: 1, machine_clicked: 2 });
  });

  it('counts a hit on the hidden trap link as a machine open and click, and as no click of the content', async () => {
    const ann = mails.get(address('ann'))!;
    const linkReport = async () => (await t.call('GET', `/api/v1/campaigns/${campaignId}/links`)).body.data.links as { url: string; clicks: number }[];
    const before = await linkReport();
    // The link is in the HTML for scanners only: the text part a person may read does not show it.
    expect(ann.text).not.toContain('/t/t/');
    const trap = await hit(ann.trap, from('203.0.113.10', CHROME));
    expect(trap.status).toBe(200);
    expect(trap.headers.get('location')).toBeNull();
    // A scanner checking it with HEAD is answered the same, and counted once.
    expect((await hit(ann.trap, { method: 'HEAD', ...from('198.51.100.7', CHROME) })).status).toBe(200);
    const stats = await t.stats(campaignId);
    expect(stats).toMatchObject({ opened: 5, clicked: 3, human_opened: 3, machine_opened: 4, human_clicked: 1, machine_clicked: 3 });
    const row = (await recipientRows(server, campaignId)).get(address('ann'))!;
    expect([row.human_opened_at, row.machine_opened_at, row.human_clicked_at, row.machine_clicked_at, row.clicked_at].map((v) => v !== null)).toEqual([true, true, false, true, false]);
    expect(await linkReport()).toEqual(before);
  });

  it('answers 404 to a tampered or forged trap token', async () => {
    const token = mails.get(address('bob'))!.trap.split('/t/t/')[1];
    const [body, signature] = token.split('.');
    const tampered = `${body}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect((await hit(`${server.url}/t/t/${tampered}`, from('203.0.113.11', CHROME))).status).toBe(404);
    // An open token is not a trap token: the kinds are signed.
    const pixelToken = mails.get(address('bob'))!.pixel.split('/t/o/')[1];
    expect((await hit(`${server.url}/t/t/${pixelToken}`, from('203.0.113.11', CHROME))).status).toBe(404);
    expect(await t.stats(campaignId)).toMatchObject({ machine_clicked: 3 });
  });
});
