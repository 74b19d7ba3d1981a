import validator from 'validator';
import type { AccountMail } from './sign-up-mail.ts';

/** D24.4: the password reset link, which only the address's owner receives. */
export function passwordResetMail(link: string, validMinutes: number): AccountMail {
  const safeLink = validator.escape(link);
  const intro = 'Someone, perhaps you, asked to reset the password of the Sendwell account with this address.';
  const ignore = 'If it was not you, ignore this mail: your password stays as it is.';
  return {
    subject: 'Reset your Sendwell password',
    text: [intro, `To choose a new password, open this link within ${validMinutes} minutes (it works once):`, link, ignore].join('\n\n'),
    html: [intro, `To choose a new password, open this link within ${validMinutes} minutes (it works once):<br><a href="${safeLink}">${safeLink}</a>`, ignore]
      .map((p) => `<p>${p}</p>`)
      .join('\n'),
  };
}
