import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import type { Db, DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Tx } from '../../db/transaction.ts';
import { findContactIdsByEmails } from '../contacts/contacts.repo.ts';
import type { FormRow, ListOptIn } from '../../db/schema.ts';
import { findListsForSubscription } from '../lists/lists.repo.ts';
import type { ClientFacts, SubscriptionService } from '../consent/subscriptions.service.ts';
import type { ContactService } from '../audience/contacts.service.ts';
import { ValidationError } from '../shared/errors.ts';
import { writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { formButtonColor, formButtonText, formConfirmRedirectUrl, formConsentText, formFields, formListIds, formName, formNotFound, formRedirectUrl, formSuccessMessage, toForm, type Form, type FormFieldInput, type FormInput } from './form.ts';
import { formsOfConsents } from '../consent/consents.repo.ts';
import { readJson as readIds } from '../shared/json.ts';
import type { GivenConsent, SubmittedContact } from './form-submission.ts';
import * as repo from './forms.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** A form as `/f/{uid}` serves it: the form, and the lists it signs people up to now. */
export interface PublicForm {
  accountId: number;
  form: Form;
  /** the form's lists that are still public lists of the account (D20), with their opt-in */
  lists: { id: number; opt_in: ListOptIn }[];
}

/**
 * D20: every list a form signs up to is a public list of the account. A missing list and a
 * private one get the same answer, so a form never tells whether another account's id exists.
 */
async function publicListIds(db: Db, accountId: number, raw: number[]): Promise<number[]> {
  const ids = formListIds(raw);
  const found = new Map((await findListsForSubscription(db, accountId, ids)).map((l) => [Number(l.id), l]));
  const refused = ids.filter((id) => found.get(id)?.is_public !== 1);
  if (refused.length > 0) throw new ValidationError(`list_ids: ${refused.join(', ')} ${refused.length === 1 ? 'is not a public list' : 'are not public lists'} of this account (a form signs up to public lists only)`);
  return ids;
}

/** Issue 34's options, each checked (undefined: not given). */
function formOptions(input: FormInput) {
  return {
    button_text: formButtonText(input.button_text),
    button_color: formButtonColor(input.button_color),
    consent_text: formConsentText(input.consent_text),
    confirm_redirect_url: formConfirmRedirectUrl(input.confirm_redirect_url),
  };
}

/** What `/f/{uid}` names: 128 random bits, so a form cannot be found by guessing. */
export const newFormUid = () => randomBytes(16).toString('base64url');

export class FormService {
  constructor(
    private readonly handle: DbHandle,
    private readonly contacts: ContactService,
    private readonly subscriptions: SubscriptionService,
  ) {}

  async create(acting: ActingContext, accountId: number, input: FormInput & { name: string; list_ids: number[]; fields: FormFieldInput[] }): Promise<Form> {
    const name = formName(input.name);
    const fields = formFields(input.fields);
    const now = nowIso();
    const row = await this.handle.db.transaction().execute(async (trx) => {
      const inserted = await repo.insertForm(trx, {
        account_id: accountId,
        uid: newFormUid(),
        name,
        list_ids: writeJson(await publicListIds(trx, accountId, input.list_ids)),
        fields: writeJson(fields),
        success_message: formSuccessMessage(input.success_message) ?? null,
        redirect_url: formRedirectUrl(input.redirect_url) ?? null,
        ...Object.fromEntries(Object.entries(formOptions(input)).map(([key, value]) => [key, value ?? null])),
        created_at: now,
        updated_at: now,
      });
      await recordAudit(trx, acting, accountId, 'form.created', { type: 'form', id: inserted.id });
      return inserted;
    });
    return toForm(row);
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageForms(this.handle.db, accountId, page);
    return toPage('forms', rows.map(toForm), total, page);
  }

  async get(accountId: number, id: number): Promise<Form> {
    return toForm(await this.require(this.handle.db, accountId, id));
  }

  /** Omitted fields keep their value; `fields` and `list_ids` replace; the uid (and so the embed code) stays. */
  async update(acting: ActingContext, accountId: number, id: number, input: FormInput): Promise<Form> {
    const changes: Parameters<typeof repo.updateForm>[3] = { updated_at: nowIso() };
    if (input.name !== undefined) changes.name = formName(input.name);
    if (input.fields !== undefined) changes.fields = writeJson(formFields(input.fields));
    if (input.success_message !== undefined) changes.success_message = formSuccessMessage(input.success_message);
    if (input.redirect_url !== undefined) changes.redirect_url = formRedirectUrl(input.redirect_url);
    Object.assign(changes, Object.fromEntries(Object.entries(formOptions(input)).filter(([key]) => input[key as keyof FormInput] !== undefined)));
    const row = await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      if (input.list_ids !== undefined) changes.list_ids = writeJson(await publicListIds(trx, accountId, input.list_ids));
      const updated = await repo.updateForm(trx, accountId, id, changes);
      await recordAudit(trx, acting, accountId, 'form.updated', { type: 'form', id });
      return updated;
    });
    return toForm(row);
  }

  /** Its `/f/{uid}` answers 404 from now on; consents given through it keep its id (D20). */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      await repo.deleteForm(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'form.deleted', { type: 'form', id });
    });
  }

  /**
   * The form `/f/{uid}` names, with the lists it signs up to now. A list made private or deleted
   * since the form was saved is left out; a form left with none takes no sign-ups and answers as
   * a deleted one (404), rather than accepting sign-ups to nothing.
   */
  async open(uid: string): Promise<PublicForm> {
    const row = await repo.findFormByUid(this.handle.db, uid);
    if (!row) throw formNotFound();
    const form = toForm(row);
    const lists = (await findListsForSubscription(this.handle.db, row.account_id, form.list_ids)).filter((l) => l.is_public === 1).map((l) => ({ id: Number(l.id), opt_in: l.opt_in }));
    if (lists.length === 0) throw formNotFound();
    return { accountId: Number(row.account_id), form, lists };
  }

  /**
   * D20: a valid submission. A new address becomes a contact with the fields given; an existing
   * contact is left exactly as it is (fields and status) and only gains memberships: SUBSCRIBED on
   * a `single` list, UNCONFIRMED on a `double` one with the confirmation mail sent, and a consent
   * record (FORM, the form's id, the client's address and user agent). One transaction: a new
   * contact never stays without the memberships it signed up for, and the confirmation mail is
   * that transaction's after-commit work.
   */
  async signUp(published: PublicForm, submitted: SubmittedContact, client: ClientFacts, consent: GivenConsent | null = null): Promise<void> {
    const submit = () =>
      this.subscriptions.transaction(async (trx) => {
        const contactId = await this.contactFor(trx, published.accountId, submitted);
        await this.subscriptions.subscribeIn(trx, {
          accountId: published.accountId,
          contactId,
          listIds: published.lists.map((l) => l.id),
          source: 'FORM',
          formId: published.form.id,
          statement: consent?.text ?? null,
          doubleOptIn: true,
          ...client,
        });
      });
    try {
      await submit();
    } catch (err) {
      // A second submission of the same new address at the same moment: its insert met the first's
      // row, which aborts a PostgreSQL transaction. Once more, it finds that contact and goes on.
      if (!isUniqueViolation(err)) throw err;
      await submit();
    }
  }

  /**
   * Issue 34: where a person who just confirmed `listIds` by mail is sent: the confirm redirect of
   * the newest of the account's forms that signed the contact up to any of those lists and has
   * one; null: the confirmation page is shown. Read from the contact's own consent records, so the
   * confirmation link itself names no form.
   */
  async confirmRedirectFor(accountId: number, contactId: number, listIds: readonly number[]): Promise<string | null> {
    if (listIds.length === 0) return null;
    const confirmed = new Set(listIds);
    const seen = new Set<number>();
    for (const consent of await formsOfConsents(this.handle.db, accountId, contactId)) {
      if (seen.has(consent.form_id) || !readIds<number[]>(consent.list_ids, []).some((id) => confirmed.has(Number(id)))) continue;
      seen.add(consent.form_id);
      const row = await repo.findForm(this.handle.db, accountId, consent.form_id);
      if (row?.confirm_redirect_url) return row.confirm_redirect_url;
    }
    return null;
  }

  /** The contact with the address: created through the contacts service when new, else the existing one untouched. */
  private async contactFor(trx: Tx, accountId: number, submitted: SubmittedContact): Promise<number> {
    const existing = (await findContactIdsByEmails(trx, accountId, [submitted.email])).get(submitted.email);
    if (existing !== undefined) return existing;
    return (await this.contacts.createIn(trx, accountId, submitted, {}, true)).id;
  }

  private async require(db: Db, accountId: number, id: number): Promise<FormRow> {
    const row = await repo.findForm(db, accountId, id);
    if (!row) throw formNotFound();
    return row;
  }
}
