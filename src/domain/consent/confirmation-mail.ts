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
 * The HTML part is the same text, escaped, with the link made a link, in a simple mail layout
 * with a confirm button (confirmationLayout). Pure.
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
    `Please confirm that you want e-mails from ${sender} (${listNames(names)}) at this address.`,
    `Open this link and press Confirm:\n${CONFIRM_URL_PLACEHOLDER}`,
    'If you did not sign up, ignore this mail: you are not subscribed, and nothing more is sent to you.',
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
  const paragraphs = text
    .split(/\n{2,}/)
    .map((paragraph) =>
      paragraph
        .split(CONFIRM_URL_PATTERN)
        .map((part) => validator.escape(part).replace(/\n/g, '<br>'))
        .join(`<a href="${safeUrl}" style="color:#1c7ed6;word-break:break-all">${safeUrl}</a>`),
    );
  return { subject, text: text.replace(CONFIRM_URL_PATTERN, () => confirmUrl), html: confirmationLayout(validator.escape(sender), paragraphs, safeUrl) };
}

/**
 * Issue 30 item 10: the HTML part is a mail of its own, not the text in paragraphs: the account's
 * name at the top, the words in a card 600 px wide at most, and a button that is the same link
 * (the written-out link stays in the words, for clients that show no buttons). Styled inline and
 * with tables, as mail clients need; nothing is loaded from anywhere. `sender` and `paragraphs`
 * are escaped HTML.
 */
function confirmationLayout(sender: string, paragraphs: string[], safeUrl: string): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:#212529">${p}</p>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="margin:0;padding:0;background:#f1f3f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f1f3f5"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:8px">
<tr><td style="padding:24px 24px 8px;font-size:20px;font-weight:700;color:#212529">${sender}</td></tr>
<tr><td style="padding:8px 24px 8px">
${body}
</td></tr>
<tr><td style="padding:0 24px 32px"><a href="${safeUrl}" style="display:inline-block;background:#1c7ed6;color:#ffffff;text-decoration:none;font-size:16px;font-weight:600;padding:12px 24px;border-radius:6px">Confirm subscription</a></td></tr>
</table>
</td></tr></table>
</body></html>`;
}
