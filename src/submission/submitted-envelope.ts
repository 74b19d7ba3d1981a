import type { AddressObject, HeaderValue, Headers } from 'mailparser';
import { MESSAGE_LIMITS } from '../domain/messages/message.ts';
import { headerBlock } from './submission-rules.ts';

/** What D25.7 reads of a submitted message: the facts the message list shows. The source itself is sent as it is. */
export interface EnvelopeFacts {
  /** the header From's first address, else null (then the envelope's MAIL FROM is used) */
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
}

/** The header block is over HEADER_BLOCK_BYTES_MAX: the message is refused, not parsed. */
export class HeaderBlockTooLarge extends Error {}

function firstAddress(value: HeaderValue | undefined): { address: string | null; name: string | null } {
  const objects = (Array.isArray(value) ? value : [value]) as (AddressObject | undefined)[];
  for (const object of objects) {
    for (const entry of object?.value ?? []) {
      if (entry.address) return { address: entry.address, name: entry.name || null };
    }
  }
  return { address: null, name: null };
}

/** Its headers as mailparser reads them: only the header block is given to it, so the body (attachments too) is never parsed. */
async function parseHeaders(block: Buffer): Promise<Headers> {
  const { MailParser } = await import('mailparser');
  return new Promise((resolve, reject) => {
    const parser = new MailParser({ skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
    let headers: Headers = new Map();
    parser.on('headers', (h: Headers) => (headers = h));
    parser.on('data', (part: { type: string; release?: () => void }) => part.release?.());
    parser.on('error', reject);
    parser.on('end', () => resolve(headers));
    parser.end(Buffer.concat([block, Buffer.from('\r\n\r\n')]));
  });
}

/**
 * D25.7: the From name and address, Reply-To and Subject of a submitted message, read from its
 * header block only (at most HEADER_BLOCK_BYTES_MAX, else HeaderBlockTooLarge). Recipients are
 * not read here: they are the envelope's RCPT TO, which covers Bcc too.
 */
export async function envelopeFactsOf(source: Buffer): Promise<EnvelopeFacts> {
  const block = headerBlock(source);
  if (block === null) throw new HeaderBlockTooLarge();
  const headers = await parseHeaders(block);
  const from = firstAddress(headers.get('from'));
  const subject = headers.get('subject');
  return {
    fromEmail: from.address,
    fromName: from.name ? from.name.slice(0, MESSAGE_LIMITS.subjectMax) : null,
    replyTo: firstAddress(headers.get('reply-to')).address,
    // The list shows it; the message goes out with its own Subject line, whatever its length.
    subject: typeof subject === 'string' ? subject.slice(0, MESSAGE_LIMITS.subjectMax) : '',
  };
}
