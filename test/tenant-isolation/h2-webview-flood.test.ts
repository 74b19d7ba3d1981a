/**
 * Issue 28 H2: web views (`/w/{token}`) and the archive render on the API's render thread, which
 * previews and test sends share, and anyone may ask for them. 40 anonymous web views of account
 * A's messages made account B's preview wait behind all of them. Now the thread takes requests in
 * turns by account (FairQueue), a flood spends only A's turns, and past A's waiting cap a public
 * page answers 503 with Retry-After; a web view already rendered is served from a cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let a: Tenant;
let b: Tenant;
let bCampaign: number;
let slug: string;
/** one web view link per recipient of A's campaign, on the test server */
let views: string[];
const at = addressMaker('h2-flood');
const FLOOD = 40;

// Each of A's messages costs the render thread some tens of milliseconds (well under the 300 ms budget).
const HEAVY = {
  subject: 'Digest for {{ first_name }}',
  html: '<p><a href="{{ webview_url }}">View online</a></p>{% for i in (1..3000) %}<p>{{ first_name | upcase }} item {{ i | times: 7 }}</p>{% endfor %}',
  text: 'Digest for {{ first_name }}: {{ webview_url }}',
  archive: true,
};

/** `sendwell_view_renders_total{view="webview"}` now. */
async function webviewRenders(): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith('sendwell_view_renders_total{view="webview"}'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  a = await tenant(server);
  b = await tenant(server);
  const list = await a.list('Readers');
  // One more than the flood: the same-link test uses a web view the flood does not touch.
  const people = Array.from({ length: FLOOD + 1 }, (_, i) => at(`p${i}`));
  for (const [i, email] of people.entries()) await a.contact({ email, first_name: `Reader${i}`, list_id: list });
  const campaign = await a.campaign(sendable([list], HEAVY));
  server.sender.dispatcher.start();
  await a.send(campaign.id);
  expect((await a.waitForStatus(campaign.id, ['SENT', 'FAILED'], 60_000)).status).toBe('SENT');
  await server.sender.dispatcher.stop();
  views = people.map((email) => {
    const [mail] = sink.to(email);
    const link = linksIn(String(mail.html)).hrefs.find((u) => u.includes('/w/'));
    expect(link).toBeDefined();
    return onServer(server, link!);
  });
  slug = (await server.db.selectFrom('accounts').select('slug').where('id', '=', a.accountId).executeTakeFirstOrThrow()).slug;
  const bList = await b.list('B readers');
  await b.contact({ email: at('b-reader'), first_name: 'Bea', list_id: bList });
  bCampaign = (await b.campaign(sendable([bList]))).id;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('H2: a web-view flood of one account', () => {
  it('H2: 40 requests of the same web view link render it once, and every answer is the same page', async () => {
    const before = await webviewRenders();
    const pages = await Promise.all(Array.from({ length: FLOOD }, () => hit(views[FLOOD])));
    for (const page of pages) expect(page.status).toBe(200);
    expect(pages[0].text).toContain('READER40');
    expect(new Set(pages.map((p) => p.text)).size).toBe(1);
    expect((await webviewRenders()) - before).toBe(1);
  });

  it("H2: another account's preview is answered before most of the flood's web views; every flood request is 200 or 503 with Retry-After", async () => {
    const finished: string[] = [];
    const answers: { kind: string; status: number; retryAfter: string | null; text: string }[] = [];
    let firstView!: () => void;
    const firstViewDone = new Promise<void>((resolve) => (firstView = resolve));
    const request = (kind: 'view' | 'feed', url: string) =>
      hit(url).then((res) => {
        finished.push(res.status === 200 ? kind : `${kind}:${res.status}`);
        answers.push({ kind, status: res.status, retryAfter: res.headers.get('retry-after'), text: res.text });
        if (kind === 'view' && res.status === 200) firstView();
      });
    const flood = [...views.slice(0, FLOOD).map((url) => request('view', url)), ...Array.from({ length: 5 }, () => request('feed', `${server.url}/archive/${slug}/feed.xml`))];
    // B asks once A's requests are all in: the thread is busy with A's first ones.
    await firstViewDone;
    const preview = await b.call('POST', `/api/v1/campaigns/${bCampaign}/preview`, {});
    const viewsBeforeB = finished.filter((k) => k === 'view').length;
    await Promise.all(flood);

    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.html).toContain('Bea');
    const served = answers.filter((r) => r.kind === 'view' && r.status === 200);
    expect(served.length).toBeGreaterThan(5);
    // Order, not time: in arrival order B waited for every one of A's web views.
    expect(viewsBeforeB).toBeLessThan(served.length / 2);
    for (const res of answers) {
      expect([200, 503], `${res.kind}: ${res.text}`).toContain(res.status);
      if (res.status === 503) {
        expect(res.retryAfter).toMatch(/^[1-9][0-9]*$/);
        expect(res.text).toContain('Too busy to show this now');
      }
    }
  }, 60_000);
});
