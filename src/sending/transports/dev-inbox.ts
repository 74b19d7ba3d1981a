import type { Db } from '../../db/connect.ts';
import { nowIso } from '../../domain/shared/time.ts';
import { mimeOf } from './nodemailer-message.ts';
import type { MailTransport, OutgoingMessage, SendOutcome } from './transport.ts';

/**
 * Without SMTP_URL, mail is built exactly as it would be sent (full MIME) and kept in the
 * database, where GET /api/v1/dev/inbox shows it: a newcomer sees what was sent.
 */
export class DevInboxTransport implements MailTransport {
  readonly name = 'dev-inbox';
  constructor(private readonly db: Db) {}

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
    await this.db
      .insertInto('dev_inbox')
      .values({
        account_id: message.accountId,
        campaign_id: message.campaignId,
        message_id: message.messageId,
        from_address: message.from.address,
        to_address: message.to,
        subject: message.subject,
        headers: JSON.stringify(headers),
        html: message.html,
        text: message.text,
        raw,
        created_at: nowIso(),
      })
      .execute();
    return { kind: 'sent' };
  }

  async close(): Promise<void> {}
}
