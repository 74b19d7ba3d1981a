import validator from 'validator';
import type { AccountMail } from './sign-up-mail.ts';

/** A name typed by a tenant, made safe for one header line: no control characters (a CR or LF would start a new header). */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

/**
 * D24.3: the invitation to join an account, naming it (and who invited, when a person did), with
 * the link that sets a password and signs in. The link holds the token: it goes in this mail only.
 */
export function invitationMail(input: { link: string; accountName: string; invitedBy: string | null; validDays: number }): AccountMail {
  const account = oneLine(input.accountName);
  const who = input.invitedBy === null ? 'You have been' : `${oneLine(input.invitedBy)} has`;
  const invited = `${who} invited you to join ${account} on Sendwell.`;
  const open = `To accept, open this link within ${input.validDays} days and choose a password:`;
  const ignore = 'If you did not expect this invitation, ignore this mail: nothing happens without the link.';
  const safe = (text: string) => validator.escape(text);
  return {
    subject: `You are invited to join ${account} on Sendwell`,
    text: [invited, open, input.link, ignore].join('\n\n'),
    html: [safe(invited), `${safe(open)}<br><a href="${safe(input.link)}">${safe(input.link)}</a>`, safe(ignore)].map((p) => `<p>${p}</p>`).join('\n'),
  };
}
