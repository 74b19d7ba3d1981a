/**
 * Issue 28 L1: a web view's address is shared (a forwarded mail, a posted link) and never
 * expires, and its page carried the recipient's live preference link, which downloads the
 * person's data (IP, user agent, events) and erases them. The web view's preference link now
 * reaches the lists and the unsubscribe only; the mailed message's own link keeps D21's actions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let list: number;
const at = addressMaker('l1');
const ann = at('ann');
/** the preference links of the mail and of its web view page, on the test server */
let mailed: string;
let fromWebview: string;

const post = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const preferenceLink = (html: string) => {
  const links = linksIn(html).hrefs.filter((h) => h.startsWith(`${PUBLIC_URL}/p/`));
  expect(links.length, html).toBeGreaterThanOrEqual(1);
  return onServer(server, links[links.length - 1]);
};

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
  list = await t.list('News');
  expect((await t.call('PUT', `/api/v1/lists/${list}`, { is_public: true })).status).toBe(200);
  await t.contact({ email: ann, first_name: 'Ann', list_id: list });
  const campaign = await t.campaign(sendable([list], { html: '<p>Hi {{ first_name }}</p><a href="{{ webview_url }}">View online</a>' }));
  server.sender.dispatcher.start();
  await t.send(campaign.id);
  expect((await t.waitForStatus(campaign.id, ['SENT', 'FAILED'])).status).toBe('SENT');
  await server.sender.dispatcher.stop();
  const [mail] = sink.to(ann);
  mailed = preferenceLink(String(mail.html));
  const webview = linksIn(String(mail.html)).hrefs.find((u) => u.includes('/w/'))!;
  const page = await hit(onServer(server, webview));
  expect(page.status).toBe(200);
  fromWebview = preferenceLink(page.text);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe("L1: the web view's preference link", () => {
  it('L1: is not the mailed link, and its page offers the lists and the unsubscribe but no export or erase', async () => {
    expect(fromWebview).not.toBe(mailed);
    const page = await hit(fromWebview);
    expect(page.status).toBe(200);
    expect(page.text).toContain(ann);
    expect(page.text).toContain('value="update"');
    expect(page.text).toContain('value="unsubscribe_all"');
    expect(page.text).not.toContain('value="export"');
    expect(page.text).not.toContain('value="erase"');
    expect(page.text).toContain('open the preference link at the bottom of the e-mail itself');
  });

  it("L1: cannot export or erase the person's data: 403, a page, and nothing is erased", async () => {
    const exported = await post(fromWebview, 'action=export');
    expect(exported.status).toBe(403);
    expect(exported.headers.get('content-type')).toMatch(/^text\/html/);
    expect(exported.headers.get('content-disposition')).toBeNull();
    expect(exported.text).not.toContain('"events"');
    for (const body of ['action=erase', 'action=erase&confirm=yes']) {
      const res = await post(fromWebview, body);
      expect(res.status, body).toBe(403);
      expect(res.text).toContain('Nothing was changed');
    }
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(ann)}`)).status).toBe(200);
  });

  it('L1: still changes the lists, as the mailed link does', async () => {
    const res = await post(fromWebview, 'action=update');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Your choices are saved.');
    expect(res.text).not.toContain('value="erase"');
    const contact = (await t.call('GET', `/api/v1/contacts/${encodeURIComponent(ann)}`)).body.data;
    expect(contact.memberships.find((m: { list_id: number }) => m.list_id === list).status).toBe('UNSUBSCRIBED');
  });

  it("L1: the mailed message's own link still exports and erases (D21)", async () => {
    const page = await hit(mailed);
    expect(page.text).toContain('value="export"');
    const exported = await post(mailed, 'action=export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toContain('attachment');
    expect(JSON.parse(exported.text).contact.email).toBe(ann);
    const erased = await post(mailed, 'action=erase&confirm=yes');
    expect(erased.status).toBe(200);
    expect(erased.text).toContain('Your data is erased');
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(ann)}`)).status).toBe(404);
  });
});
