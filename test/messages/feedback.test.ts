/**
 * Issue 31, D25.1/D25.5: bounces and complaints that arrive after a transactional message went are
 * applied as D23 applies them to campaign messages: a DSN by SMTP to the message's own VERP
 * address (or found in the bounce mailbox naming its Message-ID), and the providers' reports
 * (SES, SendGrid, generic) naming its signed Message-ID. message.bounced reaches a real HTTP
 * listener; a complaint gives no event (D25.5 names none).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackSecret } from '../../src/feedback/auth.ts';
import { arf, dsn } from '../feedback/report-messages.ts';
import { addressMaker } from '../sending/send-helpers.ts';
import { signer, startMessageHooks, type MessageHooks } from './message-hooks.ts';

const MESSAGE_VERP = /^bounce\+t-[0-9a-z]+-[a-z2-7]{16}@bounces\.acme\.test$/;
const to = addressMaker('txfeedback');
let h: MessageHooks;
let reporter: Transporter;

beforeAll(async () => {
  h = await startMessageHooks({});
  // What a reporting mail server does: a null envelope sender (RFC 3464), plain SMTP.
  reporter = nodemailer.createTransport({ host: '127.0.0.1', port: h.server.bounceReceiver!.port!, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  reporter?.close();
  await h?.close();
});

describe('bounces and complaints after sending (issue 31: as D23 applies them to campaigns)', () => {
  const report = (rcpt: string, raw: string) => reporter.sendMail({ envelope: { from: '', to: [rcpt] }, raw });
  const providerToken = () => feedbackSecret(h.server.core.config.secret);
  const post = (provider: string, body: unknown) => h.server.request('POST', `/webhooks/${provider}?token=${providerToken()}`, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('a message goes with its own VERP Return-Path and a signed Message-ID `<t…>`', async () => {
    const address = to('verp');
    const id = await h.send(address, { text: 'Thanks' });
    const mail = await h.mailTo(address);
    expect(mail.envelope.from).toMatch(MESSAGE_VERP);
    expect(mail.messageId).toMatch(new RegExp(`^<t${id}\\.[A-Za-z0-9_-]+@acme\\.test>$`));
  });

  it('a DSN to the VERP address: SENT → BOUNCED, message.bounced, the address suppressed; again: accepted, nothing more', async () => {
    const address = to('dsn');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const mail = await h.mailTo(address);
    const raw = dsn({ to: mail.envelope.from, status: '5.1.1', recipient: address, originalMessageId: mail.messageId });
    await report(mail.envelope.from, raw);
    const event = await h.delivered(id, 'message.bounced');
    h.expectCarries(event, id, address);
    expect(event.data).toMatchObject({ hard: true, reason: expect.stringContaining('5.1.1') });
    expect((await h.waitForStatus(id, 'BOUNCED')).error).toContain('5.1.1');
    expect(await h.suppression(address)).toMatchObject({ source: 'BOUNCE' });
    await report(mail.envelope.from, raw);
    expect(await h.queued(id)).toEqual(['message.bounced', 'message.sent']);
  });

  it('a DSN naming the message only by its Message-ID (a mailbox copy): the same', async () => {
    const address = to('dsnbyid');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const mail = await h.mailTo(address);
    const outcome = await h.server.core.bounceMail.handle(Buffer.from(dsn({ to: 'postmaster@acme.test', status: '5.2.1', recipient: address, originalMessageId: mail.messageId })), {
      target: null,
      remoteAddress: null,
      sender: 'imap:INBOX',
    });
    expect(outcome).toMatchObject({ kind: 'recorded', report: 'hard-bounce', target: { kind: 'message-bounce', messageId: id } });
    h.expectCarries(await h.delivered(id, 'message.bounced'), id, address);
    await h.waitForStatus(id, 'BOUNCED');
  });

  it('a 4.x.x DSN changes nothing; a forged VERP token is refused at RCPT', async () => {
    const address = to('delayed');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const mail = await h.mailTo(address);
    await report(mail.envelope.from, dsn({ to: mail.envelope.from, status: '4.2.2', recipient: address }));
    expect((await h.message(id)).status).toBe('SENT');
    const forged = mail.envelope.from.replace(/^bounce\+t-([0-9a-z]+)-/, (_, n: string) => `bounce+t-${(parseInt(n, 36) + 1).toString(36)}-`);
    const err = await report(forged, dsn({ to: forged, status: '5.1.1' })).then(
      () => null,
      (e: { responseCode?: number }) => e,
    );
    expect(err?.responseCode).toBe(550);
    expect(await h.queued(id)).toEqual(['message.sent']);
  });

  it('an ARF complaint by mail: the address suppressed (COMPLAINT), its contact COMPLAINED, no event (D25.5 names none)', async () => {
    const address = to('complainer');
    await h.t.contact({ email: address });
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const mail = await h.mailTo(address);
    await report(mail.envelope.from, arf({ to: mail.envelope.from, originalMessageId: mail.messageId }));
    expect(await h.suppression(address)).toMatchObject({ source: 'COMPLAINT' });
    expect((await h.t.getContact(address)).status).toBe('COMPLAINED');
    expect((await h.row(id)).complained_at).not.toBeNull();
    expect((await h.message(id)).status).toBe('SENT');
    expect(await h.queued(id)).toEqual(['message.sent']);
  });

  it('a provider report (generic) by Message-ID: BOUNCED and message.bounced; a replay changes nothing', async () => {
    const address = to('generic');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const { messageId } = await h.mailTo(address);
    for (let i = 0; i < 2; i++) {
      const res = await post('generic', { events: [{ type: 'bounce', message_id: messageId, email: address }] });
      expect(res.status, res.text).toBe(200);
    }
    const event = await h.delivered(id, 'message.bounced');
    h.expectCarries(event, id, address);
    expect(event.data.hard).toBe(true);
    await h.waitForStatus(id, 'BOUNCED');
    expect(await h.suppression(address)).toMatchObject({ source: 'BOUNCE' });
    expect(await h.queued(id)).toEqual(['message.bounced', 'message.sent']);
  });

  it("SendGrid's soft bounce: message.bounced (hard false), the message stays SENT and the address unsuppressed", async () => {
    const address = to('blocked');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const { messageId } = await h.mailTo(address);
    const res = await post('sendgrid', [{ event: 'bounce', type: 'blocked', 'smtp-id': messageId, email: address, timestamp: Math.floor(Date.now() / 1000) }]);
    expect(res.status, res.text).toBe(200);
    expect((await h.delivered(id, 'message.bounced')).data.hard).toBe(false);
    expect((await h.message(id)).status).toBe('SENT');
    expect(await h.suppression(address)).toBeUndefined();
  });

  it("SES's complaint by Message-ID: suppressed (COMPLAINT), no event", async () => {
    const address = to('sescomplaint');
    const id = await h.send(address, { text: 'Thanks' });
    await h.waitForStatus(id, 'SENT');
    const { messageId } = await h.mailTo(address);
    const res = await post('ses', { notificationType: 'Complaint', mail: { commonHeaders: { messageId } }, complaint: { complainedRecipients: [{ emailAddress: address }], complaintFeedbackType: 'abuse' } });
    expect(res.status, res.text).toBe(200);
    expect(await h.suppression(address)).toMatchObject({ source: 'COMPLAINT' });
    expect(await h.queued(id)).toEqual(['message.sent']);
  });

  it('a report about a message not sent yet: 503 with Retry-After, so the provider retries; a forged Message-ID is not matched', async () => {
    const scheduled = await h.send(to('notyet'), { text: 'Later', scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const notSent = `<t${scheduled}.${signer.transactionalIdSignature(scheduled)}@acme.test>`;
    const pending = await post('generic', { events: [{ type: 'bounce', message_id: notSent }] });
    expect(pending.status, pending.text).toBe(503);
    expect(pending.headers.get('retry-after')).toMatch(/^\d+$/);
    const forged = await post('generic', { events: [{ type: 'bounce', message_id: `<t${scheduled}.forgedsig0@acme.test>` }] });
    expect(forged.status, forged.text).toBe(200);
    expect(forged.body.data).toEqual({ received: 1, matched: 0, recorded: 0 });
    expect((await h.message(scheduled)).status).toBe('SCHEDULED');
  });
});
