import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle, Db } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { ListRow } from '../../db/schema.ts';
import { pageContacts } from '../contacts/contacts.repo.ts';
import { toContact, type Contact } from '../contacts/contact.ts';
import type { MembershipStatus } from './membership-status.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { listInUse, confirmationFromEmail, confirmationSubject, confirmationText, listDescription, listName, listNotFound, LIST_LIMITS, ownConfirmationNeedsSend, setsOwnConfirmation, toList, type ContactList, type ListInput } from './list.ts';
import { fromDomainOf } from '../domains/sending-domain.ts';
import { findSigningKey } from '../domains/sending-domains.repo.ts';
import * as repo from './lists.repo.ts';
import { findContactByEmail } from '../contacts/contacts.repo.ts';
import { emailKey } from '../shared/email-address.ts';
import { recordAudit } from '../audit/audit.service.ts';

// Now in the pure list.ts; re-exported for the HTTP schemas and campaigns, which import them from here.
export { listNotFound } from './list.ts';

/** A contact on its list's member page: with the status of its membership of that list (D20). */
function asMember(contact: Contact, listId: number): Contact & { membership_status: MembershipStatus } {
  return { ...contact, membership_status: contact.memberships.find((m) => m.list_id === listId)?.status ?? 'UNSUBSCRIBED' };
}

/** Issue 28 M2: who may give a list its own confirmation words (campaigns.send; a dashboard session holds every permission). */
export interface ListCaller {
  maySendMail: boolean;
}

/**
 * Issue 28 M2: a list's own confirmation mail goes from the account's own verified domain (D23),
 * never from the operator's MAIL_FROM: the address must be at a sending domain of the account whose
 * DKIM record is verified (checked again when each mail goes, subscriptions.service).
 */
async function ownConfirmationSender(db: Db, accountId: number, raw: string | null | undefined): Promise<string | null | undefined> {
  const email = confirmationFromEmail(raw);
  if (email && !(await findSigningKey(db, accountId, fromDomainOf(email)!))) {
    throw new ValidationError('confirmation_from_email must be at one of the account\'s sending domains with a verified DKIM record (D23)');
  }
  return email;
}

const listExists = (name: string) => new ConflictError('LIST_ALREADY_EXISTS', `a list named "${name}" already exists`);

/** Resolves D11's `list_id` / `list_name` pair to one list id: 404 if missing, 400 if they disagree. */
export async function resolveListRef(db: Db, accountId: number, ref: { list_id?: number | null; list_name?: string | null }): Promise<number | null> {
  const byId = ref.list_id != null ? await repo.findList(db, accountId, ref.list_id) : undefined;
  if (ref.list_id != null && !byId) throw listNotFound();
  const byName = ref.list_name != null ? await repo.findListByNameKey(db, accountId, ref.list_name.trim().toLowerCase()) : undefined;
  if (ref.list_name != null && !byName) throw listNotFound();
  if (byId && byName && byId.id !== byName.id) throw new ValidationError('list_id and list_name name different lists');
  return (byId ?? byName)?.id ?? null;
}

/**
 * D26.1: what of an account holds a list, by name (`form "Newsletter"`, `SCHEDULED campaign
 * "Spring sale"`). A port: forms and campaigns stand above lists, so the wiring passes their
 * repos' functions in.
 */
export type ListHolders = (db: Db, accountId: number, listId: number) => Promise<string[]>;

export class ListService {
  constructor(
    private readonly handle: DbHandle,
    /** D26.1: forms and campaigns that hold a list (ports the wiring passes in) */
    private readonly holders: ListHolders[] = [],
  ) {}

  /** D26.1: who holds the list now, by name, read in the transaction that would change it. */
  private async holdersOf(db: Db, accountId: number, id: number): Promise<string[]> {
    const found = await Promise.all(this.holders.map((holders) => holders(db, accountId, id)));
    return found.flat();
  }

  async create(acting: ActingContext, accountId: number, input: ListInput & { name: string }, caller: ListCaller): Promise<ContactList> {
    if (setsOwnConfirmation(input) && !caller.maySendMail) throw ownConfirmationNeedsSend();
    const { name, nameKey } = listName(input.name);
    const now = nowIso();
    try {
      return await this.handle.db.transaction().execute(async (trx) => {
        if (await repo.findListByNameKey(trx, accountId, nameKey)) throw listExists(name);
        const row = await repo.insertList(trx, {
          account_id: accountId,
          name,
          name_key: nameKey,
          description: listDescription(input.description) ?? null,
          is_active: input.is_active === false ? 0 : 1,
          opt_in: input.opt_in ?? 'single',
          is_public: input.is_public === true ? 1 : 0,
          confirmation_subject: confirmationSubject(input.confirmation_subject) ?? null,
          confirmation_text: confirmationText(input.confirmation_text) ?? null,
          confirmation_from_email: (await ownConfirmationSender(trx, accountId, input.confirmation_from_email)) ?? null,
          created_at: now,
          updated_at: now,
        });
        await recordAudit(trx, acting, accountId, 'list.created', { type: 'list', id: row.id });
        return toList(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw listExists(name);
      throw err;
    }
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageLists(this.handle.db, accountId, page);
    return toPage('lists', rows.map(toList), total, page);
  }

  /** D26.1: with `used_by`, so a caller (the dashboard's delete dialog) can say before it deletes what would refuse it. */
  async get(accountId: number, id: number): Promise<ContactList & { used_by: string[] }> {
    const { db } = this.handle;
    const list = toList(await this.require(db, accountId, id));
    return { ...list, used_by: await this.holdersOf(db, accountId, id) };
  }

  async update(acting: ActingContext, accountId: number, id: number, input: ListInput, caller: ListCaller): Promise<ContactList> {
    if (setsOwnConfirmation(input) && !caller.maySendMail) throw ownConfirmationNeedsSend();
    try {
      return await this.handle.db.transaction().execute(async (trx) => {
        const row = await this.require(trx, accountId, id);
        const changes: Parameters<typeof repo.updateList>[3] = { updated_at: nowIso() };
        if (input.name !== undefined) {
          const { name, nameKey } = listName(input.name);
          const clash = await repo.findListByNameKey(trx, accountId, nameKey);
          if (clash && clash.id !== id) throw listExists(name);
          Object.assign(changes, { name, name_key: nameKey });
        }
        if (input.description !== undefined) changes.description = listDescription(input.description);
        if (input.is_active !== undefined) changes.is_active = input.is_active ? 1 : 0;
        if (input.opt_in !== undefined) changes.opt_in = input.opt_in;
        if (input.is_public !== undefined) changes.is_public = input.is_public ? 1 : 0;
        // D26.1: a private list takes no sign-ups, so a form that uses it would stop working.
        if (input.is_public === false && row.is_public === 1) {
          const holders = await this.holdersOf(trx, accountId, id);
          if (holders.length > 0) throw listInUse(row.name, 'made private', holders);
        }
        if (input.confirmation_subject !== undefined) changes.confirmation_subject = confirmationSubject(input.confirmation_subject);
        if (input.confirmation_text !== undefined) changes.confirmation_text = confirmationText(input.confirmation_text);
        if (input.confirmation_from_email !== undefined) changes.confirmation_from_email = await ownConfirmationSender(trx, accountId, input.confirmation_from_email);
        const updated = await repo.updateList(trx, accountId, id, changes);
        await recordAudit(trx, acting, accountId, 'list.updated', { type: 'list', id });
        return toList(updated);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw listExists(input.name?.trim() ?? '');
      throw err;
    }
  }

  /** D12: removes the list and its memberships, never the contacts. D26.1: not while a form or a SCHEDULED or SENDING campaign uses it. */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const row = await this.require(trx, accountId, id);
      const holders = await this.holdersOf(trx, accountId, id);
      if (holders.length > 0) throw listInUse(row.name, 'deleted', holders);
      await repo.deleteList(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'list.deleted', { type: 'list', id });
    });
  }

  async removeContact(acting: ActingContext, accountId: number, id: number, rawEmail: string): Promise<void> {
    // As for GET /contacts/{email}: a path value that is not a valid address names no member (404, not 400).
    const email = emailKey(rawEmail);
    await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      const contact = await findContactByEmail(trx, accountId, email);
      if (!contact || !(await repo.removeMember(trx, id, contact.id))) {
        throw new NotFoundError('CONTACT_NOT_FOUND', 'the contact is not a member of this list');
      }
      // D24.8: the list is the target; the member's address is never in an entry.
      await recordAudit(trx, acting, accountId, 'list.contacts_removed', { type: 'list', id });
    });
  }

  /** D6: a list's members by contact id ascending; D20: every membership, each with its `membership_status` (or only those of one status). */
  async members(accountId: number, id: number, page: PageRequest, membershipStatus?: MembershipStatus) {
    await this.require(this.handle.db, accountId, id);
    const { rows, total } = await pageContacts(this.handle.db, this.handle.dialect, accountId, { member_of: id, membership_status: membershipStatus, order: 'id_asc' }, page);
    return toPage('contacts', rows.map((row) => asMember(toContact(row), id)), total, page);
  }

  private async require(db: Db, accountId: number, id: number): Promise<ListRow> {
    const row = await repo.findList(db, accountId, id);
    if (!row) throw listNotFound();
    return row;
  }
}
