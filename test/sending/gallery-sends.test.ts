/**
 * D22 end to end: "the gallery sends". Each built-in starter becomes a campaign in its own format
 * (MJML), and the built-in layouts wrap content of the kind each is for; each campaign is sent to
 * a real SMTP server, and every mail received (parsed by mailparser) has its CSS inlined, its
 * merge fields rendered for the recipient (a name, and the default where there is none), and no
 * Liquid or MJML left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, linksIn, messagesOfCampaign, PUBLIC_URL, rawHeader, recipientOf, sendable, tenant, type Tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let listId: number;
const at = addressMaker('gallery');
const ada = at('ada');
const nameless = at('nameless');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  listId = await t.list('Everyone');
  await t.contact({ email: ada, first_name: 'Ada', list_id: listId });
  await t.contact({ email: nameless, list_id: listId });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sends the campaign and answers its two mails by recipient, once both are parsed. */
async function sendAndReceive(body: Record<string, unknown>): Promise<Map<string, ReceivedMessage>> {
  const campaign = await t.campaign(sendable([listId], { text: null, ...body }));
  await t.send(campaign.id);
  const done = await t.waitForStatus(campaign.id, ['SENT', 'FAILED']);
  expect(done.status, done.error ?? '').toBe('SENT');
  await expect.poll(() => messagesOfCampaign(sink.messages, campaign.id).length).toBe(2);
  return new Map(messagesOfCampaign(sink.messages, campaign.id).map((m) => [recipientOf(m), m]));
}

/**
 * What every mail of the gallery must be: inlined, rendered, its unsubscribe and preference links
 * live. (`{{ webview_url }}` renders empty until the web view, another part of D22, is merged:
 * then `href=""` must be gone too; see the last test.)
 */
function expectRendered(m: ReceivedMessage) {
  const html = String(m.html);
  expect(html).toMatch(/<td[^>]*style="[^"]+"/);
  expect(html).not.toMatch(/\{\{|\{%|<mj-/);
  expect(html).toMatch(new RegExp(`href="${PUBLIC_URL}/[^"]+"[^>]*>[^<]*Unsubscribe`));
  expect(html).toContain(PUBLIC_URL);
  // D26.4: one link to the preference centre (every built-in places its own): no second one appended.
  expect(html.match(new RegExp(`href="${PUBLIC_URL}/p/`, 'g')) ?? []).toHaveLength(1);
  expect(html).not.toContain('Manage your subscriptions</a>');
  // D26.4: its pictures (and the open pixel) load from PUBLIC_URL only
  for (const src of linksIn(html).imgs) expect(src.startsWith(`${PUBLIC_URL}/`), src).toBe(true);
  return html;
}

describe('D22: the gallery sends', () => {
  it('each built-in starter, as an MJML campaign, reaches the inbox inlined and rendered for each recipient', { timeout: 120_000 }, async () => {
    const gallery = await t.call('GET', '/api/v1/templates?kind=starter&size=100');
    const starters = gallery.body.data.templates.filter((s: any) => s.builtin);
    expect(starters.map((s: any) => s.name)).toEqual(expect.arrayContaining(['Newsletter', 'Announcement', 'Product showcase', 'Welcome', 'Event invitation', 'Plain letter']));
    for (const starter of starters) {
      const mail = await sendAndReceive({ name: starter.name, format: starter.format, html: starter.body });
      const toAda = expectRendered(mail.get(ada)!);
      expect(toAda, starter.name).toContain('Ada');
      const toNameless = expectRendered(mail.get(nameless)!);
      // the default filter's words stand in for the missing name
      expect(toNameless, starter.name).toMatch(/Hi there|Hello|friend/);
      expect(rawHeader(mail.get(ada)!.raw, 'List-Unsubscribe'), starter.name).toHaveLength(1);
    }
  });

  it('the built-in layouts wrap content of their kind: Markdown in the text-block layout, MJML sections in the branded one', { timeout: 120_000 }, async () => {
    const layouts = (await t.call('GET', '/api/v1/templates?kind=layout&size=100')).body.data.templates.filter((l: any) => l.builtin);
    const simple = layouts.find((l: any) => l.name.startsWith('Simple layout'));
    const branded = layouts.find((l: any) => l.name.startsWith('Branded layout'));

    const inText = await sendAndReceive({ name: 'In the simple layout', format: 'markdown', template_id: simple.id, html: '## News for {{ first_name | default: "you" }}\n\nRead [the post](https://example.com/post).' });
    const markdownHtml = expectRendered(inText.get(ada)!);
    expect(markdownHtml).toMatch(/<h2[^>]*>News for Ada<\/h2>/);
    expect(expectRendered(inText.get(nameless)!)).toMatch(/News for you/);

    const sections = '<mj-section><mj-column><mj-text font-size="20px">Hello {{ first_name | default: "reader" }}</mj-text><mj-button href="https://example.com/go">Go</mj-button></mj-column></mj-section>';
    const inBody = await sendAndReceive({ name: 'In the branded layout', format: 'mjml', template_id: branded.id, html: sections });
    const brandedHtml = expectRendered(inBody.get(ada)!);
    expect(brandedHtml.indexOf('Your brand')).toBeLessThan(brandedHtml.indexOf('Hello Ada'));
    expect(expectRendered(inBody.get(nameless)!)).toContain('Hello reader');
  });

  it('every starter\'s "View in browser" link is live: it opens that recipient\'s message at /w/ (D22)', { timeout: 60_000 }, async () => {
    const newsletter = (await t.call('GET', '/api/v1/templates?kind=starter&size=100')).body.data.templates.find((s: any) => s.name === 'Newsletter');
    const mail = await sendAndReceive({ name: 'Web view', format: 'mjml', html: newsletter.body });
    const html = String(mail.get(ada)!.html);
    expect(html).not.toContain('href=""');
    const webview = /href="([^"]*\/w\/[^"]+)"/.exec(html)?.[1];
    expect(webview, 'a /w/ link in the newsletter').toBeTruthy();
    const page = await fetch(webview!.replace(/^https?:\/\/[^/]+/, server.url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Ada');
  });
});
