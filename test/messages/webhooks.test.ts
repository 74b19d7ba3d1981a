/**
 * Issue 31, D25.5: transactional messages share the campaigns' engagement (human and machine, D23),
 * and every message.* event reaches a real HTTP listener carrying `message_id` (the API's id),
 * `to`, `tags` and `metadata`. Mail goes to a real SMTP sink (a 5xx and a 4xx at RCPT for some
 * addresses); pixels and links are fetched over HTTP. Bounces and complaints after sending:
 * feedback.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedMessage } from '../sending/smtp-sink.ts';
import { addressMaker, hit, linksIn, onServer, tamperings } from '../sending/send-helpers.ts';
import { eventually } from '../webhooks-out/receiver.ts';
import { D1, signer, startMessageHooks, type MessageHooks } from './message-hooks.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const to = addressMaker('txhooks');
let h: MessageHooks;

beforeAll(async () => {
  h = await startMessageHooks({ SEND_MAX_ATTEMPTS: '2', TRACKING_RATE_LIMIT: '5' }, ({ stage, address }) => {
    if (stage !== 'rcpt') return undefined;
    if (address.startsWith('rejected.')) return { code: 550, message: '5.1.1 no such user' };
    if (address.startsWith('busy.')) return { code: 451, message: '4.3.0 try again later' };
    return undefined;
  });
});
afterAll(() => h?.close());

const tracked = (address: string) =>
  h.send(address, { html: '<p>Thanks! <a href="https://shop.example/orders/42">Your order</a> <a href="https://shop.example/help">Help</a></p>', track_opens: true, track_clicks: true });

/** The pixel, the first link, and the trap link of a tracked message's mail, on the test server. */
function trackingLinks(mail: ReceivedMessage) {
  const { hrefs, imgs, traps } = linksIn(mail.html as string);
  return { pixel: onServer(h.server, imgs.find((u) => u.includes('/t/o/'))!), click: onServer(h.server, hrefs.find((u) => u.includes('/t/c/'))!), trap: onServer(h.server, traps[0]) };
}

/** Moves a message's sending a minute back, so a click now is no scanner's click on arrival (D23's 2 seconds). */
const sentAMinuteAgo = (id: number) =>
  h.server.db
    .updateTable('messages')
    .set({ sent_at: new Date(Date.now() - 60_000).toISOString() })
    .where('id', '=', id)
    .execute();

const from = (ip: string, agent = CHROME) => ({ headers: { 'x-forwarded-for': ip, 'user-agent': agent } });

describe('message.* webhooks at sending (D25.5)', () => {
  it('message.sent carries message_id, to, tags, metadata and sent_at', async () => {
    const address = to('sent');
    const id = await h.send(address, { text: 'Thanks' });
    const event = await h.delivered(id, 'message.sent');
    h.expectCarries(event, id, address);
    expect(event.data.sent_at).toEqual(D1);
    expect((await h.waitForStatus(id, 'SENT')).sent_at).toBe(event.data.sent_at);
  });

  it('message.bounced for a 5xx at RCPT: BOUNCED, the address suppressed', async () => {
    const address = to('rejected');
    const id = await h.send(address, { text: 'Thanks' });
    const event = await h.delivered(id, 'message.bounced');
    h.expectCarries(event, id, address);
    expect(event.data).toMatchObject({ hard: true, reason: expect.stringContaining('550') });
    expect((await h.waitForStatus(id, 'BOUNCED')).error).toContain('550');
    expect(await h.suppression(address)).toMatchObject({ source: 'BOUNCE' });
    expect(await h.queued(id)).toEqual(['message.bounced']);
  });

  it('message.failed when 4xx answers last past SEND_MAX_ATTEMPTS: FAILED with the reason', async () => {
    const address = to('busy');
    const id = await h.send(address, { text: 'Thanks' });
    const event = await h.delivered(id, 'message.failed');
    h.expectCarries(event, id, address);
    expect(event.data.error).toContain('451');
    expect((await h.waitForStatus(id, 'FAILED')).error).toContain('451');
    expect(await h.queued(id)).toEqual(['message.failed']);
  });

  it('message.suppressed for a suppressed address, with the reason', async () => {
    const address = to('suppressed');
    expect((await h.t.call('POST', '/api/v1/suppressions', { value: address, reason: 'asked by phone' })).status).toBe(200);
    const id = await h.send(address, { text: 'Thanks' });
    const event = await h.delivered(id, 'message.suppressed');
    h.expectCarries(event, id, address);
    expect(event.data.error).toMatch(/asked by phone/);
  });
});

describe('opens and clicks of a tracked message (issue 31: as campaigns count them, D23)', () => {
  it('a person opens: opened_at once, message.opened (unique); a repeat within 10 minutes gives no event, one after it does (issue 14 L2)', async () => {
    const address = to('opener');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await h.mailTo(address));
    const first = await hit(pixel, from('203.0.113.20'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/gif');
    const event = await h.delivered(id, 'message.opened');
    h.expectCarries(event, id, address);
    expect(event.data.unique).toBe(true);
    const opened = (await h.message(id)).opened_at;
    expect(opened).toEqual(D1);
    expect((await hit(pixel, from('203.0.113.20'))).status).toBe(200);
    expect(await h.queued(id)).toEqual(['message.opened', 'message.sent']);
    expect((await h.message(id)).opened_at).toBe(opened);
    const r = await h.row(id);
    expect(r.human_opened_at).not.toBeNull();
    expect(r.machine_opened_at).toBeNull();
    // The last event 11 minutes ago: the next open is an event again, not unique.
    await h.server.db.updateTable('messages').set({ open_event_at: new Date(Date.now() - 11 * 60_000).toISOString() }).where('id', '=', id).execute();
    expect((await hit(pixel, from('203.0.113.20'))).status).toBe(200);
    expect(await h.queued(id)).toEqual(['message.opened', 'message.opened', 'message.sent']);
    await eventually(() => h.received(id).filter((b) => b.type === 'message.opened').length === 2, 'the second message.opened');
    expect(h.received(id).filter((b) => b.type === 'message.opened').map((b) => b.data.unique)).toEqual([true, false]);
  });

  it("Apple's privacy proxy opens: a machine open, counted and told as campaigns do (message.opened, opened_at)", async () => {
    const address = to('proxied');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await h.mailTo(address));
    expect((await hit(pixel, from('17.58.101.4', 'Mozilla/5.0'))).status).toBe(200);
    h.expectCarries(await h.delivered(id, 'message.opened'), id, address);
    const r = await h.row(id);
    expect(r.machine_opened_at).not.toBeNull();
    expect(r.human_opened_at).toBeNull();
    expect(r.opened_at).not.toBeNull();
  });

  it("a person clicks: 302 to the message's own link, clicked_at, message.clicked with the url, and the open it implies", async () => {
    const address = to('clicker');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    await sentAMinuteAgo(id);
    const { click } = trackingLinks(await h.mailTo(address));
    const res = await hit(click, from('203.0.113.21'));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/orders/42');
    const event = await h.delivered(id, 'message.clicked');
    h.expectCarries(event, id, address);
    expect(event.data).toMatchObject({ url: 'https://shop.example/orders/42', unique: true });
    expect((await h.delivered(id, 'message.opened')).data.unique).toBe(true);
    const m = (await h.message(id));
    expect(m.clicked_at).toEqual(D1);
    expect(m.opened_at).toEqual(D1);
    const r = await h.row(id);
    expect([r.human_clicked_at !== null, r.machine_clicked_at !== null]).toEqual([true, false]);
    // Every click is an event, as a campaign's is; the second is not unique.
    expect((await hit(click, from('203.0.113.21'))).status).toBe(302);
    expect(await h.queued(id)).toEqual(['message.clicked', 'message.clicked', 'message.opened', 'message.sent']);
  });

  it('a scanner checks the link with HEAD: the same 302, a machine click', async () => {
    const address = to('scanned');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    await sentAMinuteAgo(id);
    const { click } = trackingLinks(await h.mailTo(address));
    const res = await hit(click, { method: 'HEAD', ...from('198.51.100.30') });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/orders/42');
    const r = await h.row(id);
    expect([r.human_clicked_at !== null, r.machine_clicked_at !== null]).toEqual([false, true]);
    h.expectCarries(await h.delivered(id, 'message.clicked'), id, address);
  });

  it('the trap link: a machine open and click, an empty page, no event and no opened_at or clicked_at', async () => {
    const address = to('trapped');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    const { trap } = trackingLinks(await h.mailTo(address));
    const res = await hit(trap, from('198.51.100.31'));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const r = await h.row(id);
    expect({ opened: r.opened_at, clicked: r.clicked_at }).toEqual({ opened: null, clicked: null });
    expect([r.machine_opened_at !== null, r.machine_clicked_at !== null]).toEqual([true, true]);
    expect(await h.queued(id)).toEqual(['message.sent']);
  });

  it('a tampered token, a link index the message never held, a campaign kind for a message id, or a message not sent: 404, nothing counted', async () => {
    const address = to('tampered');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    const { pixel, click, trap } = trackingLinks(await h.mailTo(address));
    // Each from its own client address: TRACKING_RATE_LIMIT is 5 here, and these are not a flood.
    let client = 0;
    const fresh = () => from(`198.51.100.${100 + client++}`);
    for (const url of [...tamperings(pixel), ...tamperings(click), ...tamperings(trap)]) expect((await hit(url, fresh())).status, url).toBe(404);
    const scheduled = await h.send(to('later'), { html: '<a href="https://shop.example/x">x</a>', track_opens: true, track_clicks: true, scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const forged = [
      `/t/c/${signer.sign({ kind: 'message-click', messageId: id, link: 7 })}`,
      `/t/o/${signer.sign({ kind: 'open', recipientId: id })}`,
      `/t/o/${signer.sign({ kind: 'message-open', messageId: scheduled })}`,
      `/t/c/${signer.sign({ kind: 'message-click', messageId: scheduled, link: 0 })}`,
      `/t/t/${signer.sign({ kind: 'message-trap', messageId: 999_999_999 })}`,
    ];
    for (const path of forged) expect((await hit(h.server.url + path, fresh())).status, path).toBe(404);
    const r = await h.row(id);
    expect([r.opened_at, r.clicked_at, r.machine_opened_at, r.machine_clicked_at]).toEqual([null, null, null, null]);
    expect(await h.queued(id)).toEqual(['message.sent']);
    expect(await h.queued(scheduled)).toEqual([]);
  });

  it("a client past TRACKING_RATE_LIMIT gets 429 with Retry-After on a message's pixel, as on a campaign's (issue 14 L2)", async () => {
    const address = to('flood');
    const id = await tracked(address);
    await h.waitForStatus(id, 'SENT');
    const { pixel } = trackingLinks(await h.mailTo(address));
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await hit(pixel, from('198.51.100.34'))).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
