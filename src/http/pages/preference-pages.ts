import type { PreferenceCentrePage } from '../../engagement/preference-centre.service.ts';
import { button, escapeHtml, heading, publicPage } from './unsubscribe-pages.ts';
import { CONTACT_LIMITS } from '../../domain/contacts/contact-fields.ts';

/**
 * D20's preference centre and D21's actions in it, as the person sees them after following the
 * link in a mail: the same stand-alone pages as D17.1's (no script, nothing from elsewhere, every
 * value escaped), each action a form posting back to the page's own address.
 */

const subheading = (text: string) => `<h2 style="font-size:1.05rem;margin:1.75rem 0 .25rem;padding-top:1.25rem;border-top:1px solid #dee2e6">${escapeHtml(text)}</h2>`;
const muted = (html: string) => `<p style="color:#495057;font-size:14px;margin:.25rem 0">${html}</p>`;
const notice = (html: string) => `<p role="status" style="background:#e7f5ff;border:1px solid #a5d8ff;border-radius:6px;padding:.6rem .8rem">${html}</p>`;
const who = (facts: PreferenceCentrePage) => `<b>${escapeHtml(facts.email)}</b>`;
const sender = (facts: PreferenceCentrePage) => `<b>${escapeHtml(facts.sender)}</b>`;

/** What the contact's status means for the lists chosen here (D20: the page never changes the status). */
function statusNote(facts: PreferenceCentrePage): string {
  if (facts.status === 'UNSUBSCRIBED') return muted(`${who(facts)} is unsubscribed from all e-mails from ${sender(facts)}: the lists chosen here take effect only if the address subscribes again.`);
  if (facts.status === 'BOUNCED' || facts.status === 'COMPLAINED') return muted(`${sender(facts)} does not send to ${who(facts)} at the moment, whatever lists are chosen here.`);
  return '';
}

function listChoices(facts: PreferenceCentrePage, formAction: string): string {
  if (facts.lists.length === 0) return `<p>${sender(facts)} has no lists to choose from.</p>`;
  const rows = facts.lists
    .map(
      (l) =>
        `<label style="display:flex;gap:.75rem;align-items:flex-start;padding:.65rem 0;border-top:1px solid #f1f3f5;cursor:pointer"><input type="checkbox" name="list_ids" value="${l.id}"${
          l.subscribed ? ' checked' : ''
        } style="width:1.15rem;height:1.15rem;margin:.2rem 0 0;flex:none"><span><span style="font-weight:600">${escapeHtml(l.name)}</span>${
          l.awaitingConfirmation ? ' <span style="color:#e8590c;font-size:13px">(waiting for your confirmation)</span>' : ''
        }${l.description ? `<br><span style="color:#495057;font-size:14px">${escapeHtml(l.description)}</span>` : ''}</span></label>`,
    )
    .join('');
  return `<form method="post" action="${escapeHtml(formAction)}" style="margin:1rem 0 0"><input type="hidden" name="action" value="update"><fieldset style="border:0;margin:0;padding:0"><legend style="font-weight:600;margin-bottom:.25rem">Lists</legend>${rows}</fieldset><button type="submit" style="font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:6px;cursor:pointer;margin-top:1rem;background:#228be6;color:#fff;border:1px solid #228be6">Save my choices</button></form>`;
}

const INPUT = 'box-sizing:border-box;width:100%;font:inherit;font-size:16px;padding:.55rem .7rem;border:1px solid #ced4da;border-radius:6px;background:#fff;color:inherit';
const textInput = (id: string, name: string, label: string, value: string, attrs: string) =>
  `<p style="margin:0 0 .85rem"><label for="${id}" style="display:block;font-weight:600;margin:0 0 .25rem">${escapeHtml(label)}</label><input id="${id}" name="${escapeHtml(name)}" value="${escapeHtml(value)}" ${attrs} style="${INPUT}"></p>`;

/** Issue 34: the person's own name and the custom fields the account lets them edit, each input as its type wants. */
function detailsForm(facts: PreferenceCentrePage, formAction: string, refused?: Map<string, string>): string {
  const { details } = facts;
  const fields = details.fields.map((f, i) => {
    const name = `custom_fields.${f.key}`;
    const id = `detail-${i}`;
    if (f.type === 'boolean') {
      return `<p style="margin:0 0 .85rem"><input type="hidden" name="${escapeHtml(name)}" value="false"><label style="display:flex;gap:.6rem;align-items:center;font-weight:600;cursor:pointer"><input id="${id}" type="checkbox" name="${escapeHtml(name)}" value="true"${f.value === true ? ' checked' : ''} style="width:1.15rem;height:1.15rem;margin:0"> ${escapeHtml(f.label)}</label></p>`;
    }
    const value = f.value === undefined || f.value === null || typeof f.value === 'boolean' ? '' : String(f.value);
    return textInput(id, name, f.label, value, f.type === 'number' ? 'type="number" step="any" inputmode="decimal"' : `type="text" maxlength="${CONTACT_LIMITS.customStringMax}"`);
  });
  const problems = refused?.size
    ? `<p role="alert" style="background:#fff5f5;border:1px solid #ffc9c9;color:#c92a2a;border-radius:6px;padding:.6rem .8rem">Nothing was saved: ${escapeHtml([...refused].map(([name, problem]) => `${name} ${problem}`).join('; '))}.</p>`
    : '';
  return (
    `<form method="post" action="${escapeHtml(formAction)}" aria-label="Your details" style="margin:.75rem 0 0">${problems}<input type="hidden" name="action" value="details">` +
    textInput('detail-first', 'first_name', 'First name', details.first_name ?? '', `type="text" autocomplete="given-name" maxlength="${CONTACT_LIMITS.nameMax}"`) +
    textInput('detail-last', 'last_name', 'Last name', details.last_name ?? '', `type="text" autocomplete="family-name" maxlength="${CONTACT_LIMITS.nameMax}"`) +
    `${fields.join('')}<button type="submit" style="font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:6px;cursor:pointer;background:#228be6;color:#fff;border:1px solid #228be6">Save my details</button></form>`
  );
}

/** Issue 28 L1: where the page reached from a web view sends the person for D21's actions. */
const DATA_ACTIONS_ELSEWHERE = 'To download or erase your data, open the preference link at the bottom of the e-mail itself. This page was reached from the message\'s web page, whose address can be shared, so it cannot do that.';

/**
 * GET, and the answer to each change: the lists with the contact's, and the other actions.
 * `dataActions` false (the link of a web view page, issue 28 L1): no export or erase, and why.
 */
export function preferencesPage(facts: PreferenceCentrePage, formAction: string, said?: string, dataActions = true, refused?: Map<string, string>): string {
  const data = dataActions
    ? `${muted(`Download everything ${sender(facts)} holds about you, or erase it.`)}${button('export', 'Download my data', formAction, 'secondary')}${button('erase', 'Erase my data', formAction, 'danger')}`
    : muted(escapeHtml(DATA_ACTIONS_ELSEWHERE));
  return publicPage(
    'Your subscriptions',
    `${heading('Your subscriptions')}${said ? notice(escapeHtml(said)) : ''}<p>Choose what ${sender(facts)} sends to ${who(facts)}.</p>${statusNote(facts)}${listChoices(facts, formAction)}` +
      `${subheading('Your details')}${muted(`What ${sender(facts)} knows you by.`)}${detailsForm(facts, formAction, refused)}` +
      `${subheading('Unsubscribe from everything')}${muted(`No more e-mails from ${sender(facts)} to this address.`)}${button('unsubscribe_all', 'Unsubscribe from all', formAction, 'secondary')}` +
      `${subheading('Your data')}${data}`,
  );
}

/** Issue 28 L1: `action=export` or `action=erase` through a web view's preference link: refused (403), nothing done. */
export const DATA_ACTIONS_ELSEWHERE_PAGE = publicPage('Use the link in the e-mail', `${heading('Use the link in the e-mail')}<p>${escapeHtml(DATA_ACTIONS_ELSEWHERE)}</p><p>Nothing was changed.</p>`);

/** D21: `action=erase` asks first; only `action=erase&confirm=yes` erases. */
export function eraseQuestionPage(facts: PreferenceCentrePage, formAction: string): string {
  return publicPage(
    'Erase your data?',
    `${heading('Erase your data?')}<p>${sender(facts)} will delete ${who(facts)} and everything tied to it: your list memberships, consent records and activity. Campaigns already sent are kept in their totals without your address.</p>` +
      `<p>You will get no more e-mails from ${sender(facts)}, unless you sign up again through one of its forms and confirm the e-mail that follows. This cannot be undone.</p>` +
      `${button('erase', 'Yes, erase my data', formAction, 'danger', { confirm: 'yes' })}<form method="get" action="${escapeHtml(formAction)}" style="margin:.75rem 0 0"><button type="submit" style="font:inherit;padding:.55rem 1.1rem;border-radius:6px;cursor:pointer;background:#fff;color:#495057;border:1px solid #ced4da">No, go back</button></form>`,
  );
}

/** After the erasure: nothing is held any more, so the page names nobody. */
export function erasedPage(senderName: string): string {
  return publicPage('Your data is erased', `${heading('Your data is erased')}<p><b>${escapeHtml(senderName)}</b> holds nothing about you any more and will not e-mail you again.</p>`);
}

/** A link whose contact is gone (deleted or erased): there is nothing to manage. */
export function nothingHeldPage(senderName: string): string {
  return publicPage('Nothing to manage', `${heading('Nothing to manage here')}<p>This address is no longer among <b>${escapeHtml(senderName)}</b>'s contacts, and nothing is held for it.</p>`);
}

/** A test message's preference link: it works in real sends; here it changes nothing. */
export const TEST_PREFERENCES_PAGE = publicPage('Test message', `${heading('This was a test message')}<p>Its preference centre link works in real sends; here nothing was changed.</p>`);
