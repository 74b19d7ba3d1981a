import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, sendable, tamperings, tenant, type Tenant } from '../sending/send-helpers.ts';

// D22: every message can use {{ webview_url }} (`/w/{token}`): the message as that recipient got
// it, in the browser. Looking at it counts no open; a tampered link is 404.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('webview');
const ada = at('ada');
const bo = at('bo');

const CONTENT = {
  subject: 'News for {{ first_name }}',
  html: '<html><body><p><a href="{{ webview_url }}">View it in your browser</a></p><h1>Hi {{ first_name }} from {{ city }}</h1><a href="https://example.com/story">Story</a><script>document.title = "pwned"</script></body></html>',
  text: 'Hi {{ first_name }}. Online: {{ webview_url }}',
};

/** The web view link of a received message's HTML. */
function webviewLink(html: string): string {
  const link = linksIn(html).hrefs.find((u) => u.includes('/w/'));
  expect(link, html).toBeDefined();
  return link!;
}

async function sendAndWait(body: Record<string, unknown>) {
  const campaign = await t.campaign(sendable([list], body));
  server.sender.dispatcher.start();
  await t.send(campaign.id);
  expect((await t.waitForStatus(campaign.id, ['SENT', 'FAILED'])).status).toBe('SENT');
  await server.sender.dispatcher.stop();
  return campaign;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
  list = await t.list('Readers');
  await t.contact({ email: ada, first_name: 'Ada', custom_fields: { city: 'Oslo' }, list_id: list });
  await t.contact({ email: bo, first_name: 'Bo', custom_fields: { city: 'Rome' }, list_id: list });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('D22 web view (/w/{token})', () => {
  let campaignId: number;
  let adaView: string;

  it("shows each recipient's own message, with tracked links but no open pixel, and counts no open", async () => {
    const campaign = await sendAndWait(CONTENT);
    campaignId = campaign.id;
    const [toAda] = sink.to(ada).filter((m) => m.subject === 'News for Ada');
    const [toBo] = sink.to(bo).filter((m) => m.subject === 'News for Bo');
    adaView = webviewLink(toAda.html as string);
    expect(webviewLink(toBo.html as string)).not.toBe(adaView);
    // The text part carries the same link.
    expect(toAda.text).toContain(adaView);

    const page = await hit(onServer(server, adaView));
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Hi Ada from Oslo');
    expect(page.text).not.toContain('Bo');
    // Links are the recipient's own, tracked as in the mail; nothing counts an open.
    const links = linksIn(page.text);
    expect(links.hrefs.some((u) => u.includes('/t/c/'))).toBe(true);
    expect(links.imgs).toEqual([]);
    expect(links.traps).toEqual([]);
    expect(page.text).not.toContain('/t/o/');
    // The account's content on our origin: no script may run, in a sandbox, sending no Referer.
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    expect(csp).toMatch(/\bsandbox\b/);
    expect(csp).not.toContain('allow-scripts');
    expect(csp).not.toContain('allow-same-origin');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');

    const row = await server.db.selectFrom('campaign_recipients').selectAll().where('campaign_id', '=', campaignId).where('email', '=', ada).executeTakeFirstOrThrow();
    expect(row.opened_at).toBeNull();
    expect((await t.stats(campaignId)).opened).toBe(0);
  });

  it('a click from the web view counts, as one from the mail would', async () => {
    const page = await hit(onServer(server, adaView));
    const click = linksIn(page.text).hrefs.find((u) => u.includes('/t/c/'))!;
    const res = await hit(onServer(server, click), { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/story');
    expect((await t.stats(campaignId)).clicked).toBe(1);
  });

  it('a tampered or foreign token is 404, never another message', async () => {
    for (const bad of tamperings(adaView)) expect((await hit(onServer(server, bad))).status, bad).toBe(404);
    // An unsubscribe token is no web view token.
    const [toAda] = sink.to(ada).filter((m) => m.subject === 'News for Ada');
    const unsubscribe = linksIn(toAda.html as string).hrefs.find((u) => u.includes('/u/'))!;
    const token = unsubscribe.slice(unsubscribe.lastIndexOf('/') + 1);
    expect((await hit(`${server.url}/w/${token}`)).status).toBe(404);
    expect((await hit(`${server.url}/w/nothing`)).status).toBe(404);
  });

  it('a test message names no recipient: its web view link shows a page saying it was a test', async () => {
    const campaign = await t.campaign(sendable([list], CONTENT));
    const tester = at('tester');
    expect((await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [tester] })).status).toBe(200);
    const [mail] = sink.to(tester);
    const page = await hit(onServer(server, webviewLink(mail.html as string)));
    expect(page.status).toBe(200);
    expect(page.text).toContain('This was a test message');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it("once the contact is deleted, its web view is 404: the page would show a person's data we no longer hold", async () => {
    const gone = at('gone');
    await t.contact({ email: gone, first_name: 'Gone', list_id: list });
    await sendAndWait({ ...CONTENT, subject: 'Last one {{ first_name }}' });
    const [mail] = sink.to(gone);
    const view = onServer(server, webviewLink(mail.html as string));
    expect((await hit(view)).status).toBe(200);
    expect((await t.call('DELETE', `/api/v1/contacts/${encodeURIComponent(gone)}`)).status).toBe(200);
    expect((await hit(view)).status).toBe(404);
  });
});
