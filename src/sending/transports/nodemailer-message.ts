import type DKIM from 'nodemailer/lib/dkim';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { OutgoingMessage } from './transport.ts';

/** The nodemailer form of a message. */
function toNodemailer(m: OutgoingMessage): Mail.Options {
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

/**
 * The message's full MIME source (CRLF line ends), as nodemailer composes it; one way for every
 * transport. With `dkim`, signed as composed (D23): every message is composed here, on the render
 * thread or (without a MIME source yet) just before sending.
 */
export function composeMime(m: OutgoingMessage, dkim?: DKIM): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const node = new MailComposer(toNodemailer(m)).compile();
    if (dkim) node.processFunc((input) => dkim.sign(input));
    node.build((err, mime) => (err ? reject(err) : resolve(mime)));
  });
}

/** The message's MIME source: composed already (the render thread does it for campaign messages), or now. */
export async function mimeOf(m: OutgoingMessage): Promise<Buffer> {
  // A message that crossed from the render thread holds a plain Uint8Array: viewed as a Buffer, not copied.
  return m.mime ? Buffer.from(m.mime.buffer, m.mime.byteOffset, m.mime.byteLength) : composeMime(m);
}
