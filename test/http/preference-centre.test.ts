/**
 * D20's preference centre and D21's actions in it, through the public surface: the link in the
 * footer of mail received by a real SMTP server, the page a person sees, and its forms posted as
 * a browser posts them. Memberships, statuses, statistics and rows are read back through the API
 * and the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, expectStandAlonePage, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, sendable, tamperings, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let news: number;
let offers: number;
let internal: number;
const at = addressMaker('preferences');

beforeAll(async () => {
  sink = await startSmtpSink();
  // TRUST_PROXY: the rate-limit test speaks for a client address of its own (X-Forwarded-For).
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, TRUST_PROXY: 'loopback' });
  server.sender.dispatcher.start();
  t = await tenant(server);
  news = await t.list('News');
  offers = await t.list('Offers');
  internal = await t.list('Internal');
  await makePublic(news, 'What we are up to, monthly');
  await makePublic(offers);
  // Another account's public list is never shown.
  const other = await tenant(server);
  await makePublic(await other.list('Elsewhere'), null, other);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** D20: a list shown in the preference centre. */
async function makePublic(listId: number, description: string | null = null, who = t) {
  const res = await who.call('PUT', `/api/v1/lists/${listId}`, { is_public: true, description });
  expect(res.status, res.text).toBe(200);
}

/** A new contact in `lists`, sent a campaign to `lists`; answers its preference centre URL (on the test server) and the campaign. */
async function personWithLink(label: string, lists: number[], extra: Record<string, unknown> = {}) {
  const email = at(label);
  await t.contact({ email, first_name: 'Ann' });
  for (const list of lists) await t.addToList(list, [email]);
  const campaign = await t.campaign(sendable(lists, { name: `To ${label}`, ...extra }));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const [mail] = sink.to(email);
  const footer = linksIn(String(mail.html)).hrefs.filter((h) => h.startsWith(`${PUBLIC_URL}/p/`));
  expect(footer.length).toBeGreaterThanOrEqual(1);
  return { email, campaign, url: onServer(server, footer[footer.length - 1]), mail };
}

interface PageForm {
  action: string;
  method: string;
  hidden: [string, string][];
  checkboxes: { name: string; value: string; checked: boolean }[];
}

/** The page's forms, as a browser reads them. */
function formsOf(html: string): PageForm[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, attrs, inner]) => ({
    action: /\baction="([^"]*)"/.exec(attrs)![1].replace(/&amp;/g, '&'),
    method: /\bmethod="([^"]*)"/.exec(attrs)![1],
    hidden: [...inner.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]] as [string, string]),
    checkboxes: [...inner.matchAll(/<input type="checkbox" name="([^"]+)" value="([^"]*)"([^>]*)>/g)].map((m) => ({ name: m[1], value: m[2], checked: /\bchecked\b/.test(m[3]) })),
  }));
}

/** The form that posts `action`. */
function formFor(html: string, action: string): PageForm {
  const found = formsOf(html).filter((f) => f.hidden.some(([name, value]) => name === 'action' && value === action));
  expect(found, html).toHaveLength(1);
  return found[0];
}

const post = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

/** Posts a form of the page as a browser would, with `checked` the list ids ticked (default: as the page had them). */
function submit(pageUrl: string, form: PageForm, checked?: number[]) {
  const fields = new URLSearchParams(form.hidden);
  for (const box of form.checkboxes) if (checked ? checked.includes(Number(box.value)) : box.checked) fields.append(box.name, box.value);
  expect(form.method).toBe('post');
  return post(new URL(form.action, pageUrl).toString(), fields.toString());
}


const memberships = async (email: string) =>
  Object.fromEntries(((await t.getContact(email)).memberships as { list_id: number; status: string }[]).map((m) => [m.list_id, m.status]));

describe('D20: the preference centre link in every message', () => {
  it('is in the footer of the HTML and text parts unless the content has it; {{ preferences_url }} renders to the same link, once (D26.4)', async () => {
    const plain = await personWithLink('footer', [news]);
    const text = String(plain.mail.text);
    const [fromText] = /Manage your subscriptions: (\S+)/.exec(text)!.slice(1);
    expect(onServer(server, fromText)).toBe(plain.url);
    expect(String(plain.mail.html)).toContain('>Manage your subscriptions</a>');

    const placed = await personWithLink('merge-field', [news], {
      html: '<p>Hi</p><a href="{{ preferences_url }}">Choose your lists</a>',
      text: 'Hi. Choose your lists: {{ preferences_url }}',
    });
    const html = String(placed.mail.html);
    const own = /<a href="([^"]+)">Choose your lists<\/a>/.exec(html)![1];
    expect(onServer(server, own)).toBe(placed.url);
    // D26.4: one link to the preference centre, the content's own; no second one in the footer.
    expect(html).not.toContain('>Manage your subscriptions</a>');
    expect(html.split(own).length - 1).toBe(1);
    expect(String(placed.mail.text)).toContain(`Choose your lists: ${own}`);
    expect(String(placed.mail.text)).not.toContain('Manage your subscriptions');
    // Not a tracked click: the link is the centre's own.
    expect(own).toMatch(new RegExp(`^${PUBLIC_URL}/p/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
  });
});

describe('D20: GET /p/{token}', () => {
  it("shows the account's public lists with the contact's memberships checked, and changes nothing", async () => {
    const { email, url } = await personWithLink('page', [news, internal]);
    const before = await memberships(email);
    const res = await hit(url);
    expectStandAlonePage(res);
    expect(res.text).toContain(email);
    expect(res.text).toContain('Acme News');
    const boxes = formFor(res.text, 'update').checkboxes;
    expect(boxes).toEqual([
      { name: 'list_ids', value: String(news), checked: true },
      { name: 'list_ids', value: String(offers), checked: false },
    ]);
    expect(res.text).toContain('News');
    expect(res.text).toContain('What we are up to, monthly');
    expect(res.text).not.toContain('Internal');
    expect(res.text).not.toContain('Elsewhere');
    for (const action of ['unsubscribe_all', 'export', 'erase']) formFor(res.text, action);
    expect(await memberships(email)).toEqual(before);
    expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
  });

  it('escapes what the account wrote: list names and descriptions', async () => {
    const hostile = await t.list('<script>alert(1)</script> & "Friends"');
    await makePublic(hostile, '<img src=x onerror=alert(1)>');
    const { url } = await personWithLink('escaped', [news]);
    const res = await hit(url);
    expectStandAlonePage(res);
    expect(res.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;Friends&#34;');
    expect(res.text).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect((await t.call('PUT', `/api/v1/lists/${hostile}`, { is_public: false })).status).toBe(200);
  });
});

describe('D20: POST /p/{token}', () => {
  it('public lists chosen become SUBSCRIBED, public lists left out UNSUBSCRIBED; private lists and the contact status are untouched', async () => {
    const { email, url } = await personWithLink('choose', [news, internal]);
    const countsBefore = Object.fromEntries(await Promise.all([news, offers, internal].map(async (id) => [id, (await t.call('GET', `/api/v1/lists/${id}`)).body.data.contact_count])));
    const page = await hit(url);
    const saved = await submit(url, formFor(page.text, 'update'), [offers]);
    expectStandAlonePage(saved);
    expect(saved.text).toContain('Your choices are saved.');
    expect(formFor(saved.text, 'update').checkboxes.map((b) => [Number(b.value), b.checked])).toEqual([
      [news, false],
      [offers, true],
    ]);
    expect(await memberships(email)).toEqual({ [news]: 'UNSUBSCRIBED', [offers]: 'SUBSCRIBED', [internal]: 'SUBSCRIBED' });
    expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
    const countsAfter = Object.fromEntries(await Promise.all([news, offers, internal].map(async (id) => [id, (await t.call('GET', `/api/v1/lists/${id}`)).body.data.contact_count])));
    expect(countsAfter).toEqual({ [news]: countsBefore[news] - 1, [offers]: countsBefore[offers] + 1, [internal]: countsBefore[internal] });
    // The choice is the person's consent (D20), recorded with the request's client.
    const exported = (await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}/export`)).body.data;
    expect(exported.consents.at(-1)).toMatchObject({ source: 'FORM', form_id: null, list_ids: [offers], ip: '127.0.0.1' });

    // Private list ids and other accounts' lists in the POST change nothing; nothing chosen leaves every public list.
    const none = await post(url, `action=update&list_ids=${internal}&list_ids=999999`);
    expectStandAlonePage(none);
    expect(await memberships(email)).toEqual({ [news]: 'UNSUBSCRIBED', [offers]: 'UNSUBSCRIBED', [internal]: 'SUBSCRIBED' });
    // And back in.
    await post(url, `action=update&list_ids=${news}&list_ids=${news}`);
    expect(await memberships(email)).toEqual({ [news]: 'SUBSCRIBED', [offers]: 'UNSUBSCRIBED', [internal]: 'SUBSCRIBED' });
  });

  it('action=unsubscribe_all unsubscribes the contact as the unsubscribe link does, counted once', async () => {
    const { email, url, campaign } = await personWithLink('leave-all', [news]);
    const res = await submit(url, formFor((await hit(url)).text, 'unsubscribe_all'));
    expectStandAlonePage(res);
    expect(res.text).toContain('You are unsubscribed from all e-mails.');
    expect(res.text).toContain('is unsubscribed from all e-mails from');
    expect((await t.getContact(email)).status).toBe('UNSUBSCRIBED');
    expect(await memberships(email)).toEqual({ [news]: 'SUBSCRIBED' });
    await post(url, 'action=unsubscribe_all');
    expect(await t.stats(campaign.id)).toMatchObject({ unsubscribed: 1 });
  });

  it("action=export answers D21's document as a JSON download, the API's own", async () => {
    const { email, url } = await personWithLink('export', [news]);
    const res = await submit(url, formFor((await hit(url)).text, 'export'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="personal-data.json"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(res.text)).toEqual((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}/export`)).body.data);
  });

  it('action=erase asks first and changes nothing; confirm=yes erases; statistics stay; the link then holds nothing', async () => {
    const { email, url, campaign } = await personWithLink('erase', [news]);
    const contactId = (await t.getContact(email)).id;
    const statsBefore = await t.stats(campaign.id);
    const asked = await submit(url, formFor((await hit(url)).text, 'erase'));
    expectStandAlonePage(asked);
    expect(asked.text).toContain('Erase your data?');
    expect(asked.text).toContain(email);
    expect((await t.getContact(email)).email).toBe(email);
    // "No, go back" is a GET of the page itself.
    const back = formsOf(asked.text).find((f) => f.method === 'get')!;
    expect(new URL(back.action, url).toString()).toBe(url);

    const done = await submit(url, formFor(asked.text, 'erase'));
    expectStandAlonePage(done);
    expect(done.text).toContain('Your data is erased');
    expect(done.text).not.toContain(email);
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(404);
    expect(await t.stats(campaign.id)).toEqual(statsBefore);
    const hashed = (await t.call('GET', '/api/v1/suppressions?search=sha256&size=100')).body.data.suppressions;
    expect(hashed.some((s: any) => s.source === 'ERASURE')).toBe(true);
    // D24.8: the person's own erasure is the system's entry, naming the contact's id only: no address, IP nor browser.
    const audit = await t.call('GET', `/api/v1/audit-log?action=contact.erased&target_type=contact&target_id=${contactId}`);
    expect(audit.body.data.entries).toMatchObject([{ actor: { type: 'system', id: null }, target: { type: 'contact', id: String(contactId) }, ip: null, user_agent: null }]);
    expect(audit.text).not.toContain(email);

    // The link still answers, naming nobody; a repeated erase or any other form changes nothing.
    for (const res of [await hit(url), await post(url, 'action=erase&confirm=yes'), await post(url, 'action=export'), await post(url, `action=update&list_ids=${news}`)]) {
      expectStandAlonePage(res);
      expect(res.text).not.toContain(email);
    }
    expect((await hit(url)).text).toContain('Nothing to manage here');
  });

  it('a POST that is not the page form is 400 and changes nothing', async () => {
    const { email, url } = await personWithLink('bad-form', [news]);
    for (const body of ['', `list_ids=${offers}`, 'action=delete', 'action=update&list_ids=abc', 'action=update&list_ids=0', `action=update&${'list_ids=1&'.repeat(1001)}`, '{"action":"update"}']) {
      const res = await post(url, body);
      expect(res.status, body.slice(0, 40)).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    }
    expect(await memberships(email)).toEqual({ [news]: 'SUBSCRIBED' });
    expect((await post(url, 'x'.repeat(70 * 1024))).status).toBe(413);
  });
});

describe('D20: links that are not valid', () => {
  it('a tampered token, or a token of another kind, is 404 on GET and POST, never a redirect', async () => {
    const { email, url, mail } = await personWithLink('tampered', [news]);
    const unsubscribe = linksIn(String(mail.html)).hrefs.find((h) => h.includes('/u/'))!;
    const unsubscribeToken = unsubscribe.slice(unsubscribe.lastIndexOf('/') + 1);
    const bad = [...tamperings(url), `${server.url}/p/${unsubscribeToken}`, `${server.url}/p/nodot`, `${server.url}/p/${'A'.repeat(200)}`];
    for (const link of bad) {
      for (const res of [await hit(link), await post(link, `action=update&list_ids=${offers}`), await post(link, 'action=erase&confirm=yes')]) {
        expect(res.status, link).toBe(404);
        expect(res.headers.get('location')).toBeNull();
      }
    }
    expect(await memberships(email)).toEqual({ [news]: 'SUBSCRIBED' });
    expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
  });

  it("a test send's link shows a page saying so, and its forms change nothing", async () => {
    const email = at('tested');
    await t.contact({ email, list_id: news });
    const campaign = await t.campaign(sendable([news]));
    expect((await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [email] })).status).toBe(200);
    const [mail] = sink.to(email);
    const link = onServer(server, linksIn(String(mail.html)).hrefs.find((h) => h.includes('/p/'))!);
    const page = await hit(link);
    expectStandAlonePage(page);
    expect(page.text).toContain('This was a test message');
    for (const body of ['action=unsubscribe_all', 'action=erase&confirm=yes', 'action=update']) {
      const res = await post(link, body);
      expectStandAlonePage(res);
      expect(res.text).toContain('This was a test message');
    }
    expect((await t.getContact(email)).status).toBe('SUBSCRIBED');
    expect(await memberships(email)).toEqual({ [news]: 'SUBSCRIBED' });
  });

  it('each client address has a per-minute budget on the preference centre, its own beside the other links (429, Retry-After)', async () => {
    const { url } = await personWithLink('limited', [news]);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    let limited: Awaited<ReturnType<typeof hit>> | undefined;
    // The default budget is 600 a minute per client address and kind of link.
    for (let sent = 0; sent < 700 && !limited; sent += 25) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => hit(url, from('203.0.113.9'))));
      for (const a of answers) expect([200, 429]).toContain(a.status);
      limited = answers.find((a) => a.status === 429);
    }
    expect(limited, 'no 429 within 700 requests').toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(limited!.text)).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
    expect((await hit(url, { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.9', 'content-type': 'application/x-www-form-urlencoded' }, body: 'action=export' })).status).toBe(429);
    // Another client, and another kind of link from the same client, still answer.
    expect((await hit(url, from('203.0.113.10'))).status).toBe(200);
    expect((await hit(url.replace('/p/', '/u/'), from('203.0.113.9'))).status).toBe(404);
  });
});
