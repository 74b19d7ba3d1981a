import { buttonTextColor, CONSENT_FIELD, DEFAULT_BUTTON_TEXT, fieldMaxLength, HONEYPOT_FIELD, RETURN_TO_FIELD, returnToUrl, type Form, type FormField } from '../../domain/forms/form.ts';
import type { ListOptIn } from '../../db/schema.ts';
import { escapeHtml, heading, publicPage } from './unsubscribe-pages.ts';

/**
 * D20: a sign-up form's HTML. One markup serves the embed snippet (plain: it takes the embedding
 * site's styles, needs no script, and posts to `/f/{uid}`) and the hosted page (the same form in
 * the public pages' shell, with a stylesheet, the values given and each field's problem beside it).
 * Every value is escaped.
 */

/** What a browser offers for each contact field: the keyboard and autofill that fit it. */
function inputAttributes(name: string): string {
  if (name === 'email') return 'type="email" autocomplete="email" inputmode="email"';
  if (name === 'first_name') return 'type="text" autocomplete="given-name"';
  if (name === 'last_name') return 'type="text" autocomplete="family-name"';
  return 'type="text"';
}

export interface FormState {
  /** the text given for each field, shown again after a refusal */
  values?: Record<string, unknown>;
  /** field name -> what is wrong with it */
  problems?: Map<string, string>;
  /** issue 34: the page the visitor came from, carried through the post to the thank-you page's link */
  returnTo?: string | null;
}

/** Issue 34: the consent checkbox with the marketer's words (escaped: plain text), required by the browser and the server. */
function consentHtml(form: Form, id: string, state: FormState): string {
  if (form.consent_text === null) return '';
  const problem = state.problems?.get(CONSENT_FIELD);
  const given = state.values?.[CONSENT_FIELD];
  const checked = typeof given === 'string' && given !== '' && !problem ? ' checked' : '';
  const invalid = problem ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  const error = problem ? `<span class="sendwell-error" id="${id}-error">${escapeHtml(`Please tick the box: it ${problem}.`)}</span>` : '';
  return (
    `<p class="sendwell-consent"><label for="${id}"><input id="${id}" type="checkbox" name="${CONSENT_FIELD}" value="yes" required${checked}${invalid}> ` +
    `<span style="white-space:pre-line">${escapeHtml(form.consent_text)}</span></label>${error}</p>\n`
  );
}

/** Issue 34: the button with the form's words and colour; a colour set is inline, so the embed code carries it too. */
function buttonHtml(form: Form): string {
  const colour = form.button_color;
  const style = colour ? ` style="background:${colour};border-color:${colour};color:${buttonTextColor(colour)}"` : '';
  return `<p class="sendwell-submit"><button type="submit"${style}>${escapeHtml(form.button_text ?? DEFAULT_BUTTON_TEXT)}</button></p>`;
}

function fieldHtml(field: FormField, id: string, state: FormState): string {
  const given = state.values?.[field.name];
  const value = typeof given === 'string' ? ` value="${escapeHtml(given)}"` : '';
  const problem = state.problems?.get(field.name);
  const invalid = problem ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  const required = field.required ? ' required' : '';
  const mark = field.required ? '<span class="sendwell-required" aria-hidden="true"> *</span>' : '';
  const error = problem ? `<span class="sendwell-error" id="${id}-error">${escapeHtml(`${field.label} ${problem}`)}</span>` : '';
  return (
    `<p class="sendwell-field"><label for="${id}">${escapeHtml(field.label)}${mark}</label>\n` +
    `<input id="${id}" name="${escapeHtml(field.name)}" ${inputAttributes(field.name)} maxlength="${fieldMaxLength(field.name)}"${required}${value}${invalid}>${error}</p>`
  );
}

/** The `<form>` itself. Ids carry the start of the uid, so two forms on one page never share one. */
export function formHtml(form: Form, action: string, state: FormState = {}): string {
  const prefix = `sendwell-${form.uid.slice(0, 8)}`;
  const declared = new Set(form.fields.map((f) => f.name));
  // Problems with names the form does not declare come from crafted requests; said once, above the fields.
  const stray = [...(state.problems ?? [])].filter(([name]) => !declared.has(name));
  const summary = state.problems?.size
    ? `<p class="sendwell-alert" role="alert">Please correct the ${state.problems.size === 1 ? 'field' : 'fields'} below.${stray.map(([name, problem]) => ` ${escapeHtml(`${name} ${problem}.`)}`).join('')}</p>\n`
    : '';
  const fields = form.fields.map((field, i) => fieldHtml(field, `${prefix}-${i}`, state)).join('\n');
  // The honeypot (D20): hidden from people and from autofill, so only a robot fills it.
  const honeypot = `<p hidden><label>Leave this empty <input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></p>`;
  const returnTo = state.returnTo ?? returnToUrl(state.values?.[RETURN_TO_FIELD]);
  const back = returnTo ? `<input type="hidden" name="${RETURN_TO_FIELD}" value="${escapeHtml(returnTo)}">\n` : '';
  return (
    `<form class="sendwell-form" method="post" action="${escapeHtml(action)}" accept-charset="utf-8">\n${summary}${fields}\n${consentHtml(form, `${prefix}-consent`, state)}${back}${honeypot}\n` +
    `${buttonHtml(form)}\n</form>`
  );
}

/** The snippet a site pastes in: posts to PUBLIC_URL's `/f/{uid}` from any page. */
export function embedHtml(form: Form, publicUrl: string): string {
  return formHtml(form, hostedFormUrl(form, publicUrl));
}

export const hostedFormUrl = (form: Form, publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/f/${form.uid}`;

/** Readable on a phone: full-width inputs at 16px (no zoom on focus), large touch targets. */
const STYLE = `<style>
.sendwell-form{margin:1rem 0 0}
.sendwell-field{margin:0 0 1rem}
.sendwell-field label{display:block;font-weight:600;margin:0 0 .3rem}
.sendwell-field input{box-sizing:border-box;width:100%;font:inherit;font-size:16px;padding:.6rem .75rem;border:1px solid #ced4da;border-radius:6px;background:#fff;color:inherit}
.sendwell-field input:focus{outline:2px solid #74c0fc;outline-offset:0;border-color:#228be6}
.sendwell-field input[aria-invalid="true"]{border-color:#e03131}
.sendwell-required{color:#e03131}
.sendwell-error{display:block;color:#c92a2a;font-size:14px;margin:.3rem 0 0}
.sendwell-alert{background:#fff5f5;border:1px solid #ffc9c9;color:#c92a2a;border-radius:6px;padding:.6rem .75rem;font-size:14px}
.sendwell-consent{margin:0 0 1rem;font-size:15px}
.sendwell-consent label{display:flex;gap:.6rem;align-items:flex-start;cursor:pointer}
.sendwell-consent input{width:1.15rem;height:1.15rem;margin:.15rem 0 0;flex:none}
.sendwell-back{margin:1.25rem 0 0}
.sendwell-submit{margin:1.25rem 0 0}
.sendwell-submit button{font:inherit;font-weight:600;width:100%;padding:.7rem 1.2rem;border-radius:6px;border:1px solid #228be6;background:#228be6;color:#fff;cursor:pointer}
@media (min-width:36em){.sendwell-submit button{width:auto}}
</style>`;

const FOOTER = 'Powered by Sendwell';

export function hostedFormPage(form: Form, action: string, state: FormState = {}): string {
  return publicPage(form.name, `${heading(form.name)}\n${formHtml(form, action, state)}`, { head: STYLE, footer: FOOTER });
}

/** D20: the form's own message, else one that says whether a confirmation mail is on its way. */
export function successMessageOf(form: Form, lists: { opt_in: ListOptIn }[]): string {
  if (form.success_message) return form.success_message;
  return lists.some((l) => l.opt_in === 'double')
    ? 'Thank you! Please check your inbox: we sent you a link to confirm your subscription.'
    : 'Thank you for subscribing!';
}

/**
 * Issue 34: the thank-you page links back to where the visitor came from (an http(s) URL only,
 * named by its host so the person sees where it leads); it never sends them there by itself.
 */
export function formAnswerPage(title: string, message: string, backTo: string | null = null): string {
  const back = backTo ? `<p class="sendwell-back"><a href="${escapeHtml(backTo)}" rel="noopener noreferrer nofollow">${escapeHtml(`← Back to ${new URL(backTo).host}`)}</a></p>` : '';
  return publicPage(title, `${heading(title)}<p style="white-space:pre-line">${escapeHtml(message)}</p>${back}`, { head: STYLE, footer: FOOTER });
}

export const FORM_MISSING_PAGE = formAnswerPage('Form not found', 'This sign-up form does not exist, or no longer takes sign-ups.');

export const tooManyPage = (seconds: number) => formAnswerPage('Too many sign-ups', `Too many sign-ups from your address. Please try again in ${seconds} seconds.`);
