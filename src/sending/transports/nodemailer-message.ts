import type Mail from 'nodemailer/lib/mailer/index.js';
import type { OutgoingMessage } from './transport.ts';

/** The nodemailer form of a message; shared by the SMTP and dev-inbox transports so both build the same MIME. */
export function toNodemailer(m: OutgoingMessage): Mail.Options {
  return {
    from: m.from.name ? { name: m.from.name, address: m.from.address } : m.from.address,
    to: m.to,
    replyTo: m.replyTo ?? undefined,
    subject: m.subject,
    html: m.html ?? undefined,
    text: m.text ?? undefined,
    messageId: m.messageId,
    // `prepared` headers are written as given: nodemailer would otherwise fold long ones.
    headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, { prepared: true, value: v }])),
  };
}
