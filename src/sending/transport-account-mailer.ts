import { randomUUID } from 'node:crypto';
import type { MailTransport } from './transports/transport.ts';
import { dkimSigner } from './dkim.ts';
import type { DkimSigningKey } from '../domain/domains/sending-domain.ts';
import type { AccountMail, AccountMailer } from '../domain/users/sign-up-mail.ts';
import { emailDomain } from '../domain/shared/email-address.ts';

/**
 * Account mail goes out through the service's one mail transport, from MAIL_FROM: SMTP when
 * SMTP_URL is set, else the dev inbox of the account named (see UserService.signUp).
 */
export class TransportAccountMailer implements AccountMailer {
  constructor(
    private readonly transport: MailTransport,
    private readonly from: string,
  ) {}

  async send(accountId: number, to: string, mail: AccountMail, fromName = 'Sendwell', from?: { address: string; dkim: DkimSigningKey }): Promise<void> {
    const address = from?.address ?? this.from;
    const outcome = await this.transport.send({
      accountId,
      campaignId: null,
      from: { name: fromName, address },
      to,
      replyTo: null,
      ...mail,
      messageId: `<account.${randomUUID()}@${emailDomain(address)}>`,
      headers: {},
      ...(from ? { dkim: dkimSigner(from.dkim) } : {}),
    });
    // The person is waiting for this mail: say it did not go rather than answer as if it had.
    if (outcome.kind !== 'sent') throw new Error(`an account mail was not sent: ${outcome.error}`);
  }
}
