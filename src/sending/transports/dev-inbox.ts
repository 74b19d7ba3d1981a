import type { Db } from '../../db/connect.ts';
import { insertDevInboxMessage } from '../../domain/dev-inbox/dev-inbox.repo.ts';
import { nowIso } from '../../domain/shared/time.ts';
import { mimeOf } from './nodemailer-message.ts';
import type { MailTransport, OutgoingMessage, SendOutcome } from './transport.ts';

/**
 * What the dev inbox keeps of each of a message's HTML, text and raw source (issue 14 H5): a
 * message may render to 2 MB a part, and the inbox kept each part twice (alone and in the raw
 * source). 256 KB is more than a newsletter's HTML and text together; a longer one is cut, with a
 * note saying so.
 */
export const DEV_INBOX_MAX_PART_BYTES = 256 * 1024;

/** `value` cut to `maxBytes` of UTF-8 (never inside a character), with a note when it was cut. */
export function keptPart(value: string, maxBytes = DEV_INBOX_MAX_PART_BYTES): string {
  const bytes = Buffer.byteLength(value);
  if (bytes <= maxBytes) return value;
  const cut = Buffer.from(value).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '');
  return `${cut}\n[cut by the dev inbox: ${bytes} bytes, of which it keeps ${maxBytes}]\n`;
}

/**
 * Without SMTP_URL, mail is built exactly as it would be sent (full MIME) and kept in the
 * database, where GET /api/v1/dev/inbox shows it: a newcomer sees what was sent. It keeps the
 * newest `maxMessages` per account (DEV_INBOX_MAX_MESSAGES), each part up to DEV_INBOX_MAX_PART_BYTES.
 */
export class DevInboxTransport implements MailTransport {
  readonly name = 'dev-inbox';
  constructor(
    private readonly db: Db,
    private readonly maxMessages: number,
  ) {}

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    // Kept with Unix line ends, as a mail client saves a message.
    const raw = (await mimeOf(message)).toString('utf8').replace(/\r\n/g, '\n');
    const headerBlock = raw.slice(0, raw.indexOf('\n\n'));
    // Unfold, then split: a header's continuation lines start with white space.
    const headers: Record<string, string> = {};
    for (const line of headerBlock.replace(/\n[ \t]+/g, ' ').split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
    }
    await insertDevInboxMessage(
      this.db,
      {
        account_id: message.accountId,
        campaign_id: message.campaignId,
        message_id: message.messageId,
        from_address: message.from.address,
        to_address: message.to,
        subject: message.subject,
        headers: JSON.stringify(headers),
        html: message.html === null ? null : keptPart(message.html),
        text: message.text === null ? null : keptPart(message.text),
        raw: keptPart(raw),
        created_at: nowIso(),
      },
      this.maxMessages,
    );
    return { kind: 'sent' };
  }

  async close(): Promise<void> {}
}
