import type { ActingContext } from '../shared/actor.ts';
import type { Db, DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Tx } from '../../db/transaction.ts';
import { readHere, type ReadPool } from '../../db/read-pool.ts';
import { removeContactFromAllLists } from '../lists/lists.repo.ts';
import type { ClientFacts, SubscriptionService } from '../consent/subscriptions.service.ts';
import type { Consent } from '../consent/consent.ts';
import { resolveListRef } from '../lists/lists.service.ts';
import { ConflictError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import {
  CONTACT_LIMITS,
  CONTACT_STATUSES,
  mergeCustomFields,
  normaliseName,
  normalisePhone,
  normaliseTags,
  type ContactStatus,
  type CustomFields,
} from '../contacts/contact-fields.ts';
import { tagActivities, type Activity, type AnnounceActivity } from '../contacts/activity.ts';
import { contactNotFound, toContact, type Contact } from '../contacts/contact.ts';
import * as repo from '../contacts/contacts.repo.ts';
import type { ContactFilter, ContactWithLists } from '../contacts/contacts.repo.ts';
import { suppressReturningErasedAddresses } from '../suppressions/erased-addresses.ts';
import { ERASED_ADDRESS_WARNING } from '../suppressions/suppression.ts';
import { emailKey, normaliseEmail } from '../shared/email-address.ts';
// audience/ stands above segments/, so the contact list's segment filter takes the segment's SQL directly.
import { segmentMatching } from '../segments/segments.service.ts';
import { contactExport, type ContactExport } from '../contacts/contacts-export.ts';
import { findList } from '../lists/lists.repo.ts';
import { listNotFound } from '../lists/list.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** The contacts list's filters (GET /contacts and its export). */
type ContactQuery = Omit<ContactFilter, 'matching' | 'order' | 'member_of' | 'membership_status'> & { segment_id?: number };

export { contactNotFound, toContact, type Contact } from '../contacts/contact.ts';

export interface ContactChanges {
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  tags?: string[];
  custom_fields?: Record<string, unknown>;
  list_id?: number | null;
  list_name?: string | null;
  /** D20: on a `double` list, the membership waits UNCONFIRMED and the person gets the confirmation mail */
  double_opt_in?: boolean;
}

export interface CreateContactInput extends ContactChanges {
  email: string;
}

export interface UpdateContactInput extends ContactChanges {
  status?: string;
}

/** A new contact's columns from the API's input, each normalised as D11 says (a 400 for what is not allowed). */
function newContactFields(input: CreateContactInput) {
  return {
    email: normaliseEmail(input.email),
    first_name: normaliseName('first_name', input.first_name) ?? null,
    last_name: normaliseName('last_name', input.last_name) ?? null,
    phone: normalisePhone(input.phone) ?? null,
    tags: writeJson(normaliseTags(input.tags ?? [])),
    custom_fields: writeJson(mergeCustomFields({}, input.custom_fields ?? {})),
  };
}

export class ContactService {
  constructor(
    private readonly handle: DbHandle,
    private readonly subscriptions: SubscriptionService,
    private readonly reads: ReadPool,
    /** automations' announcement of a contact's changes (a port: automations/ stands above contacts/) */
    private readonly announce: AnnounceActivity,
  ) {}

  /** `acting`: who creates it (D24.8); its address and user agent are also the consent record's of a list added (D20). */
  async create(acting: ActingContext, accountId: number, input: CreateContactInput): Promise<{ contact: Contact; warnings: string[] }> {
    // Bad input is refused before a transaction (and SQLite's write lock) is taken.
    const fields = newContactFields(input);
    try {
      // D20: a confirmation mail for a list given goes after the commit, as the transaction's own work.
      const created = await this.subscriptions.transaction(async (trx) => {
        const inserted = await this.insertIn(trx, accountId, fields, input, acting, false);
        // D24.8: one small insert, no read (issue 35's write path); a form's sign-up (createIn) is the person's own, not recorded.
        await recordAudit(trx, acting, accountId, 'contact.created', { type: 'contact', id: inserted.contact.id });
        return inserted;
      });
      // D26.6: the answer says what the 200 alone would hide: this address will not be mailed.
      return { contact: created.contact, warnings: created.erased ? [ERASED_ADDRESS_WARNING] : [] };
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('CONTACT_ALREADY_EXISTS', `a contact with e-mail ${fields.email} already exists`);
      throw err;
    }
  }

  /**
   * `create` in the caller's transaction (a form's sign-up). An address the account has already
   * rejects with the unique violation, which aborts a PostgreSQL transaction: the caller looks first.
   */
  async createIn(trx: Tx, accountId: number, input: CreateContactInput, client: ClientFacts = {}, signUp = false): Promise<Contact> {
    return (await this.insertIn(trx, accountId, newContactFields(input), input, client, signUp)).contact;
  }

  /** `erased`: the address was erased before (D21), so it is suppressed again and not mailed. */
  private async insertIn(trx: Tx, accountId: number, newFields: ReturnType<typeof newContactFields>, input: CreateContactInput, client: ClientFacts, signUp: boolean): Promise<{ contact: Contact; erased: boolean }> {
    const { email, ...fields } = newFields;
    const listId = await resolveListRef(trx, accountId, input);
    const now = nowIso();
    // An e-mail already in the account is refused by the unique constraint (`create` answers it as
    // CONTACT_ALREADY_EXISTS), not by a lookup first: one round trip fewer on every create, and
    // the constraint is what holds against two creates at once anyway.
    // Issue 28 M3: a contact made by asking for a double opt-in (a form's sign-up, or the API's
    // `double_opt_in` with a list) is mailed nothing but its confirmation until the person
    // confirms; a SUBSCRIBED membership made in the same transaction (a single opt-in list)
    // clears the flag again (lists.repo).
    const awaiting = signUp || (listId !== null && input.double_opt_in === true);
    const row = await repo.insertContact(trx, { account_id: accountId, email, ...fields, status: 'SUBSCRIBED', awaiting_confirmation: awaiting ? 1 : 0, created_at: now, updated_at: now });
    const id = row.id;
    // D21: an address erased before stays unmailed until a double opt-in brings it back.
    const erased = (await suppressReturningErasedAddresses(trx, accountId, [email], now)).length > 0;
    const activities: Activity[] = [{ type: 'CONTACT_CREATED', contactId: id }, ...tagActivities(id, [], readJson<string[]>(fields.tags, []))];
    const subscription = listId === null ? null : await this.subscribeToList(trx, accountId, id, listId, input, client);
    // A new contact's memberships are the one it was just given, if any: no need to read them back.
    const contact = toContact({ ...row, memberships: writeJson(subscription?.lists ?? []) });
    await this.announce(trx, accountId, activities, [{ type: 'contact.created', contact }]);
    return { contact, erased };
  }

  async get(accountId: number, rawEmail: string): Promise<Contact> {
    return toContact(await this.require(this.handle.db, accountId, rawEmail));
  }

  /** Omitted fields keep their value; `tags` replaces; `custom_fields` merges (D11). */
  async update(acting: ActingContext, accountId: number, rawEmail: string, input: UpdateContactInput): Promise<Contact> {
    if (input.status !== undefined && input.status !== 'SUBSCRIBED' && input.status !== 'UNSUBSCRIBED') {
      throw new ValidationError('status can only be set to SUBSCRIBED or UNSUBSCRIBED');
    }
    // D20: a confirmation mail for a list given goes after the commit, as the transaction's own work.
    return this.subscriptions.transaction(async (trx) => {
      const current = await this.require(trx, accountId, rawEmail);
      const listId = await resolveListRef(trx, accountId, input);
      const changes: Parameters<typeof repo.updateContact>[2] = { updated_at: nowIso() };
      if (input.first_name !== undefined) changes.first_name = normaliseName('first_name', input.first_name);
      if (input.last_name !== undefined) changes.last_name = normaliseName('last_name', input.last_name);
      if (input.phone !== undefined) changes.phone = normalisePhone(input.phone);
      if (input.tags !== undefined) changes.tags = writeJson(normaliseTags(input.tags));
      if (input.custom_fields !== undefined) {
        changes.custom_fields = writeJson(mergeCustomFields(readJson<CustomFields>(current.custom_fields, {}), input.custom_fields));
      }
      await repo.updateContact(trx, current.id, changes);
      // D17.5: an explicit PUT may set SUBSCRIBED or UNSUBSCRIBED from any status (D11).
      if (input.status !== undefined) await repo.applyStatusChange(trx, current.id, input.status === 'SUBSCRIBED' ? 'PUT_SUBSCRIBED' : 'PUT_UNSUBSCRIBED', changes.updated_at!);
      // Issue 28 M3: the account says the person is SUBSCRIBED, as D20's API add without double opt-in vouches.
      if (input.status === 'SUBSCRIBED') await repo.clearAwaitingConfirmation(trx, [current.id]);
      const activities: Activity[] = changes.tags === undefined ? [] : tagActivities(current.id, readJson<string[]>(current.tags, []), readJson<string[]>(changes.tags, []));
      if (listId !== null) await this.subscribeToList(trx, accountId, current.id, listId, input, acting);
      const contact = toContact(await repo.findContactById(trx, this.handle.dialect, current.id));
      const unsubscribed = current.status === 'SUBSCRIBED' && contact.status === 'UNSUBSCRIBED';
      // D24.8: one entry per PUT; a status it changes (an unsubscribe through the API) is named by the action.
      const action = contact.status === current.status ? 'contact.updated' : contact.status === 'UNSUBSCRIBED' ? 'contact.unsubscribed' : 'contact.resubscribed';
      await recordAudit(trx, acting, accountId, action, { type: 'contact', id: current.id });
      await this.announce(trx, accountId, activities, [
        { type: 'contact.updated', contact },
        ...(unsubscribed ? [{ type: 'contact.unsubscribed' as const, contact }] : []),
      ]);
      return contact;
    });
  }

  /** D11's `list_id` / `list_name` as a D20 subscription by the API: the caller vouches unless it asks for double opt-in. */
  private subscribeToList(trx: Tx, accountId: number, contactId: number, listId: number, input: ContactChanges, client: ClientFacts) {
    return this.subscriptions.subscribeIn(trx, { accountId, contactId, listIds: [listId], source: 'API', doubleOptIn: input.double_opt_in === true, ip: client.ip, userAgent: client.userAgent });
  }

  /** D20: the contact's consent records, oldest first. */
  async consents(accountId: number, rawEmail: string): Promise<Consent[]> {
    const contact = await this.require(this.handle.db, accountId, rawEmail);
    return this.subscriptions.consentsOf(accountId, contact.id);
  }

  /** Campaign recipient rows keep their e-mail and times (contact_id is nulled), so statistics never change. */
  async delete(acting: ActingContext, accountId: number, rawEmail: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, rawEmail);
      await removeContact(trx, current.id);
      await recordAudit(trx, acting, accountId, 'contact.deleted', { type: 'contact', id: current.id });
    });
  }

  async page(accountId: number, query: ContactQuery, page: PageRequest) {
    const { filter, shaped } = await this.filterOf(accountId, query);
    // issue 28 C2: a search, a tag or a segment reads every contact of the account, at a cost the
    // account shapes: in the read pool. The plain list walks an index and stays here.
    const read = shaped ? this.reads.reader(accountId, `${shaped}: the contacts took too long to filter; narrow the filter`) : readHere;
    const { rows, total } = await repo.pageContacts(this.handle.db, this.handle.dialect, accountId, { ...filter, order: 'newest' }, page, read);
    return toPage('contacts', rows.map(toContact), total, page);
  }

  /**
   * Issue 34: the contacts the contacts list's filters keep, for GET /contacts/export (D17.6's CSV).
   * Every step reads in the read pool, filter or not: the header's keys read every contact's
   * custom fields, a cost the account's size sets (issue 28 rule 1). A list of another account is
   * 404, as the CLI's `--list`.
   */
  async export(accountId: number, query: ContactQuery): Promise<ContactExport> {
    const { filter, shaped } = await this.filterOf(accountId, query);
    if (filter.list_id !== undefined && !(await findList(this.handle.db, accountId, filter.list_id))) throw listNotFound();
    return contactExport(this.handle, accountId, filter, this.reads.reader(accountId, `${shaped || 'export'}: the contacts took too long to export; narrow the filter`));
  }

  /** The contacts list's filters checked, its segment compiled; `shaped` names the filter whose cost the account shapes, if any. */
  private async filterOf(accountId: number, { segment_id, ...filter }: ContactQuery): Promise<{ filter: ContactFilter; shaped: string | null }> {
    if (filter.status !== undefined && !(CONTACT_STATUSES as readonly string[]).includes(filter.status)) {
      throw new ValidationError(`status must be one of ${CONTACT_STATUSES.join(', ')}`);
    }
    // issue 28 C2: a search is a LIKE over three columns of every contact; a term longer than any
    // of them matches no one, and only costs.
    if (filter.search !== undefined && [...filter.search].length > CONTACT_LIMITS.nameMax) {
      throw new ValidationError(`search must be at most ${CONTACT_LIMITS.nameMax} characters (the longest e-mail or name it can match)`);
    }
    // D18: the other filters narrow a segment's members further.
    const matching = segment_id === undefined ? undefined : await segmentMatching(this.handle, accountId, segment_id);
    const shaped = matching ? 'segment_id' : filter.search ? 'search' : filter.tag ? 'tag' : null;
    return { filter: { ...filter, matching }, shaped };
  }

  private require(db: Db, accountId: number, rawEmail: string): Promise<ContactWithLists> {
    return requireContact(db, accountId, rawEmail);
  }
}

/** The account's contact with the address given in a path (D11: case-insensitive), else CONTACT_NOT_FOUND. */
export async function requireContact(db: Db, accountId: number, rawEmail: string): Promise<ContactWithLists> {
  // A path value that is not a valid address cannot name a contact: that is a miss, not bad input.
  const email = emailKey(rawEmail);
  const row = await repo.findContactByEmail(db, accountId, email);
  if (!row) throw contactNotFound();
  return row;
}

/** Deletes a contact, its lists each losing a member (their counts in step), in the caller's transaction. */
export async function removeContact(db: Db, contactId: number): Promise<void> {
  await removeContactFromAllLists(db, contactId);
  await repo.deleteContact(db, contactId);
}
