import validator from 'validator';
import type { DkimSigningKey } from '../domains/sending-domain.ts';

/** A mail the service itself sends about a person's account (not a tenant's campaign). */
export interface AccountMail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Sends an AccountMail; `accountId` says whose dev inbox keeps it when there is no SMTP_URL.
 * `fromName`: whom the mail is from, when not the service itself (D20's confirmation mail names
 * the account whose lists it is about).
 */
export interface AccountMailer {
  /** `from`: issue 28 M2, a list's own confirmation words go from the account's verified address, signed with its DKIM key */
  send(accountId: number, to: string, mail: AccountMail, fromName?: string, from?: { address: string; dkim: DkimSigningKey }): Promise<void>;
}

const page = (paragraphs: string[]) => paragraphs.map((p) => `<p>${p}</p>`).join('\n');

/** Issue 14 L5: the link that creates the account, which only the address's owner receives. */
export function confirmationMail(link: string, validHours: number): AccountMail {
  const safeLink = validator.escape(link);
  return {
    subject: 'Confirm your e-mail address to create your Sendwell account',
    text: [
      'A Sendwell account was asked for with this e-mail address.',
      `To create it and sign in, open this link within ${validHours} hours:`,
      link,
      'If you did not ask for it, ignore this mail: nothing is created without the link.',
    ].join('\n\n'),
    html: page([
      'A Sendwell account was asked for with this e-mail address.',
      `To create it and sign in, open this link within ${validHours} hours:<br><a href="${safeLink}">${safeLink}</a>`,
      'If you did not ask for it, ignore this mail: nothing is created without the link.',
    ]),
  };
}

/** Issue 14 L5: what the owner of a registered address gets instead, so the sign-up answer need not differ. */
export function alreadyRegisteredMail(signInUrl: string): AccountMail {
  const safeUrl = validator.escape(signInUrl);
  return {
    subject: 'Someone tried to create a Sendwell account with your address',
    text: [
      'Someone, perhaps you, tried to create a Sendwell account with this address, which already has one. Nothing was changed.',
      `To sign in, go to ${signInUrl}`,
      'If it was not you, you can ignore this mail.',
    ].join('\n\n'),
    html: page([
      'Someone, perhaps you, tried to create a Sendwell account with this address, which already has one. Nothing was changed.',
      `To sign in, go to <a href="${safeUrl}">${safeUrl}</a>`,
      'If it was not you, you can ignore this mail.',
    ]),
  };
}
