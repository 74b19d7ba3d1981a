/**
 * D19's recipient ledger: who got a campaign and who did not, and why (the mail server's own
 * reply), its per-link click report, and retry-failed putting failed recipients back in line.
 * Mail goes to a real SMTP server that refuses or defers chosen addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, linksIn, onServer, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let campaignId: number;

const HTML = '<p>Hi</p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a> <a href="https://example.com/c">C</a>';
const refusing = ({ stage, address }: { stage: string; address: string }) => {
  if (stage !== 'rcpt') return undefined;
  if (address === 'bounce@ledger.test') return { code: 550, message: '5.1.1 mailbox unknown' };
  if (address === 'busy@ledger.test' || address === 'leaver@ledger.test') return { code: 451, message: '4.2.1 try again later' };
  return undefined;
};

beforeAll(async () => {
  sink = await startSmtpSink({ respond: refusing });
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_MAX_ATTEMPTS: '2' });
  server.sender.dispatcher.start();
  t = await tenant(server);
  const list = await t.list('Ledger');
  for (const name of ['clicker', 'opener', 'bounce', 'busy', 'leaver']) await t.contact({ email: `${name}@ledger.test`, list_id: list });
  const campaign = await t.campaign(sendable([list], { html: HTML, text: null }));
  campaignId = campaign.id;
  await t.send(campaignId);
  await t.waitForStatus(campaignId, 'SENT');

  // clicker clicks A twice and B once; opener only opens.
  const mail = (to: string) => sink.to(to)[0];
  const { hrefs } = linksIn(mail('clicker@ledger.test').html as string);
  const clicks = hrefs.filter((h) => h.includes('/t/c/'));
  for (const i of [0, 0, 1]) expect((await fetch(onServer(server, clicks[i]), { redirect: 'manual' })).status).toBe(302);
  const pixel = linksIn(mail('opener@ledger.test').html as string).imgs.find((u) => u.includes('/t/o/'))!;
  expect((await fetch(onServer(server, pixel))).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const ledger = async (query = '') => {
  const res = await t.call('GET', `/api/v1/campaigns/${campaignId}/recipients${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const emails = (page: any) => page.recipients.map((r: any) => r.email);

describe('GET /api/v1/campaigns/{id}/recipients (D19)', () => {
  it("shows each recipient's state, attempts, the server's last reply and its engagement", async () => {
    const page = await ledger();
    expect(page).toMatchObject({ page: 0, size: 20, totalElements: 5, totalPages: 1 });
    const by = Object.fromEntries(page.recipients.map((r: any) => [r.email, r]));
    expect(Object.keys(by[`clicker@ledger.test`]).sort()).toEqual(['attempts', 'clicked_at', 'complained_at', 'contact_id', 'email', 'last_error', 'opened_at', 'sent_at', 'status', 'unsubscribed_at']);
    expect(by['clicker@ledger.test']).toMatchObject({ status: 'SENT', attempts: 1, last_error: null, sent_at: expect.any(String), opened_at: expect.any(String), clicked_at: expect.any(String) });
    expect(by['opener@ledger.test']).toMatchObject({ status: 'SENT', opened_at: expect.any(String), clicked_at: null });
    expect(by['bounce@ledger.test']).toMatchObject({ status: 'BOUNCED', attempts: 1, last_error: expect.stringContaining('550') });
    expect(by['busy@ledger.test']).toMatchObject({ status: 'FAILED', attempts: 2, sent_at: null, last_error: expect.stringContaining('451') });
    expect(by['busy@ledger.test'].contact_id).toEqual(expect.any(Number));
  });

  it('filters by status, opened and clicked, and pages by recipient id', async () => {
    expect(emails(await ledger('?status=FAILED'))).toEqual(['busy@ledger.test', 'leaver@ledger.test']);
    expect(emails(await ledger('?status=BOUNCED'))).toEqual(['bounce@ledger.test']);
    expect(emails(await ledger('?status=SENT'))).toEqual(['clicker@ledger.test', 'opener@ledger.test']);
    expect((await ledger('?status=PENDING')).totalElements).toBe(0);
    expect(emails(await ledger('?opened=true'))).toEqual(['clicker@ledger.test', 'opener@ledger.test']);
    expect(emails(await ledger('?status=SENT&clicked=false'))).toEqual(['opener@ledger.test']);
    expect(emails(await ledger('?clicked=true&opened=true'))).toEqual(['clicker@ledger.test']);
    const second = await ledger('?size=2&page=1');
    expect(second).toMatchObject({ totalElements: 5, totalPages: 3 });
    expect(emails(second)).toEqual(['bounce@ledger.test', 'busy@ledger.test']);
  });

  it('refuses an unknown status or a non-boolean flag (400), and a missing campaign (404)', async () => {
    for (const q of ['?status=CLAIMED', '?opened=maybe', '?clicked=2']) {
      const res = await t.call('GET', `/api/v1/campaigns/${campaignId}/recipients${q}`);
      expect(res.status, q).toBe(400);
    }
    const missing = await t.call('GET', '/api/v1/campaigns/987654/recipients');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
  });
});

describe('GET /api/v1/campaigns/{id}/links (D19)', () => {
  it('gives each link, in order, its clicks and unique clicks', async () => {
    const res = await t.call('GET', `/api/v1/campaigns/${campaignId}/links`);
    expect(res.body.data).toEqual({
      links: [
        { url: 'https://example.com/a', clicks: 2, unique_clicks: 1 },
        { url: 'https://example.com/b', clicks: 1, unique_clicks: 1 },
        { url: 'https://example.com/c', clicks: 0, unique_clicks: 0 },
      ],
    });
  });

  it("a draft's links come from its content, at zero", async () => {
    const draft = await t.campaign({ name: 'draft', html: '<a href="https://example.com/z">Z</a>' });
    expect((await t.call('GET', `/api/v1/campaigns/${draft.id}/links`)).body.data).toEqual({ links: [{ url: 'https://example.com/z', clicks: 0, unique_clicks: 0 }] });
  });
});

describe('POST /api/v1/campaigns/{id}/retry-failed (D19)', () => {
  it('puts FAILED recipients still SUBSCRIBED back in line; the campaign sends them and is SENT again', async () => {
    // leaver unsubscribes meanwhile: it is not mailed again.
    await t.call('PUT', '/api/v1/contacts/leaver@ledger.test', { status: 'UNSUBSCRIBED' });
    sink.respond(undefined);
    const res = await t.call('POST', `/api/v1/campaigns/${campaignId}/retry-failed`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ message: 'Failed recipients queued again', data: { id: campaignId, status: 'SENDING' } });
    await t.waitForStatus(campaignId, 'SENT');
    const by = Object.fromEntries((await ledger()).recipients.map((r: any) => [r.email, r]));
    expect(by['busy@ledger.test']).toMatchObject({ status: 'SENT', attempts: 1, last_error: null, sent_at: expect.any(String) });
    expect(by['leaver@ledger.test']).toMatchObject({ status: 'FAILED' });
    expect(sink.to('busy@ledger.test')).toHaveLength(1);
    expect(sink.to('leaver@ledger.test')).toHaveLength(0);
    expect((await t.stats(campaignId)).sent).toBe(4);
  });

  it('409 INVALID_STATE when nothing is left to retry or the campaign is not SENT or FAILED; 404 when missing', async () => {
    const again = await t.call('POST', `/api/v1/campaigns/${campaignId}/retry-failed`);
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({ code: 'INVALID_STATE', message: 'the campaign has no FAILED recipients whose contact is still SUBSCRIBED' });
    const draft = await t.campaign({ name: 'draft' });
    const notSent = await t.call('POST', `/api/v1/campaigns/${draft.id}/retry-failed`);
    expect(notSent.status).toBe(409);
    expect(notSent.body.error.code).toBe('INVALID_STATE');
    const missing = await t.call('POST', '/api/v1/campaigns/987654/retry-failed');
    expect(missing.status).toBe(404);
  });
});
