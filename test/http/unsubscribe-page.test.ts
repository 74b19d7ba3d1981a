/**
 * D17.1 through the public surface: the unsubscribe page a person sees (confirmation with the
 * address, the way back, one-click staying an empty 200), for mail received by a real SMTP
 * server. D17.5's one contact-status rule, whatever the change comes from, is proved in
 * test/http/contact-status.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, expectStandAlonePage, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, tenant, type Tenant } from '../sending/send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let tenantA: Tenant;
const at = addressMaker('unsubscribe-page');
const BOUNCING = new Set<string>();

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.respond((ctx) => (ctx.stage === 'rcpt' && BOUNCING.has(ctx.address) ? { code: 550, message: '5.1.1 no such user' } : undefined));
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  tenantA = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sends a campaign to new contacts of `t`; answers each address's unsubscribe URL and Message-ID. */
async function sendTo(emails: string[], extra: Record<string, unknown> = {}, t = tenantA) {
  const list = await t.list(`List ${Math.random()}`);
  for (const email of emails) await t.contact({ email, first_name: 'Ann', list_id: list });
  const campaign = await t.campaign({ subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [list], ...extra });
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const out = new Map<string, { unsubscribe: string; messageId: string }>();
  for (const email of emails) {
    const [mail] = sink.to(email);
    const href = linksIn(mail?.html ? String(mail.html) : '').hrefs.find((h) => h.startsWith(`${PUBLIC_URL}/u/`));
    const row = await server.db.selectFrom('campaign_recipients').select('message_id').where('campaign_id', '=', campaign.id).where('email', '=', email).executeTakeFirstOrThrow();
    out.set(email, { unsubscribe: href ? onServer(server, href) : '', messageId: row.message_id! });
  }
  return out;
}

const status = async (email: string) => (await tenantA.getContact(email)).status;

/**
 * Submits the page's one form as a browser would: to its `action` (resolved against the page's
 * URL), with its hidden fields, form-encoded.
 */
async function submit(pageUrl: string, html: string) {
  const forms = [...html.matchAll(/<form\b[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  expect(forms, html).toHaveLength(1);
  const [, action, inner] = forms[0];
  expect(forms[0][0]).toMatch(/method="post"/i);
  const fields = new URLSearchParams();
  for (const [, name, value] of inner.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.append(name, value);
  return form(new URL(action.replace(/&amp;/g, '&'), pageUrl).toString(), fields.toString());
}

const form = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const oneClick = (url: string) => form(url, 'List-Unsubscribe=One-Click');

describe('D17.1: the unsubscribe page', () => {
  it("D17.1: asks; the page's own form answers a confirmation page with the address and a form to subscribe again, which works", async () => {
    const email = at('page');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const asked = await hit(unsubscribe);
    expectStandAlonePage(asked);
    expect(asked.text).toContain(email);
    expect(asked.text).toContain('Acme News');
    expect(asked.text).toContain('name="action" value="unsubscribe"');
    expect(await status(email)).toBe('SUBSCRIBED');

    // The page's button, as a browser sends it (it posted RFC 8058's body and got a blank page).
    const confirmed = await submit(unsubscribe, asked.text);
    expectStandAlonePage(confirmed);
    expect(confirmed.text).toContain('You are unsubscribed');
    expect(confirmed.text).toContain(email);
    expect(confirmed.text).toContain('Acme News');
    expect(confirmed.text).toContain('name="action" value="resubscribe"');
    expect(await status(email)).toBe('UNSUBSCRIBED');

    // A second visit says so instead of asking again.
    const again = await hit(unsubscribe);
    expectStandAlonePage(again);
    expect(again.text).toContain('already unsubscribed');
    expect(again.text).toContain(email);
    expect(again.text).toContain('value="resubscribe"');
    expect(again.text).not.toContain('value="unsubscribe"');

    const back = await submit(unsubscribe, again.text);
    expectStandAlonePage(back);
    expect(back.text).toContain('You are subscribed again');
    expect(back.text).toContain(email);
    expect(await status(email)).toBe('SUBSCRIBED');

    // Its form leaves once more; a repeated POST is answered with the same confirmation.
    expect((await submit(unsubscribe, back.text)).text).toContain('You are unsubscribed');
    expect((await form(unsubscribe, 'action=unsubscribe')).text).toContain('You are unsubscribed');
    expect(await status(email)).toBe('UNSUBSCRIBED');
  });

  it("D17.1: RFC 8058's one-click POST stays an empty 200, and unsubscribes", async () => {
    const email = at('one-click');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const res = await oneClick(unsubscribe);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await status(email)).toBe('UNSUBSCRIBED');
    // A body that is not exactly RFC 8058's is the page's form: a page, not an empty answer.
    const other = await form(unsubscribe, 'List-Unsubscribe=One-Click&action=unsubscribe');
    expect(other.status).toBe(200);
    expect(other.text).toContain('You are unsubscribed');
  });

  it('D17.1: subscribing again never lifts BOUNCED: the page offers no form, and a resubscribe says the address stays off the list', async () => {
    const email = at('bounced-page');
    BOUNCING.add(email);
    const sent = await sendTo([email]);
    BOUNCING.delete(email);
    expect(await status(email)).toBe('BOUNCED');
    // A bounced message has no HTML to click; its token is the one the message carried.
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const token = server.core.signer.sign({ kind: 'unsubscribe', recipientId: row.id });
    const url = `${server.url}/u/${token}`;
    const page = await hit(url);
    expectStandAlonePage(page);
    expect(page.text).toContain('You will not get these e-mails');
    expect(page.text).not.toContain('<form');
    const res = await form(url, 'action=resubscribe');
    expectStandAlonePage(res);
    expect(res.text).toContain('cannot be subscribed again');
    expect(res.text).toContain(email);
    expect(await status(email)).toBe('BOUNCED');
    // The page's form (an unsubscribe) leaves BOUNCED too (D17.5), and says the address gets no mail.
    const unsubscribed = await form(url, 'action=unsubscribe');
    expect(unsubscribed.text).toContain('You will not get these e-mails');
    expect(await status(email)).toBe('BOUNCED');
    expect(sent.get(email)).toBeDefined();
  });

  it('D17.1: the page of a deleted contact says it gets no mail, and subscribing again brings nobody back', async () => {
    const email = at('deleted');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    expect((await tenantA.call('DELETE', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(200);
    const page = await hit(unsubscribe);
    expectStandAlonePage(page);
    expect(page.text).toContain('You will not get these e-mails');
    expect((await form(unsubscribe, 'action=resubscribe')).text).toContain('cannot be subscribed again');
    expect((await tenantA.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(404);
  });

  it('D17.1: escapes the sender name in the page, and names the account when the campaign has no from name', async () => {
    const email = at('escape');
    const { unsubscribe } = (await sendTo([email], { from_name: '<script>alert(1)</script>' })).get(email)!;
    const page = await hit(unsubscribe);
    expectStandAlonePage(page);
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    for (const done of [await form(unsubscribe, 'action=unsubscribe'), await form(unsubscribe, 'action=resubscribe')]) {
      expectStandAlonePage(done);
      expect(done.text).toContain('&#60;script&#62;');
    }

    // An account named with markup, and a campaign without a from name: the account is named, escaped.
    const hostile = `<img src=x onerror="alert('a')"> & Co`;
    const other = await tenant({
      ...server,
      createAccountWithKey: async () => {
        const account = await server.createAccount({ name: hostile });
        const key = await server.createKey(account.id, ['*']);
        return { accountId: account.id, keyId: key.id, key: key.key };
      },
    });
    const named = at('account-named');
    const sent = (await sendTo([named], { from_name: null }, other)).get(named)!;
    const accountPage = await hit(sent.unsubscribe);
    expectStandAlonePage(accountPage);
    expect(accountPage.text).toContain('&#60;img src=x onerror=&#34;alert(&#39;a&#39;)&#34;&#62; &#38; Co');
  });

  it("D17.1: a test message's page says it was a test; its form and one-click answer as the real ones do and change nothing", async () => {
    const email = at('test-send');
    const list = await tenantA.list('Test sends');
    await tenantA.contact({ email, first_name: 'Ann', list_id: list });
    const campaign = await tenantA.campaign({ subject: 'Hello', from_email: 'news@acme.test', html: '<p>Hi</p>', list_ids: [list] });
    expect((await tenantA.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [email] })).status).toBe(200);
    let mail;
    for (let i = 0; i < 200 && !(mail = sink.to(email)[0]); i++) await new Promise((r) => setTimeout(r, 25));
    const unsubscribe = onServer(server, linksIn(String(mail!.html)).hrefs.find((h) => h.startsWith(`${PUBLIC_URL}/u/`))!);
    for (const res of [await hit(unsubscribe), await form(unsubscribe, 'action=unsubscribe'), await form(unsubscribe, 'action=resubscribe')]) {
      expectStandAlonePage(res);
      expect(res.text).toContain('This was a test message');
    }
    const click = await oneClick(unsubscribe);
    expect(click.status).toBe(200);
    expect(click.text).toBe('');
    expect(await status(email)).toBe('SUBSCRIBED');
  });

  it('D17.1: a tampered token is 404 for the page, its form and one-click', async () => {
    const bad = `${server.url}/u/not-a-token`;
    expect((await hit(bad)).status).toBe(404);
    expect((await form(bad, 'action=unsubscribe')).status).toBe(404);
    expect((await form(bad, 'action=resubscribe')).status).toBe(404);
    expect((await oneClick(bad)).status).toBe(404);
  });
});
