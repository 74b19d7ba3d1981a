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
    attachments: m.attachments?.map((a) => ({ filename: a.filename, content: a.content, encoding: 'base64', contentType: a.content_type ?? undefined })),
    headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, { prepared: true, value: v }])),
  };
}

/**
 * The message's full MIME source (CRLF line ends), as nodemailer composes it; one way for every
 * transport. With `dkim`, signed as composed (D23).
 */
export function composeMime(m: OutgoingMessage, dkim?: DKIM): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const node = new MailComposer(toNodemailer(m)).compile();
    if (dkim) node.processFunc((input) => dkim.sign(input));
    node.build((err, mime) => (err ? reject(err) : resolve(mime)));
  });
}

/** `mime` DKIM-signed by nodemailer's signer (D23): the same source with its DKIM-Signature header first. */
function signMime(mime: Buffer, dkim: DKIM): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const signed = dkim.sign(mime);
    signed.on('data', (chunk: Buffer) => chunks.push(chunk));
    signed.once('error', reject);
    signed.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * The message's MIME source as it goes out: composed already (the render thread does it for
 * campaign, test and automation messages), or now; DKIM-signed when the message carries a signer.
 */
export async function mimeOf(m: OutgoingMessage): Promise<Buffer> {
  if (!m.mime) return composeMime(m, m.dkim);
  // A message that crossed from the render thread holds a plain Uint8Array: viewed as a Buffer, not copied.
  const mime = Buffer.from(m.mime.buffer, m.mime.byteOffset, m.mime.byteLength);
  return m.dkim ? signMime(mime, m.dkim) : mime;
}
