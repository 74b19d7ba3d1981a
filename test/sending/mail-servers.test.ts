import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, sendable, tenant, type Tenant } from './send-helpers.ts';

// D23, several mail servers: SMTP_URL holds two sinks, SMTP_ROUTES sends one From domain through a
// third. Mail is spread over the two, every recipient gets exactly one message even when one of
// them goes away mid-campaign, and the routed server takes its domain's mail and nothing else.
// Settings that do not parse stop the process from starting, with one line saying why.

let first: SmtpSink;
let second: SmtpSink;
let routed: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('servers');

beforeAll(async () => {
  [first, second, routed] = await Promise.all([startSmtpSink(), startSmtpSink(), startSmtpSink()]);
  server = await startTestServer({
    ...FAST_SENDING,
    SMTP_URL: `${first.url} ${second.url}`,
    SMTP_ROUTES: `routed.test=${routed.url}`,
    // A server that fails stays out for the rest of the file.
    SMTP_SERVER_COOLDOWN_MS: '600000',
    // 100 a second in all (50 per server): a campaign of 200 takes a couple of seconds, so a server can go away mid-send.
    SEND_RATE: '100',
  });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await Promise.all([first, second, routed].map((sink) => sink?.close()));
});

/** A list of `n` new contacts, made through the API. */
async function audience(label: string, n: number): Promise<{ list: number; emails: string[] }> {
  const list = await t.list(label);
  const emails = Array.from({ length: n }, (_, i) => at(`${label}${i}`));
  for (let i = 0; i < n; i += 20) await Promise.all(emails.slice(i, i + 20).map((email) => t.contact({ email, first_name: 'R', list_id: list })));
  return { list, emails };
}

/** Each recipient's number of messages of campaign `id` over `sinks`. */
function copiesByRecipient(sinks: SmtpSink[], id: number): Map<string, number> {
  const copies = new Map<string, number>();
  for (const m of sinks.flatMap((s) => messagesOfCampaign(s.messages, id))) copies.set(recipientOf(m), (copies.get(recipientOf(m)) ?? 0) + 1);
  return copies;
}

const ofCampaign = (sink: SmtpSink, id: number): ReceivedMessage[] => messagesOfCampaign(sink.messages, id);

describe('D23: SMTP_URL with two servers, SMTP_ROUTES with a third', () => {
  it('spreads a campaign over both servers, one message per recipient; the routed server gets none of it', async () => {
    const { list, emails } = await audience('spread', 40);
    const { id } = await t.campaign(sendable([list]));
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');

    expect(Object.fromEntries(copiesByRecipient([first, second, routed], id))).toEqual(Object.fromEntries(emails.map((e) => [e, 1])));
    // Least-busy with equal servers takes them in turn: both carry a real share.
    expect(ofCampaign(first, id).length).toBeGreaterThanOrEqual(10);
    expect(ofCampaign(second, id).length).toBeGreaterThanOrEqual(10);
    expect(ofCampaign(routed, id)).toEqual([]);
  });

  it('sends mail whose From domain is routed through its server only', async () => {
    const { list, emails } = await audience('route', 12);
    const { id } = await t.campaign(sendable([list], { from_email: 'news@routed.test' }));
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');

    expect(Object.fromEntries(copiesByRecipient([routed], id))).toEqual(Object.fromEntries(emails.map((e) => [e, 1])));
    expect(ofCampaign(routed, id).every((m) => m.envelope.from === 'news@routed.test')).toBe(true);
    expect([...ofCampaign(first, id), ...ofCampaign(second, id)]).toEqual([]);
    // and nothing else ever reached the routed server
    expect(routed.messages.every((m) => m.envelope.from === 'news@routed.test')).toBe(true);
  });

  it('a 5xx to RCPT is the recipient\'s answer: bounced, never tried on the other server', async () => {
    const { list, emails } = await audience('rcpt', 6);
    const refused = emails[0];
    const refuse = ({ stage, address }: { stage: string; address: string }) => (stage === 'rcpt' && address === refused ? { code: 550, message: 'No such user' } : undefined);
    first.respond(refuse);
    second.respond(refuse);
    try {
      const { id } = await t.campaign(sendable([list]));
      await t.send(id);
      expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
      const asked = [first, second].flatMap((sink) => sink.events.filter((e) => e.stage === 'rcpt' && e.address === refused));
      expect(asked).toEqual([{ stage: 'rcpt', address: refused, code: 550 }]);
      expect(Object.fromEntries(copiesByRecipient([first, second], id))).toEqual(Object.fromEntries(emails.slice(1).map((e) => [e, 1])));
      expect((await t.getContact(refused)).status).toBe('BOUNCED');
      expect(await t.stats(id)).toMatchObject({ sent: 6, bounced: 1 });
    } finally {
      first.respond(undefined);
      second.respond(undefined);
    }
  });

  it('one server closed mid-campaign: every recipient still gets exactly one message, at the other, and the campaign is SENT', async () => {
    const { list, emails } = await audience('failover', 200);
    const { id } = await t.campaign(sendable([list]));
    await t.send(id);
    // Wait for this campaign's first messages at the second server, then take it away.
    for (let waited = 0; ofCampaign(second, id).length < 5; waited += 10) {
      if (waited > 20_000) throw new Error('the second server never got this campaign');
      await new Promise((r) => setTimeout(r, 10));
    }
    await second.close();
    const atClose = ofCampaign(second, id).length;
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'], 30_000)).status).toBe('SENT');

    expect(Object.fromEntries(copiesByRecipient([first, second], id))).toEqual(Object.fromEntries(emails.map((e) => [e, 1])));
    // It went away mid-send: it got nothing after it closed, far less than its half, and the first server took the rest.
    expect(ofCampaign(second, id).length).toBe(atClose);
    expect(atClose).toBeLessThan(100);
    expect(ofCampaign(first, id).length).toBe(200 - atClose);
    const stats = await t.stats(id);
    expect(stats).toMatchObject({ sent: 200, delivered: 200, bounced: 0 });
  });
});

describe.concurrent('D23: SMTP_URL or SMTP_ROUTES that do not parse: the process refuses to start, with one line', () => {
  const env = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'sendwell-servers-')), SECRET: 'test-secret', PORT: '0' });
  it.each([
    ['a URL that is not smtp(s)://', { SMTP_URL: 'smtp://a.test:25 http://b.test' }, /^sendwell: SMTP_URL: "http:\/\/b\.test" must start with smtp:\/\/ or smtps:\/\/\n$/],
    ['a URL that does not parse (its password not shown)', { SMTP_URL: 'smtp://user:s3cret@[bad' }, /^sendwell: SMTP_URL: "smtp:\/\/user:\*\*\*@\[bad" is not a URL/],
    ['the same server twice', { SMTP_URL: 'smtp://a.test:25 smtp://a.test:25' }, /^sendwell: SMTP_URL names smtp:\/\/a\.test:25 twice\n$/],
    ['a route without a domain', { SMTP_URL: 'smtp://a.test', SMTP_ROUTES: '=smtp://r.test' }, /^sendwell: SMTP_ROUTES must be domain=smtp:\/\/host,\.\.\. ; "=smtp:\/\/r\.test" has no domain\n$/],
    ['a route without a URL', { SMTP_URL: 'smtp://a.test', SMTP_ROUTES: 'x.test' }, /^sendwell: SMTP_ROUTES must be .* "x\.test" has no URL\n$/],
    ['a domain that is not one', { SMTP_URL: 'smtp://a.test', SMTP_ROUTES: 'exa mple.com=smtp://r.test' }, /^sendwell: SMTP_ROUTES: "exa mple\.com" is not a domain name\n$/],
    ['a domain routed twice', { SMTP_URL: 'smtp://a.test', SMTP_ROUTES: 'x.test=smtp://r.test, X.test=smtp://s.test' }, /^sendwell: SMTP_ROUTES names x\.test twice\n$/],
    ['a routed URL of another scheme', { SMTP_URL: 'smtp://a.test', SMTP_ROUTES: 'x.test=ftp://r.test' }, /^sendwell: SMTP_ROUTES: "ftp:\/\/r\.test" must start with smtp:\/\/ or smtps:\/\/\n$/],
    ['a routed server also in SMTP_URL', { SMTP_URL: 'smtp://a.test smtp://r.test', SMTP_ROUTES: 'x.test=smtp://r.test' }, /^sendwell: SMTP_ROUTES: smtp:\/\/r\.test is also in SMTP_URL, but a routed server takes no other mail\n$/],
    ['routes without SMTP_URL', { SMTP_ROUTES: 'x.test=smtp://r.test' }, /^sendwell: SMTP_ROUTES needs SMTP_URL: mail of other From domains would have no server\n$/],
  ])('%s', async (_case, settings, reason) => {
    const res = await sendwell(['serve'], { ...env(), ...settings });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(reason);
    expect(res.stderr).not.toContain('s3cret');
    expect(res.stdout).toBe('');
  }, CLI_TIMEOUT);
});
