/**
 * Reports as mail servers send them back (D23), as raw message sources with CRLF line ends:
 * a delivery status notification (RFC 3464) as Postfix writes one, and an ARF complaint
 * (RFC 5965) as a mailbox provider's feedback loop sends it.
 */

export interface DsnOptions {
  /** the bounce address it is sent to (the To header, as Postfix sets it from the envelope sender) */
  to: string;
  /** `5.1.1`, `4.2.2`, ... */
  status: string;
  /** the recipient whose delivery failed */
  recipient?: string;
  /** default: failed for 5.x.x, delayed for 4.x.x */
  action?: string;
  /** the Message-ID of the returned message's headers, if any */
  originalMessageId?: string;
}

const CRLF = '\r\n';

export function dsn(o: DsnOptions): string {
  const recipient = o.recipient ?? 'gone@example.org';
  const action = o.action ?? (o.status.startsWith('5') ? 'failed' : 'delayed');
  return [
    'From: MAILER-DAEMON@mx.example.org (Mail Delivery System)',
    `To: ${o.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Date: Thu, 26 Nov 2026 10:00:00 +0000',
    'Message-ID: <20261126100000.DSN1@mx.example.org>',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status;',
    '\tboundary="DSN.BOUNDARY"',
    '',
    '--DSN.BOUNDARY',
    'Content-Description: Notification',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'I\'m sorry to have to inform you that your message could not',
    'be delivered to one or more recipients.',
    '',
    '--DSN.BOUNDARY',
    'Content-Description: Delivery report',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.org',
    'Arrival-Date: Thu, 26 Nov 2026 09:59:58 +0000',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Original-Recipient: rfc822;${recipient}`,
    `Action: ${action}`,
    `Status: ${o.status}`,
    'Remote-MTA: dns; mail.example.org',
    `Diagnostic-Code: smtp; 550 ${o.status} <${recipient}>: Recipient address rejected:`,
    '    User unknown in virtual mailbox table',
    '',
    '--DSN.BOUNDARY',
    'Content-Description: Undelivered Message Headers',
    'Content-Type: text/rfc822-headers',
    '',
    'From: Acme News <news@acme.test>',
    `To: ${recipient}`,
    'Subject: Hello',
    ...(o.originalMessageId ? [`Message-ID: ${o.originalMessageId}`] : []),
    '',
    '--DSN.BOUNDARY--',
    '',
  ].join(CRLF);
}

export interface ArfOptions {
  to: string;
  /** default abuse */
  feedbackType?: string;
  originalMessageId?: string;
}

export function arf(o: ArfOptions): string {
  return [
    'From: Feedback Loop <fbl@isp.example.net>',
    `To: ${o.to}`,
    'Subject: FW: Hello',
    'Date: Thu, 26 Nov 2026 11:00:00 +0000',
    'Message-ID: <fbl.1@isp.example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF.BOUNDARY"',
    '',
    '--ARF.BOUNDARY',
    'Content-Type: text/plain; charset="US-ASCII"',
    '',
    'This is an email abuse report for an email message received from IP',
    '192.0.2.1 on Thu, 26 Nov 2026 10:00:00 +0000.',
    '',
    '--ARF.BOUNDARY',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    'Original-Mail-From: <bounce@bounces.acme.test>',
    'Arrival-Date: Thu, 26 Nov 2026 10:00:00 +0000',
    'Source-IP: 192.0.2.1',
    '',
    '--ARF.BOUNDARY',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    'From: Acme News <news@acme.test>',
    'To: someone@example.org',
    'Subject: Hello',
    ...(o.originalMessageId ? [`Message-ID: ${o.originalMessageId}`] : []),
    '',
    'Hi there',
    '',
    '--ARF.BOUNDARY--',
    '',
  ].join(CRLF);
}

/** A plain message that reports nothing: an auto-reply, or anything else sent to a bounce address. */
export function notAReport(to: string): string {
  return [`From: someone@example.org`, `To: ${to}`, 'Subject: Out of office', 'MIME-Version: 1.0', 'Content-Type: text/plain', '', 'I am away until Monday.', ''].join(CRLF);
}
