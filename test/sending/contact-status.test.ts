/**
 * D17.1 through the public surface: the unsubscribe page a person sees (confirmation with the
 * address, the way back, one-click staying an empty 200). D17.5's one contact-status rule,
 * whatever the change comes from, is proved in test/http/contact-status.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, tenant, type Tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('status');
const BOUNCING = new Set<string>();

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.respond((ctx) => (ctx.stage === 'rcpt' && BOUNCING.has(ctx.address) ? { code: 550, message: '5.1.1 no such user' } : undefined));
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.deps.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** Sends a campaign to new contacts; answers each address's unsubscribe URL and Message-ID. */
async function sendTo(emails: string[], extra: Record<string, unknown> = {}) {
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

const status = async (email: string) => (await t.getContact(email)).status;
const form = (url: string, body: string) => hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
const oneClick = (url: string) => form(url, 'List-Unsubscribe=One-Click');

describe('D17.1: the unsubscribe page', () => {
  it('asks, and its form answers a confirmation page with the address and a way to subscribe again', async () => {
    const email = at('page');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const asked = await hit(unsubscribe);
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-type')).toMatch(/^text\/html/);
    expect(asked.text).toContain(email);
    expect(asked.text).toContain('Acme News');
    expect(asked.text).toContain('name="action" value="unsubscribe"');
    expect(await status(email)).toBe('SUBSCRIBED');

    const confirmed = await form(unsubscribe, 'action=unsubscribe');
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(confirmed.text).toContain('You are unsubscribed');
    expect(confirmed.text).toContain(email);
    expect(confirmed.text).toContain('name="action" value="resubscribe"');
    expect(await status(email)).toBe('UNSUBSCRIBED');

    // A second visit says so instead of asking again.
    const again = await hit(unsubscribe);
    expect(again.text).toContain('already unsubscribed');
    expect(again.text).toContain('value="resubscribe"');

    const back = await form(unsubscribe, 'action=resubscribe');
    expect(back.status).toBe(200);
    expect(back.text).toContain('You are subscribed again');
    expect(await status(email)).toBe('SUBSCRIBED');
  });

  it("RFC 8058's one-click POST stays an empty 200, and unsubscribes", async () => {
    const email = at('one-click');
    const { unsubscribe } = (await sendTo([email])).get(email)!;
    const res = await oneClick(unsubscribe);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await status(email)).toBe('UNSUBSCRIBED');
  });

  it('resubscribing never lifts BOUNCED: the page says the address stays off the list', async () => {
    const email = at('bounced-page');
    BOUNCING.add(email);
    const sent = await sendTo([email]);
    BOUNCING.delete(email);
    expect(await status(email)).toBe('BOUNCED');
    // A bounced message has no HTML to click; its token is the one the message carried.
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const token = server.deps.signer.sign({ kind: 'unsubscribe', recipientId: row.id });
    const url = `${server.url}/u/${token}`;
    const res = await form(url, 'action=resubscribe');
    expect(res.status).toBe(200);
    expect(res.text).toContain('cannot be subscribed again');
    expect(await status(email)).toBe('BOUNCED');
    expect(sent.get(email)).toBeDefined();
  });

  it('escapes the sender name and the address in the page', async () => {
    const email = at('escape');
    const { unsubscribe } = (await sendTo([email], { from_name: '<script>alert(1)</script>' })).get(email)!;
    const page = await hit(unsubscribe);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('a tampered token is 404 for the page, its form and one-click', async () => {
    const bad = `${server.url}/u/not-a-token`;
    expect((await hit(bad)).status).toBe(404);
    expect((await form(bad, 'action=unsubscribe')).status).toBe(404);
    expect((await form(bad, 'action=resubscribe')).status).toBe(404);
    expect((await oneClick(bad)).status).toBe(404);
  });
});
