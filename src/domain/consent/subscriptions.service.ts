import type { ActingContext } from '../shared/actor.ts';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { Db, DbHandle } from '../../db/connect.ts';
import { transaction, type Tx } from '../../db/transaction.ts';
import type { ConsentsTable } from '../../db/schema.ts';
import type { ConfirmationMailLimiter } from '../../rate-limit/confirmation-mail-limiter.ts';
import type { TokenSigner } from '../shared/tokens.ts';
import { findAccount } from '../accounts/accounts.repo.ts';
import type { Activity, AnnounceActivity } from '../contacts/activity.ts';
import { contactNotFound } from '../contacts/contact.ts';
import { findContactEmails, findContactIdentity, findContactIdsByEmails } from '../contacts/contacts.repo.ts';
import { changeMemberships, findList, findListsForSubscription, membershipsOf, membershipStatuses, publicListsOf } from '../lists/lists.repo.ts';
import { LIST_LIMITS, listNotFound } from '../lists/list.ts';
import { subscriptionChange, type MembershipChange, type MembershipStatus } from '../lists/membership-status.ts';
import { writeJson } from '../shared/json.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/time.ts';
import { confirmationSuppressed, deleteErasureSuppressions } from '../suppressions/suppressions.repo.ts';
import type { AccountMailer } from '../users/sign-up-mail.ts';
import { clientFacts, toConsent, type Consent, type ConsentSource, type SubscriptionSource } from './consent.ts';
import { confirmationMail, ownWordsList, type ConfirmationList } from './confirmation-mail.ts';
import { fromDomainOf } from '../domains/sending-domain.ts';
import { findSigningKey } from '../domains/sending-domains.repo.ts';
import { consentsOfContact, insertConsent, insertConsents } from './consents.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** A request's client, as a consent records it (D20). */
export interface ClientFacts {
  ip?: string | null;
  userAgent?: string | null;
}

export interface SubscribeInput extends ClientFacts {
  accountId: number;
  contactId: number;
  /** the lists asked for; ids that are not the account's lists are left out (as is a contact not the account's) */
  listIds: readonly number[];
  source: SubscriptionSource;
  formId?: number | null;
  /** issue 34: the words consent was given on (a form's consent checkbox the person ticked), kept in the consent record */
  statement?: string | null;
  /** D20: ask the person to confirm, on the lists whose `opt_in` is `double` */
  doubleOptIn: boolean;
}

export interface MembershipChangeMade {
  list_id: number;
  /** null: the contact was not a member */
  from: MembershipStatus | null;
  to: MembershipStatus;
}

/** What a confirmation mail is to cover: subscribeIn registers it with the transaction, sent once it commits. */
export interface PendingConfirmation {
  accountId: number;
  contactId: number;
  email: string;
  /** who asked: D21 lets a form's confirmation reach an erased address, nothing else's */
  source: SubscriptionSource | 'AUTOMATION';
  lists: (ConfirmationList & { id: number })[];
}

export interface SubscribeResult {
  /** every list asked for that is the account's, with its membership status after the call */
  lists: { list_id: number; status: MembershipStatus }[];
  /** the memberships the call changed */
  changed: MembershipChangeMade[];
  /** the lists whose membership waits for the person's confirmation, that the mail asks about */
  awaiting_confirmation: number[];
  /** non-null when a confirmation mail is due: the transaction sends it once committed */
  confirmation: PendingConfirmation | null;
  /** what became of that mail: set by the after-commit work, so read only once the transaction has returned */
  confirmation_sent?: ConfirmationSent;
}

/** What became of a confirmation mail: `limited`: the address had its share for now (ConfirmationMailLimiter). */
export type ConfirmationSent = 'sent' | 'none' | 'suppressed' | 'limited' | 'failed';

/** What the `/c/{token}` pages show (D20). */
export interface ConfirmationFacts {
  accountId: number;
  contactId: number;
  email: string;
  /** the account's name: whom the person subscribes to */
  sender: string;
  /** GET: the lists waiting for the person; after POST: the lists it confirmed (empty: nothing was waiting) */
  lists: { id: number; name: string }[];
}

/** A public list as the preference centre shows it, with the contact's membership (null: none). */
export interface PreferenceList {
  id: number;
  name: string;
  description: string | null;
  status: MembershipStatus | null;
}

/** Confirmation mails handed to the transport at once: a list add's up to 1000 go out without a queue of 1000 open sends. */
const CONFIRMATIONS_AT_ONCE = 8;

export interface SubscriptionDeps {
  signer: TokenSigner;
  mailer: AccountMailer;
  /** where `/c/{token}` is served: PUBLIC_URL */
  publicUrl: string;
  logger: Logger;
  /** how many confirmation mails an address may get (a form is public: no mail-bombing through it) */
  limiter: ConfirmationMailLimiter;
  /** automations' announcement of LIST_JOINED (a port: automations/ stands above consent/) */
  announce: AnnounceActivity;
}

/**
 * D20: list memberships as people and callers ask for them: subscriptions (form, API, import),
 * double opt-in and its confirmation mail, the preference centre's choices, and the consent
 * records each leaves. Every status change goes through lists.repo's changeMemberships (the rule
 * in membership-status.ts, `contact_count` in the same transaction), and LIST_JOINED fires only
 * when a membership becomes SUBSCRIBED.
 */
export class SubscriptionService {
  constructor(
    private readonly handle: DbHandle,
    private readonly deps: SubscriptionDeps,
  ) {}

  /** `subscribeIn` in a transaction of its own; its confirmation mail, if one is due, has gone when it returns. */
  async subscribe(input: SubscribeInput): Promise<SubscribeResult & { confirmation_sent: ConfirmationSent }> {
    const result = await this.transaction((trx) => this.subscribeIn(trx, input));
    return { ...result, confirmation_sent: result.confirmation_sent ?? 'none' };
  }

  /**
   * POST /lists/{id}/contacts. D12: idempotent; unknown e-mails are reported, not created. D20: a subscription by the API
   * (consent records with source API): SUBSCRIBED, or with `doubleOptIn` on a `double` list
   * UNCONFIRMED and a confirmation mail to each, sent after the commit. `added` counts the
   * memberships this call made or changed; `already_members` the contacts whose membership it
   * left as it was (already SUBSCRIBED, or UNSUBSCRIBED by the person, which only they undo),
   * D12's shape kept as it was.
   */
  async addToList(acting: ActingContext, accountId: number, id: number, rawEmails: string[], options: { doubleOptIn?: boolean } = {}) {
    if (rawEmails.length < 1 || rawEmails.length > LIST_LIMITS.emailsPerAdd) {
      throw new ValidationError(`emails must hold 1-${LIST_LIMITS.emailsPerAdd} addresses`);
    }
    const emails = [...new Set(rawEmails.map((e, i) => normaliseEmail(e, `emails[${i}]`)))];
    // D20: the confirmation mails are the transaction's after-commit work (subscribeManyIn registers them).
    return this.transaction(async (trx) => {
      if (!(await findList(trx, accountId, id))) throw listNotFound();
      const found = await findContactIdsByEmails(trx, accountId, emails);
      const ids = [...found.values()];
      const results = await this.subscribeManyIn(trx, { accountId, contactIds: ids, listIds: [id], source: 'API', doubleOptIn: options.doubleOptIn === true, ip: acting.ip, userAgent: acting.userAgent });
      const added = [...results.values()].filter((r) => r.changed.length > 0).length;
      // D24.8: one entry per request that changed a membership, naming the list (never an address).
      if (added > 0) await recordAudit(trx, acting, accountId, 'list.contacts_added', { type: 'list', id });
      return { added, already_members: ids.length - added, not_found: emails.filter((e) => !found.has(e)) };
    });
  }

  /** A transaction whose after-commit work (the confirmation mails subscribeIn registers) is logged here if it fails. */
  transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
    return transaction(this.handle.db, this.deps.logger, fn);
  }

  /**
   * D20, in the caller's transaction: per list, double opt-in asked for AND a `double` list makes
   * the membership UNCONFIRMED (a SUBSCRIBED one stays: never a downgrade), anything else makes it
   * SUBSCRIBED as membership-status.ts allows for the source. One consent record names the lists
   * the call subscribed or made wait for confirmation (none when it changed nothing). The
   * confirmation mail is the transaction's after-commit work: it goes once the caller's
   * transaction commits, and never for memberships a rollback undid.
   */
  async subscribeIn(db: Tx, input: SubscribeInput): Promise<SubscribeResult> {
    const { contactId, ...rest } = input;
    const results = await this.subscribeManyIn(db, { ...rest, contactIds: [contactId] });
    return results.get(contactId) ?? { lists: [], changed: [], awaiting_confirmation: [], confirmation: null };
  }

  /**
   * `subscribeIn` for many contacts at once (`POST /lists/{id}/contacts`, up to 1000): one guarded
   * write per list and status, one consent record per contact that something changed for, written
   * in one statement per 500. Results by contact id. The confirmation mails, one per contact left
   * waiting, go after the commit, a few at a time (sendConfirmations).
   */
  async subscribeManyIn(db: Tx, input: Omit<SubscribeInput, 'contactId'> & { contactIds: readonly number[] }): Promise<Map<number, SubscribeResult>> {
    const { accountId, source, doubleOptIn } = input;
    const results = new Map<number, SubscribeResult>();
    const lists = await findListsForSubscription(db, accountId, [...input.listIds]);
    if (lists.length === 0 || input.contactIds.length === 0) return results;
    // Only the account's own contacts: the callers pass ids, and an id is no proof of whose it is.
    const emails = await findContactEmails(db, accountId, [...new Set(input.contactIds)]);
    const contactIds = [...emails.keys()];
    if (contactIds.length === 0) return results;
    const before = await membershipStatuses(db, lists.map((l) => l.id), contactIds);
    const now = nowIso();
    const awaiting = new Map<number, typeof lists>();
    const activities: Activity[] = [];
    for (const id of contactIds) results.set(id, { lists: [], changed: [], awaiting_confirmation: [], confirmation: null });
    for (const list of lists) {
      const change = subscriptionChange(source, doubleOptIn, list.opt_in);
      const writes = new Map((await changeMemberships(db, list.id, contactIds, change, now)).map((w) => [w.contactId, w]));
      for (const contactId of contactIds) {
        const result = results.get(contactId)!;
        const write = writes.get(contactId);
        const status = write?.to ?? before.get(`${list.id}:${contactId}`)!;
        result.lists.push({ list_id: list.id, status });
        if (write) result.changed.push({ list_id: list.id, from: write.from, to: write.to });
        if (write?.to === 'SUBSCRIBED') activities.push({ type: 'LIST_JOINED', contactId, listId: list.id });
        // Asked again while still waiting: the mail goes again (the first may be lost), covering it.
        if (change === 'REQUEST_CONFIRMATION' && status === 'UNCONFIRMED') {
          result.awaiting_confirmation.push(list.id);
          awaiting.set(contactId, [...(awaiting.get(contactId) ?? []), list]);
        }
      }
    }
    const facts = clientFacts(input.ip, input.userAgent);
    const consents: Insertable<ConsentsTable>[] = [];
    for (const [contactId, result] of results) {
      // Asking again for what already waits changes nothing, and records nothing: repeated
      // submissions of a public form cannot grow the records without bound.
      const recorded = result.changed.map((c) => c.list_id);
      if (recorded.length > 0) consents.push({ account_id: accountId, contact_id: contactId, source, form_id: input.formId ?? null, list_ids: writeJson(recorded), ...facts, statement: input.statement ?? null, created_at: now });
    }
    await insertConsents(db, consents);
    await this.deps.announce(db, accountId, activities);
    const pending: PendingConfirmation[] = [];
    for (const [contactId, waiting] of awaiting) {
      const confirmation = { accountId, contactId, email: emails.get(contactId)!, source, lists: waiting };
      results.get(contactId)!.confirmation = confirmation;
      pending.push(confirmation);
    }
    if (pending.length > 0) {
      db.onCommit(async () => {
        const sent = await this.sendConfirmations(pending);
        pending.forEach((p, i) => (results.get(p.contactId)!.confirmation_sent = sent[i]));
      });
    }
    return results;
  }

  /**
   * D20: the one confirmation mail for a subscribe's waiting lists, with the signed `/c/{token}`
   * link, from MAIL_FROM in the account's name. D21: an ERASURE entry stops it unless a form asked
   * (a form is how an erased person comes back); any other suppression of the address or its domain does, and
   * so does the address's share of mails (ConfirmationMailLimiter). A failure is logged, not
   * thrown: the memberships are committed and wait; asking again resends.
   */
  async sendConfirmation(result: Pick<SubscribeResult, 'confirmation'>): Promise<ConfirmationSent> {
    return result.confirmation ? (await this.sendConfirmations([result.confirmation]))[0] : 'none';
  }

  /** `sendConfirmation` for many (a list add's), a few at a time; outcomes in the same order. */
  async sendConfirmations(pending: readonly PendingConfirmation[]): Promise<ConfirmationSent[]> {
    const outcomes: ConfirmationSent[] = [];
    const senders = new Map<number, string>();
    for (let i = 0; i < pending.length; i += CONFIRMATIONS_AT_ONCE) {
      outcomes.push(...(await Promise.all(pending.slice(i, i + CONFIRMATIONS_AT_ONCE).map((p) => this.sendOne(p, senders)))));
    }
    return outcomes;
  }

  private async sendOne(pending: PendingConfirmation, senders: Map<number, string>): Promise<ConfirmationSent> {
    const { db } = this.handle;
    if (await confirmationSuppressed(db, pending.accountId, pending.email, pending.source === 'FORM')) return 'suppressed';
    if (!(await this.deps.limiter.allow(pending.accountId, pending.email))) return 'limited';
    if (!senders.has(pending.accountId)) senders.set(pending.accountId, (await findAccount(db, pending.accountId))?.name ?? 'Sendwell');
    const sender = senders.get(pending.accountId)!;
    const own = await this.ownWordsSender(pending);
    try {
      await this.deps.mailer.send(pending.accountId, pending.email, confirmationMail(sender, pending.lists, this.confirmUrl(pending.contactId), own?.list), sender, own?.from);
      return 'sent';
    } catch (err) {
      // The address is personal data and the link a credential: neither goes to the log.
      this.deps.logger.warn({ accountId: pending.accountId, contactId: pending.contactId, err: (err as Error).message }, 'a double opt-in confirmation mail was not sent');
      return 'failed';
    }
  }

  /**
   * Issue 28 M2: a list's own confirmation words go only from its own address at a sending domain
   * of the account whose DKIM record is verified now (D23), signed with that domain's key, never
   * from the operator's MAIL_FROM. A domain no longer verified means the fixed mail, said at warn.
   */
  private async ownWordsSender(pending: PendingConfirmation) {
    const list = ownWordsList(pending.lists);
    if (!list) return undefined;
    const email = list.confirmation_from_email!;
    const key = await findSigningKey(this.handle.db, pending.accountId, fromDomainOf(email)!);
    if (!key) {
      this.deps.logger.warn({ accountId: pending.accountId, listId: list.id }, "a list's own confirmation words were not used: its sender's domain has no verified DKIM record; the fixed confirmation mail went instead");
      return undefined;
    }
    return { list, from: { address: email, dkim: { domainName: key.domain, keySelector: key.selector, privateKey: key.dkim_private_key } } };
  }

  /** D20: the link a confirmation mail carries. */
  confirmUrl(contactId: number): string {
    return `${this.deps.publicUrl}/c/${this.deps.signer.sign({ kind: 'confirm', contactId })}`;
  }

  /** D20 `GET /c/{token}`: what the page shows, changing nothing (link scanners open links). Null: no such link. */
  async confirmationFacts(token: string): Promise<ConfirmationFacts | null> {
    const payload = this.deps.signer.verify(token, 'confirm');
    if (!payload) return null;
    const { db } = this.handle;
    const contact = await findContactIdentity(db, payload.contactId);
    if (!contact) return null;
    const waiting = (await membershipsOf(db, contact.id)).filter((m) => m.status === 'UNCONFIRMED').map((m) => Number(m.list_id));
    const lists = await findListsForSubscription(db, contact.account_id, waiting);
    return this.facts(db, contact, lists);
  }

  /**
   * D20 `POST /c/{token}`: the contact's UNCONFIRMED memberships become SUBSCRIBED (LIST_JOINED
   * fires for each), with a CONFIRMATION consent record naming them; idempotent (a second POST
   * finds nothing waiting and records nothing). D21: the address's ERASURE entries go, as the
   * person has now confirmed. The contact's own status is left as it is: D20 makes a contact that
   * a double opt-in creates SUBSCRIBED already, and an existing contact's status is not a form's
   * or a link's to change. Null: the token is not valid, or names no contact (erased since).
   */
  async confirm(token: string, client: ClientFacts): Promise<ConfirmationFacts | null> {
    const payload = this.deps.signer.verify(token, 'confirm');
    if (!payload) return null;
    return this.handle.db.transaction().execute(async (trx) => {
      const contact = await findContactIdentity(trx, payload.contactId);
      if (!contact) return null;
      const accountId = contact.account_id;
      const waiting = (await membershipsOf(trx, contact.id)).filter((m) => m.status === 'UNCONFIRMED').map((m) => Number(m.list_id));
      const now = nowIso();
      const confirmed: number[] = [];
      for (const listId of waiting) {
        if ((await changeMemberships(trx, listId, [contact.id], 'CONFIRM', now)).length > 0) confirmed.push(listId);
      }
      if (confirmed.length > 0) {
        await this.recordConsent(trx, accountId, contact.id, 'CONFIRMATION', confirmed, client, null, now);
        await this.deps.announce(trx, accountId, confirmed.map((listId) => ({ type: 'LIST_JOINED' as const, contactId: contact.id, listId })));
      }
      await deleteErasureSuppressions(trx, accountId, contact.email);
      return this.facts(trx, contact, await findListsForSubscription(trx, accountId, confirmed));
    });
  }

  /** D20's preference centre: the account's public lists, by id, with the contact's membership of each. */
  async preferencesOf(accountId: number, contactId: number): Promise<PreferenceList[]> {
    const { db } = this.handle;
    await requireContactOf(db, accountId, contactId);
    const [lists, memberships] = await Promise.all([publicListsOf(db, accountId), membershipsOf(db, contactId)]);
    const status = new Map(memberships.map((m) => [Number(m.list_id), m.status]));
    return lists.map((l) => ({ id: l.id, name: l.name, description: l.description, status: status.get(l.id) ?? null }));
  }

  /**
   * D20's preference centre POST: the public lists among `chosenListIds` become SUBSCRIBED (the
   * person asks, holding a link mailed to the address: no confirmation needed), the public lists
   * left out UNSUBSCRIBED where the contact has a membership; private lists and ids that are not
   * the account's are ignored, and the contact's own status is untouched. A consent record (FORM,
   * no form id: the preference centre is the service's own form) names the lists it subscribed.
   * Returns the memberships it changed; a contact not the account's: CONTACT_NOT_FOUND.
   */
  async updatePreferences(accountId: number, contactId: number, chosenListIds: readonly number[], client: ClientFacts): Promise<MembershipChangeMade[]> {
    return this.handle.db.transaction().execute(async (trx) => {
      await requireContactOf(trx, accountId, contactId);
      const chosen = new Set(chosenListIds);
      const now = nowIso();
      const changed: MembershipChangeMade[] = [];
      for (const list of await publicListsOf(trx, accountId)) {
        const change: MembershipChange = chosen.has(list.id) ? 'PERSON_SUBSCRIBE' : 'UNSUBSCRIBE';
        for (const w of await changeMemberships(trx, list.id, [contactId], change, now)) changed.push({ list_id: list.id, from: w.from, to: w.to });
      }
      const joined = changed.filter((c) => c.to === 'SUBSCRIBED').map((c) => c.list_id);
      if (joined.length > 0) {
        await this.recordConsent(trx, accountId, contactId, 'FORM', joined, client, null, now);
        await this.deps.announce(trx, accountId, joined.map((listId) => ({ type: 'LIST_JOINED' as const, contactId, listId })));
      }
      return changed;
    });
  }

  /** D20: the contact's consent records, oldest first. */
  async consentsOf(accountId: number, contactId: number): Promise<Consent[]> {
    return (await consentsOfContact(this.handle.db, accountId, contactId)).map(toConsent);
  }

  private async recordConsent(db: Db, accountId: number, contactId: number, source: ConsentSource, listIds: number[], client: ClientFacts, formId: number | null, now: string) {
    await insertConsent(db, { account_id: accountId, contact_id: contactId, source, form_id: formId, list_ids: writeJson(listIds), ...clientFacts(client.ip, client.userAgent), created_at: now });
  }

  private async facts(db: Db, contact: { id: number; account_id: number; email: string }, lists: { id: number; name: string }[]): Promise<ConfirmationFacts> {
    const sender = (await findAccount(db, contact.account_id))?.name ?? 'Sendwell';
    return { accountId: contact.account_id, contactId: contact.id, email: contact.email, sender, lists: lists.map((l) => ({ id: l.id, name: l.name })) };
  }
}

/** The preference centre's calls name a contact by id: it must be the account's. */
async function requireContactOf(db: Db, accountId: number, contactId: number): Promise<void> {
  if ((await findContactEmails(db, accountId, [contactId])).size === 0) throw contactNotFound();
}
