import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, hit, linksIn, PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { cookieOf } from '../dashboard/sign-up.ts';

// D22: campaigns gain `archive` and `archive_url`; accounts have a `slug`; /archive/{slug} lists
// the archived SENT campaigns, each at /archive/{slug}/{id} rendered with no personal data, plus an
// RSS 2.0 feed at /archive/{slug}/feed.xml.

let server: TestServer;
let t: Tenant;
let slug: string;
let list: number;

const CONTENT = {
  subject: 'Issue for {{ first_name }}',
  preheader: 'This month in short',
  html: '<html><body><h1>Dear {{ first_name }} {{ last_name }} ({{ email }}, {{ city }})</h1><p>Our big story of the month.</p><a href="https://example.com/story?a=1&amp;b=2">Read</a> <a href="{{ webview_url }}">View online</a> <a href="{{ unsubscribe_url }}">Leave</a><script>document.title = "pwned"</script></body></html>',
  text: null,
};

async function sent(body: Record<string, unknown>) {
  const campaign = await t.campaign(sendable([list], body));
  server.sender.dispatcher.start();
  await t.send(campaign.id);
  const done = await t.waitForStatus(campaign.id, ['SENT', 'FAILED']);
  await server.sender.dispatcher.stop();
  expect(done.status).toBe('SENT');
  return done;
}

/** Inserts archived SENT campaigns straight into the table: paging needs more than a test should send. */
async function insertArchived(accountId: number, count: number, prefix: string) {
  for (let i = 0; i < count; i++) {
    const at = new Date(Date.UTC(2020, 0, 1, 0, i)).toISOString();
    await server.db
      .insertInto('campaigns')
      .values({ account_id: accountId, name: `${prefix} ${i}`, subject: `${prefix} ${i}`, html: `<p>${prefix} ${i}</p>`, text: null, list_ids: '[]', tags: '[]', status: 'SENT', archive: 1, sent_at: at, created_at: at, updated_at: at } as never)
      .execute();
  }
}

const rss = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(xml);

beforeAll(async () => {
  server = await startTestServer(FAST_SENDING);
  t = await tenant(server);
  slug = (await server.db.selectFrom('accounts').select('slug').where('id', '=', t.accountId).executeTakeFirstOrThrow()).slug;
  list = await t.list('Readers');
  await t.contact({ email: 'ada@example.org', first_name: 'Ada', last_name: 'Lovelace', custom_fields: { city: 'London' }, list_id: list });
});
afterAll(() => server?.close());

describe('D22: the account slug', () => {
  it('is in GET /api/v1/auth/me', async () => {
    const fresh = await startTestServer();
    try {
      const signUp = await fresh.request('POST', '/api/v1/auth/signup', { body: { email: 'owner@example.com', password: 'first password 1', account_name: 'Acme News & Co' } });
      expect(signUp.status, signUp.text).toBe(200);
      const me = await fresh.request('GET', '/api/v1/auth/me', { headers: { cookie: cookieOf(signUp)! } });
      expect(me.status).toBe(200);
      expect(me.body.data.account).toMatchObject({ name: 'Acme News & Co', slug: 'acme-news-co' });
    } finally {
      await fresh.close();
    }
  });
});

describe('D22: archive and archive_url', () => {
  let archivedId: number;
  let plainId: number;

  it('archive defaults to false; archive_url stays null until an archived campaign is SENT', async () => {
    const draft = await t.campaign({ name: 'Plain' });
    expect(draft).toMatchObject({ archive: false, archive_url: null });
    const marked = await t.campaign(sendable([list], { ...CONTENT, archive: true }));
    expect(marked).toMatchObject({ archive: true, archive_url: null });
    const done = await sent({ ...CONTENT, archive: true, subject: 'Archived {{ first_name }}' });
    archivedId = done.id;
    expect(done).toMatchObject({ archive: true, archive_url: `${PUBLIC_URL}/archive/${slug}/${done.id}` });
    await t.call('DELETE', `/api/v1/campaigns/${marked.id}`);
  });

  it('a SENT campaign can be archived and taken out again, but nothing else of it changes', async () => {
    const done = await sent({ ...CONTENT, subject: 'Later archived' });
    plainId = done.id;
    expect(done).toMatchObject({ archive: false, archive_url: null });
    const archived = await t.call('PUT', `/api/v1/campaigns/${done.id}`, { archive: true });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.data).toMatchObject({ status: 'SENT', archive: true, archive_url: `${PUBLIC_URL}/archive/${slug}/${done.id}` });
    expect((await t.call('GET', '/api/v1/campaigns')).body.data.campaigns.find((c: { id: number }) => c.id === done.id).archive_url).toBe(archived.body.data.archive_url);
    const mixed = await t.call('PUT', `/api/v1/campaigns/${done.id}`, { archive: false, subject: 'Changed' });
    expect(mixed.status).toBe(409);
    expect(mixed.body.error.code).toBe('INVALID_STATE');
    expect((await t.call('PUT', `/api/v1/campaigns/${done.id}`, { archive: false })).body.data).toMatchObject({ archive: false, archive_url: null });
    expect((await hit(`${server.url}/archive/${slug}/${done.id}`)).status).toBe(404);
    expect((await t.call('PUT', `/api/v1/campaigns/${done.id}`, { archive: 'yes' })).status).toBe(400);
  });

  it('the list page shows archived SENT campaigns only, newest first, without personal data', async () => {
    const draft = await t.campaign(sendable([list], { ...CONTENT, subject: 'Draft never shown', archive: true }));
    const later = await sent({ ...CONTENT, archive: true, subject: 'Second archived' });
    const page = await hit(`${server.url}/archive/${slug}`);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).not.toContain('Draft never shown');
    expect(page.text).not.toContain('Later archived');
    expect(page.text).not.toContain('Ada');
    // Rendered for nobody: the merge field is empty.
    const second = page.text.indexOf(`/archive/${slug}/${later.id}`);
    const first = page.text.indexOf(`/archive/${slug}/${archivedId}`);
    expect(second).toBeGreaterThan(0);
    expect(first).toBeGreaterThan(second);
    expect(page.text).toContain('Second archived');
    expect(page.text).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}T/);
    expect((await hit(`${server.url}/archive/${slug}/${draft.id}`)).status).toBe(404);
  });

  it('a message page shows the content with no personal data, no tracking and no live links, under a strict CSP', async () => {
    const page = await hit(`${server.url}/archive/${slug}/${archivedId}`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('Our big story of the month.');
    expect(page.text).not.toMatch(/Ada|Lovelace|London|ada@example/);
    expect(page.text).toContain('<h1>Dear   (, )</h1>');
    const { hrefs, imgs, traps } = linksIn(page.text);
    expect(imgs).toEqual([]);
    expect(traps).toEqual([]);
    expect(hrefs).toContain('https://example.com/story?a=1&b=2');
    expect(hrefs.filter((h) => h !== 'https://example.com/story?a=1&b=2').every((h) => h === '#')).toBe(true);
    expect(page.text).not.toMatch(/\/(t\/[oct]|u|p|w)\//);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/\bsandbox\b/);
    expect(csp).not.toMatch(/script-src|allow-scripts|allow-same-origin/);
  });

  it('unknown slugs, ids of other accounts and unarchived ones are 404; malformed ids 400', async () => {
    expect((await hit(`${server.url}/archive/no-such-account`)).status).toBe(404);
    expect((await hit(`${server.url}/archive/no-such-account/feed.xml`)).status).toBe(404);
    expect((await hit(`${server.url}/archive/no-such-account/${archivedId}`)).status).toBe(404);
    expect((await hit(`${server.url}/archive/${slug}/${plainId}`)).status).toBe(404);
    // D2: a malformed id is 400, as in every path.
    expect((await hit(`${server.url}/archive/${slug}/99999999999999999999`)).status).toBe(404);
    for (const bad of ['abc', `0${archivedId}`, '1.5']) expect((await hit(`${server.url}/archive/${slug}/${bad}`)).status, bad).toBe(400);
    const other = await tenant(server);
    const otherSlug = (await server.db.selectFrom('accounts').select('slug').where('id', '=', other.accountId).executeTakeFirstOrThrow()).slug;
    expect((await hit(`${server.url}/archive/${otherSlug}/${archivedId}`)).status).toBe(404);
    const empty = await hit(`${server.url}/archive/${otherSlug}`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('Nothing here yet.');
  });

  it('the RSS 2.0 feed lists the archived campaigns with title, link, guid, pubDate and description', async () => {
    const res = await hit(`${server.url}/archive/${slug}/feed.xml`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/rss\+xml/);
    const feed = rss(res.text);
    expect(feed.rss['@_version']).toBe('2.0');
    const channel = feed.rss.channel;
    expect(channel.title).toBeTypeOf('string');
    expect(channel.link).toBe(`${PUBLIC_URL}/archive/${slug}`);
    expect(channel.description).toMatch(/Past e-mails/);
    const items = [channel.item].flat();
    expect(items.map((i: { title: string }) => i.title)).toEqual(['Second archived', 'Archived']);
    for (const item of items) {
      expect(item.link).toMatch(new RegExp(`^${PUBLIC_URL}/archive/${slug}/\\d+$`));
      expect(item.guid['#text']).toBe(item.link);
      expect(item.guid['@_isPermaLink']).toBe('true');
      expect(item.pubDate).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(new Date(item.pubDate).getTime()).not.toBeNaN();
      expect(item.description).toContain('Our big story of the month.');
      expect(item.description).not.toContain('Ada');
    }
  });

  it('pages the list 20 at a time and caps the feed at the latest 50', async () => {
    const other = await tenant(server);
    const otherSlug = (await server.db.selectFrom('accounts').select('slug').where('id', '=', other.accountId).executeTakeFirstOrThrow()).slug;
    await insertArchived(other.accountId, 52, 'Old issue');
    const first = await hit(`${server.url}/archive/${otherSlug}`);
    expect(first.text.match(/<li /g)).toHaveLength(20);
    expect(first.text).toContain('Old issue 51<');
    expect(first.text).toContain(`href="/archive/${otherSlug}?page=1"`);
    expect(first.text).not.toContain('rel="prev"');
    const third = await hit(`${server.url}/archive/${otherSlug}?page=2`);
    expect(third.text.match(/<li /g)).toHaveLength(12);
    expect(third.text).toContain('Old issue 0<');
    expect(third.text).not.toContain('rel="next"');
    expect((await hit(`${server.url}/archive/${otherSlug}?page=-1`)).status).toBe(400);
    const items = [rss((await hit(`${server.url}/archive/${otherSlug}/feed.xml`)).text).rss.channel.item].flat();
    expect(items).toHaveLength(50);
    expect(items[0].title).toBe('Old issue 51');
  });
});
