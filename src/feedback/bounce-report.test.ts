import { describe, expect, it } from 'vitest';
import { arf, dsn, notAReport } from '../../test/feedback/report-messages.ts';
import { parseBounceMessage, readFields } from './bounce-report.ts';

// D23: what a message that came back by mail reports (RFC 3464 DSNs, RFC 5965 ARF).

const TO = 'bounce+x@bounces.acme.test';
const read = async (raw: string) => (await parseBounceMessage(Buffer.from(raw))).report;

describe('bounce reports (D23)', () => {
  it('a DSN with a 5.x.x status is a hard bounce', async () => {
    expect(await read(dsn({ to: TO, status: '5.1.1' }))).toEqual({ kind: 'hard-bounce', status: '5.1.1' });
  });

  it('names the message it is about: the addresses it was delivered to, and the returned message\'s Message-ID', async () => {
    const raw = `X-Original-To: ${TO.toUpperCase()}\r\nDelivered-To: <mailbox@acme.test>\r\n${dsn({ to: 'Bounces <other@acme.test>', status: '5.1.1', originalMessageId: '<c1.r2.abc@acme.test>' })}`;
    expect(await parseBounceMessage(Buffer.from(raw))).toMatchObject({
      addressedTo: [TO, 'mailbox@acme.test', 'other@acme.test'],
      originalMessageId: '<c1.r2.abc@acme.test>',
    });
    expect(await parseBounceMessage(Buffer.from(arf({ to: TO, originalMessageId: '<c3.r4.def@acme.test>' })))).toMatchObject({ addressedTo: [TO], originalMessageId: '<c3.r4.def@acme.test>' });
  });

  it('a DSN with 4.x.x (delayed) or 2.x.x (delivered) reports no failure', async () => {
    expect(await read(dsn({ to: TO, status: '4.2.2' }))).toEqual({ kind: 'no-failure', status: '4.2.2' });
    expect(await read(dsn({ to: TO, status: '2.0.0', action: 'delivered' }))).toMatchObject({ kind: 'no-failure', status: '2.0.0' });
  });

  it('a 5.x.x status whose action is not "failed" is no failure', async () => {
    expect(await read(dsn({ to: TO, status: '5.1.1', action: 'delayed' }))).toMatchObject({ kind: 'no-failure' });
  });

  it('an ARF report is a complaint, except not-spam', async () => {
    expect(await read(arf({ to: TO }))).toEqual({ kind: 'complaint', feedbackType: 'abuse' });
    expect(await read(arf({ to: TO, feedbackType: 'not-spam' }))).toMatchObject({ kind: 'no-failure' });
  });

  it('anything else is malformed, saying why', async () => {
    expect(await read(notAReport(TO))).toEqual({ kind: 'malformed', reason: 'not a multipart/report' });
    expect(await read(dsn({ to: TO, status: '5.1.1' }).replace('report-type=delivery-status', 'report-type=disposition-notification'))).toMatchObject({ kind: 'malformed' });
    expect(await read(dsn({ to: TO, status: 'failed badly' }))).toEqual({ kind: 'malformed', reason: 'the delivery status names no recipient with a Status' });
    expect(await read(dsn({ to: TO, status: '5.1.1' }).replace('Content-Type: message/delivery-status', 'Content-Type: text/plain'))).toEqual({ kind: 'malformed', reason: 'no message/delivery-status part' });
    expect(await read(arf({ to: TO }).replace(/Feedback-Type: abuse\r\n/, ''))).toEqual({ kind: 'malformed', reason: 'the feedback report has no Feedback-Type' });
    expect(await read('\u0000\u0001 garbage')).toMatchObject({ kind: 'malformed' });
  });

  it('reads folded fields and keeps the first of a repeated one', () => {
    const fields = readFields('Status: 5.1.1\r\nDiagnostic-Code: smtp; 550\r\n  user unknown\r\nStatus: 2.0.0');
    expect(fields.get('status')).toBe('5.1.1');
    expect(fields.get('diagnostic-code')).toBe('smtp; 550 user unknown');
  });
});
