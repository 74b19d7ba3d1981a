import type { UnsubscribePage } from '../../engagement/engagement.service.ts';

/**
 * D17.1: the pages a person sees after following an unsubscribe link. Plain HTML with inline
 * styles (the route's CSP allows no script and no outside resource), readable on a phone, in the
 * dashboard's colours, naming the sender. Every value from the database is escaped.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The public pages' shell (unsubscribe, sign-up forms): `head` may add a `<style>` (the CSP allows
 * inline styles, nothing else); `footer` is the small line under the card.
 */
export function publicPage(title: string, body: string, { head = '', footer = 'Sent with Sendwell' }: { head?: string; footer?: string } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${head}</head>
<body style="margin:0;background:#f8f9fa;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#212529;line-height:1.5">
<main style="max-width:30rem;margin:8vh auto;padding:0 1rem">
<div style="background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:1.5rem 1.75rem;overflow-wrap:anywhere">
${body}
</div>
<p style="text-align:center;font-size:12px;color:#868e96;margin-top:1rem">${escapeHtml(footer)}</p>
</main></body></html>`;
}

const TONES = {
  primary: 'background:#228be6;color:#fff;border:1px solid #228be6',
  secondary: 'background:#fff;color:#228be6;border:1px solid #228be6',
  danger: 'background:#fff;color:#e03131;border:1px solid #e03131',
} as const;
export type ButtonTone = keyof typeof TONES;

/** A button that posts `action` (and any other hidden `fields`) to `formAction`: each page action is a form of its own, so no script is needed. */
export const button = (action: string, label: string, formAction: string, tone: ButtonTone, fields: Record<string, string> = {}) =>
  `<form method="post" action="${escapeHtml(formAction)}" style="margin:1.25rem 0 0">${Object.entries({ action, ...fields })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('')}<button type="submit" style="font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:6px;cursor:pointer;${TONES[tone]}">${escapeHtml(label)}</button></form>`;

export const heading = (text: string) => `<h1 style="font-size:1.35rem;margin:0 0 .75rem">${escapeHtml(text)}</h1>`;
const who = (facts: UnsubscribePage) => `<b>${escapeHtml(facts.email)}</b>`;
const sender = (facts: UnsubscribePage) => `<b>${escapeHtml(facts.sender)}</b>`;

/** GET: asks, or says the address is already unsubscribed and offers to subscribe again. */
export function unsubscribeQuestionPage(facts: UnsubscribePage, formAction: string): string {
  if (facts.status === 'UNSUBSCRIBED') return unsubscribedPage(facts, formAction, 'You are already unsubscribed');
  if (facts.status === 'BOUNCED' || facts.status === 'COMPLAINED' || facts.status === null) {
    return publicPage('Unsubscribed', `${heading('You will not get these e-mails')}<p>${who(facts)} is not on ${sender(facts)}'s mailing list.</p>`);
  }
  return publicPage(
    'Unsubscribe',
    `${heading('Unsubscribe?')}<p>Stop e-mails from ${sender(facts)} to ${who(facts)}?</p>${button('unsubscribe', 'Unsubscribe', formAction, 'primary')}`,
  );
}

/** After the page's form: the address is out, with the way back in. */
export function unsubscribedPage(facts: UnsubscribePage, formAction: string, title = 'You are unsubscribed'): string {
  if (facts.status === 'BOUNCED' || facts.status === 'COMPLAINED' || facts.status === null) return unsubscribeQuestionPage(facts, formAction);
  return publicPage(
    'Unsubscribed',
    `${heading(title)}<p>${who(facts)} will get no more e-mails from ${sender(facts)}.</p><p style="color:#495057;font-size:14px">Unsubscribed by mistake?</p>${button('resubscribe', 'Subscribe again', formAction, 'secondary')}`,
  );
}

/** After "subscribe again": what happened. */
export function resubscribedPage(facts: UnsubscribePage, formAction: string): string {
  if (facts.status === 'SUBSCRIBED') {
    return publicPage('Subscribed again', `${heading('You are subscribed again')}<p>${who(facts)} will get e-mails from ${sender(facts)} again.</p>${button('unsubscribe', 'Unsubscribe', formAction, 'secondary')}`);
  }
  // D17.5: a bounced or complained address is not put back by a link.
  return publicPage('Not subscribed', `${heading('This address cannot be subscribed again here')}<p>${who(facts)} stays off ${sender(facts)}'s mailing list. Ask ${sender(facts)} to add it again.</p>`);
}

export const TEST_MESSAGE_PAGE = publicPage('Test message', `${heading('This was a test message')}<p>Its unsubscribe link works in real sends; here nobody was unsubscribed.</p>`);
