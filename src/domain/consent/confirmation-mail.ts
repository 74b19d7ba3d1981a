import validator from 'validator';
import type { AccountMail } from '../users/sign-up-mail.ts';

/**
 * D20: the double opt-in mail. A list may have its own subject and text (`confirmation_subject`,
 * `confirmation_text`); the text is plain text, not Liquid: the one placeholder
 * `{{ confirm_url }}` (spaces inside the braces optional) becomes the confirmation link, and a
 * list's text must hold it (lists.service checks on save), so the mail always carries the link.
 * The HTML part is the same text, escaped, with the link made a link. Pure.
 */
export const CONFIRM_URL_PLACEHOLDER = '{{ confirm_url }}';
const PLACEHOLDER = /\{\{\s*confirm_url\s*\}\}/g;

export const CONFIRMATION_LIMITS = { subjectMax: 200, textMax: 5000 } as const;

export interface ConfirmationList {
  name: string;
  confirmation_subject: string | null;
  confirmation_text: string | null;
}

/** Whether a list's own text holds the link's placeholder. */
export const holdsConfirmUrl = (text: string): boolean => new RegExp(PLACEHOLDER.source).test(text);

/** "News", "News and Offers", "News, Offers and Events". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export function defaultConfirmationSubject(names: readonly string[]): string {
  const subject = `Please confirm your subscription to ${listNames(names)}`;
  return [...subject].length > CONFIRMATION_LIMITS.subjectMax ? 'Please confirm your subscription' : subject;
}

export function defaultConfirmationText(sender: string, names: readonly string[]): string {
  return [
    `Someone, we hope you, asked to receive e-mails from ${sender} (${listNames(names)}) at this address.`,
    `To confirm, open this link and press the button there:\n${CONFIRM_URL_PLACEHOLDER}`,
    'If it was not you, ignore this mail: without the confirmation nothing is sent to you.',
  ].join('\n\n');
}

/**
 * The mail for `lists` (the memberships waiting, by list id): the first of them that has its own
 * subject or text gives it (one mail covers them all, so one list's words are used), the defaults
 * name every list.
 */
export function confirmationMail(sender: string, lists: readonly ConfirmationList[], confirmUrl: string): AccountMail {
  const names = lists.map((l) => l.name);
  const subject = lists.find((l) => l.confirmation_subject)?.confirmation_subject ?? defaultConfirmationSubject(names);
  const text = lists.find((l) => l.confirmation_text)?.confirmation_text ?? defaultConfirmationText(sender, names);
  const safeUrl = validator.escape(confirmUrl);
  const html = text
    .split(/\n{2,}/)
    .map((paragraph) =>
      paragraph
        .split(PLACEHOLDER)
        .map((part) => validator.escape(part).replace(/\n/g, '<br>'))
        .join(`<a href="${safeUrl}" style="color:#228be6">${safeUrl}</a>`),
    )
    .map((p) => `<p>${p}</p>`)
    .join('\n');
  return { subject, text: text.replace(PLACEHOLDER, () => confirmUrl), html };
}
