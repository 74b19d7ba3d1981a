import validator from 'validator';
import { CONFIRM_URL_PATTERN, CONFIRM_URL_PLACEHOLDER, CONFIRMATION_LIMITS } from '../lists/list.ts';
import type { AccountMail } from '../users/sign-up-mail.ts';

/**
 * D20: the double opt-in mail. Issue 28 M2: by default it is a fixed, reviewed text whose only
 * words from the account are its name and the lists' names (escaped in the HTML part). A list may
 * have its own subject and text (`confirmation_subject`, `confirmation_text`), used only when
 * `ownWords` says the mail goes from the account's verified domain (subscriptions.service);
 * the text is plain text, not Liquid: the one placeholder
 * `{{ confirm_url }}` (spaces inside the braces optional) becomes the confirmation link, and a
 * list's text must hold it (list.ts's rule, checked on save), so the mail always carries the link.
 * The HTML part is the same text, escaped, with the link made a link. Pure.
 */
export interface ConfirmationList {
  name: string;
  confirmation_subject: string | null;
  confirmation_text: string | null;
  /** issue 28 M2: the address the list's own words go from; null: the fixed mail */
  confirmation_from_email: string | null;
}

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
 * Issue 28 M2: the list whose own words a mail for `lists` may carry: the first with its own
 * subject or text and an address to send them from (one mail covers them all, so one list's words
 * are used). Undefined: the fixed mail.
 */
export function ownWordsList<L extends ConfirmationList>(lists: readonly L[]): L | undefined {
  return lists.find((l) => (l.confirmation_subject || l.confirmation_text) && l.confirmation_from_email);
}

/**
 * The mail for `lists` (the memberships waiting, by list id). `ownWords`: the list whose own
 * subject and text it carries (each falling back to the fixed one), once the caller has checked
 * that it goes from that list's verified address; otherwise the fixed mail naming every list.
 */
export function confirmationMail(sender: string, lists: readonly ConfirmationList[], confirmUrl: string, ownWords?: ConfirmationList): AccountMail {
  const names = lists.map((l) => l.name);
  const subject = ownWords?.confirmation_subject ?? defaultConfirmationSubject(names);
  const text = ownWords?.confirmation_text ?? defaultConfirmationText(sender, names);
  const safeUrl = validator.escape(confirmUrl);
  const html = text
    .split(/\n{2,}/)
    .map((paragraph) =>
      paragraph
        .split(CONFIRM_URL_PATTERN)
        .map((part) => validator.escape(part).replace(/\n/g, '<br>'))
        .join(`<a href="${safeUrl}" style="color:#228be6">${safeUrl}</a>`),
    )
    .map((p) => `<p>${p}</p>`)
    .join('\n');
  return { subject, text: text.replace(CONFIRM_URL_PATTERN, () => confirmUrl), html };
}
