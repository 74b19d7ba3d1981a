import type { DbHandle } from '../db/connect.ts';
import { findUnsubscribePageFacts } from '../domain/campaigns/engagement.repo.ts';
import type { SubscriptionService, ClientFacts } from '../domain/consent/subscriptions.service.ts';
import type { ContactStatus } from '../domain/contacts/contact-fields.ts';
import type { PersonalDataDocument, PersonalDataService } from '../domain/personal-data/personal-data.service.ts';
import { senderName, type EngagementService } from './engagement.service.ts';
import { SYSTEM_ACTING } from '../domain/shared/actor.ts';
import type { ContactService } from '../domain/audience/contacts.service.ts';
import type { CustomFieldDefinitionService } from '../domain/contacts/custom-field-definitions.service.ts';
import { fieldLabel, readContactDetails, type CustomFieldType } from '../domain/contacts/custom-field-definition.ts';
import type { CustomValue } from '../domain/contacts/contact-fields.ts';

/** Issue 34: the person's own changes of their details, and their erasure, are recorded as the system's (no user or key acted). */
const BY_THEMSELVES = SYSTEM_ACTING;

/** D20: what the preference centre shows: the contact's address and status, and the account's public lists with its memberships. */
export interface PreferenceCentrePage {
  email: string;
  /** whom the page names, as the unsubscribe page does (senderName) */
  sender: string;
  status: ContactStatus;
  lists: { id: number; name: string; description: string | null; subscribed: boolean; awaitingConfirmation: boolean }[];
  /** issue 34: what the person may edit of themselves: their name, and the custom fields the account marks editable */
  details: { first_name: string | null; last_name: string | null; fields: { key: string; label: string; type: CustomFieldType; value: CustomValue | undefined }[] };
}

/** Issue 34: a details form refused, field name -> problem; nothing was stored. */
export interface DetailsRefused {
  refused: Map<string, string>;
}

/** A link whose message was sent, but whose contact is gone (deleted or erased): only the sender's name is left to show. */
export interface ContactGone {
  gone: true;
  sender: string;
}

/** Whom a preference link names: the sent message's contact, or that it is gone. */
type Holder = { accountId: number; contactId: number; email: string; status: ContactStatus; sender: string } | ContactGone;

/**
 * D20's preference centre and D21's actions in it, behind the `/p/{token}` link of a sent message
 * (the token names its recipient row, as the unsubscribe link does). Every method answers null
 * when the row is no sent message. The memberships change through the subscriptions service (the
 * one membership rule), the unsubscribe is the unsubscribe link's own, and the data is exported
 * and erased by the same service as the API's.
 */
export class PreferenceCentre {
  constructor(
    private readonly handle: DbHandle,
    private readonly engagement: EngagementService,
    private readonly subscriptions: SubscriptionService,
    private readonly personalData: PersonalDataService,
    private readonly own: { contacts: ContactService; customFields: CustomFieldDefinitionService },
  ) {}

  async page(recipientId: number): Promise<PreferenceCentrePage | ContactGone | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    const lists = await this.subscriptions.preferencesOf(holder.accountId, holder.contactId);
    const [contact, editable] = await Promise.all([this.own.contacts.get(holder.accountId, holder.email), this.own.customFields.editable(holder.accountId)]);
    return {
      email: holder.email,
      sender: holder.sender,
      status: holder.status,
      lists: lists.map((l) => ({ id: l.id, name: l.name, description: l.description, subscribed: l.status === 'SUBSCRIBED', awaitingConfirmation: l.status === 'UNCONFIRMED' })),
      details: {
        first_name: contact.first_name,
        last_name: contact.last_name,
        fields: editable.map((d) => ({ key: d.key, label: fieldLabel(d), type: d.type, value: (contact.custom_fields as Record<string, CustomValue>)[d.key] })),
      },
    };
  }

  /**
   * Issue 34 `action=details`: the person changes their own name and the custom fields the
   * account marks editable, each as its type requires (readContactDetails); any other name in the
   * POST (the address, the status, a field kept to the account) refuses the whole of it. The
   * change goes through the contacts service, as an API update would (D11's rules, the
   * `contact.updated` webhook and audit entry).
   */
  async updateDetails(recipientId: number, values: [string, string][]): Promise<PreferenceCentrePage | ContactGone | DetailsRefused | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    const reading = readContactDetails(values, await this.own.customFields.editable(holder.accountId));
    if (reading.kind === 'invalid') return { refused: reading.problems };
    const { custom_fields, ...names } = reading.change;
    await this.own.contacts.update(BY_THEMSELVES, holder.accountId, holder.email, { ...names, ...(Object.keys(custom_fields).length > 0 ? { custom_fields } : {}) });
    return this.page(recipientId);
  }

  /** The chosen public lists SUBSCRIBED, the others UNSUBSCRIBED; private lists and the contact's status untouched (D20). */
  async update(recipientId: number, chosenListIds: number[], client: ClientFacts): Promise<PreferenceCentrePage | ContactGone | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    await this.subscriptions.updatePreferences(holder.accountId, holder.contactId, chosenListIds, client);
    return this.page(recipientId);
  }

  /** `action=unsubscribe_all`: what the unsubscribe link does (the contact leaves, the campaign counts it once). */
  async unsubscribeAll(recipientId: number): Promise<PreferenceCentrePage | ContactGone | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    await this.engagement.unsubscribe(recipientId);
    return this.page(recipientId);
  }

  /** `action=export`: D21's document. */
  async exportData(recipientId: number): Promise<PersonalDataDocument | ContactGone | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    return this.personalData.export(holder.accountId, holder.email);
  }

  /** `action=erase&confirm=yes`: D21's erasure; answers whom the page names afterwards. */
  async erase(recipientId: number): Promise<ContactGone | null> {
    const holder = await this.holder(recipientId);
    if (!holder || 'gone' in holder) return holder;
    // D24.8 with D21: the person's own erasure is recorded as the system's, without their IP or
    // browser (personal data of the person just erased); the entry names the contact id only.
    await this.personalData.erase(BY_THEMSELVES, holder.accountId, holder.email);
    return { gone: true, sender: holder.sender };
  }

  private async holder(recipientId: number): Promise<Holder | null> {
    const facts = await findUnsubscribePageFacts(this.handle.db, recipientId);
    if (!facts) return null;
    const sender = senderName(facts);
    if (facts.contact_id === null || facts.status === null) return { gone: true, sender };
    return { accountId: Number(facts.account_id), contactId: Number(facts.contact_id), email: facts.email, status: facts.status as ContactStatus, sender };
  }
}
