import type { ConfirmationFacts } from '../../domain/consent/subscriptions.service.ts';
import { listNames } from '../../domain/consent/confirmation-mail.ts';
import { escapeHtml, heading, publicPage } from './unsubscribe-pages.ts';

/**
 * D20: the pages of the double opt-in link, in the unsubscribe pages' style (one card, no script,
 * readable on a phone). GET only asks (mail scanners open links; a GET changes nothing); the
 * button POSTs back to the same link. Every value from the database is escaped.
 */
const who = (facts: ConfirmationFacts) => `<b>${escapeHtml(facts.email)}</b>`;
const sender = (facts: ConfirmationFacts) => `<b>${escapeHtml(facts.sender)}</b>`;
const lists = (facts: ConfirmationFacts) => `<b>${escapeHtml(listNames(facts.lists.map((l) => l.name)))}</b>`;

const confirmButton = (formAction: string) =>
  `<form method="post" action="${escapeHtml(formAction)}" style="margin:1.25rem 0 0"><button type="submit" style="font:inherit;font-weight:600;padding:.65rem 1.25rem;border-radius:6px;cursor:pointer;background:#228be6;color:#fff;border:1px solid #228be6;width:100%;max-width:18rem">Confirm my subscription</button></form>`;

/** GET: the lists waiting, with the button; or, nothing waiting, says so. */
export function confirmQuestionPage(facts: ConfirmationFacts, formAction: string): string {
  if (facts.lists.length === 0) return nothingWaitingPage(facts);
  return publicPage(
    'Confirm your subscription',
    `${heading('Confirm your subscription')}<p>${who(facts)} asked to get e-mails from ${sender(facts)}: ${lists(facts)}.</p><p style="color:#495057;font-size:14px">Nothing is sent until you confirm. If it was not you, close this page.</p>${confirmButton(formAction)}`,
  );
}

/** POST: what was confirmed. */
export function confirmedPage(facts: ConfirmationFacts): string {
  if (facts.lists.length === 0) return nothingWaitingPage(facts);
  return publicPage('Subscription confirmed', `${heading('Thank you: your subscription is confirmed')}<p>${who(facts)} will get e-mails from ${sender(facts)}: ${lists(facts)}.</p>`);
}

function nothingWaitingPage(facts: ConfirmationFacts): string {
  return publicPage('Nothing to confirm', `${heading('Nothing waits for confirmation')}<p>${who(facts)} has no subscription to ${sender(facts)} waiting to be confirmed: it is confirmed already, or was changed since.</p>`);
}
