import type { ActingContext } from '../shared/actor.ts';
import { deleteMessagesTo } from '../messages/messages.repo.ts';
import { flushErasedPages, type DbHandle } from '../../db/connect.ts';
import type { MembershipStatus } from '../../db/schema.ts';
import { runsOfContact, stepsOfRuns } from '../automations/automations.repo.ts';
import { toRunStep, type RunStep } from '../automations/automations.service.ts';
import { deleteEventsOfContact, eventsOfContact } from '../automations/events.repo.ts';
import { campaignsOfAddress } from '../campaigns/recipient-reads.repo.ts';
import { eraseRecipientAddress } from '../campaigns/recipients.repo.ts';
import { toConsent, type Consent } from '../consent/consent.ts';
import { consentsOfContact } from '../consent/consents.repo.ts';
import { deleteDevInboxMessagesTo } from '../dev-inbox/dev-inbox.repo.ts';
import { membershipsOfContact } from '../lists/lists.repo.ts';
import { eraseAddressFromDeliveries } from '../outbound-webhooks/erasure.ts';
import { readJson } from '../shared/json.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { erasureValue } from '../suppressions/suppression.ts';
import { addSuppression, deleteAddressSuppressions } from '../suppressions/suppressions.repo.ts';
import { toContact, type Contact } from '../contacts/contact.ts';
import { removeContact, requireContact } from '../audience/contacts.service.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** D21: everything the account holds about one person, as `GET /contacts/{email}/export` answers it. */
export interface PersonalDataDocument {
  contact: Contact;
  memberships: { list_id: number; list_name: string; status: MembershipStatus; created_at: string; status_changed_at: string | null }[];
  consents: Consent[];
  events: { id: number; name: string; data: unknown; created_at: string }[];
  automation_runs: {
    id: number;
    automation_id: number;
    automation_name: string;
    status: string;
    trigger_type: string;
    event_data: unknown;
    ended_reason: string | null;
    history: RunStep[];
    created_at: string;
    finished_at: string | null;
  }[];
  campaigns: { campaign_id: number; name: string; sent_at: string | null; opened_at: string | null; clicked_at: string | null }[];
}

/** Why a recipient row that was still to be sent never will be (D21). */
export const ERASED_RECIPIENT_REASON = 'not sent: the personal data of this address was erased';
const ERASURE_REASON = 'personal data erased: the address is kept only as its SHA-256';

/**
 * D21: a person's data, exported (`export`) or erased (`erase`), by the API, the CLI and D20's
 * preference centre alike.
 */
export class PersonalDataService {
  constructor(
    private readonly handle: DbHandle,
    /** where an erasure whose pages could not all leave the WAL yet says so (pino's logger, or the CLI's stderr) */
    private readonly logger?: { warn(details: object, message: string): void },
  ) {}

  async export(accountId: number, rawEmail: string): Promise<PersonalDataDocument> {
    const { db } = this.handle;
    const row = await requireContact(db, accountId, rawEmail);
    const [memberships, consents, events, runs, campaigns] = await Promise.all([
      membershipsOfContact(db, row.id),
      consentsOfContact(db, accountId, row.id),
      eventsOfContact(db, row.id),
      runsOfContact(db, row.id),
      campaignsOfAddress(db, accountId, row.email),
    ]);
    const history = new Map<number, RunStep[]>();
    for (const step of await stepsOfRuns(db, runs.map((r) => r.id))) history.set(step.run_id, [...(history.get(step.run_id) ?? []), toRunStep(step)]);
    return {
      contact: toContact(row),
      memberships: memberships.map((m) => ({
        list_id: m.list_id,
        list_name: m.name,
        status: m.status,
        created_at: toApiTimestamp(m.created_at),
        status_changed_at: toApiTimestamp(m.status_changed_at),
      })),
      consents: consents.map(toConsent),
      events: events.map((e) => ({ id: e.id, name: e.name, data: readJson<unknown>(e.data, {}), created_at: toApiTimestamp(e.created_at) })),
      automation_runs: runs.map((r) => ({
        id: r.id,
        automation_id: r.automation_id,
        automation_name: r.automation_name,
        status: r.status,
        trigger_type: r.trigger_type,
        event_data: r.event_data === null ? null : readJson<unknown>(r.event_data, null),
        ended_reason: r.ended_reason,
        history: history.get(r.id) ?? [],
        created_at: toApiTimestamp(r.created_at),
        finished_at: toApiTimestamp(r.finished_at),
      })),
      campaigns: campaigns.map((c) => ({
        campaign_id: c.campaign_id,
        name: c.name,
        sent_at: toApiTimestamp(c.sent_at),
        opened_at: toApiTimestamp(c.opened_at),
        clicked_at: toApiTimestamp(c.clicked_at),
      })),
    };
  }

  /**
   * Deletes the contact and every personal field tied to it, in one transaction: its memberships
   * (list counts in step), consents and automation runs with their step logs (they go with the
   * contact), its events, the account's captured dev-inbox copies of mail to it, its transactional
   * messages (D25, content and all), the data of webhook
   * deliveries that name it, and the address on
   * the account's recipient rows (erased in place: sent campaigns' statistics stay exactly as they
   * were). The address's own suppression entries go too; what stays is its SHA-256, as an ERASURE
   * entry, so the address is not mailed again (suppressReturningErasedAddresses) until the person
   * confirms a double opt-in. Answers the erased address and the entry's value.
   */
  async erase(acting: ActingContext, accountId: number, rawEmail: string): Promise<{ email: string; suppression: string }> {
    const erased = await this.handle.db.transaction().execute(async (trx) => {
      const contact = await requireContact(trx, accountId, rawEmail);
      const now = nowIso();
      await eraseRecipientAddress(trx, accountId, contact.email, ERASED_RECIPIENT_REASON, now);
      await deleteEventsOfContact(trx, contact.id);
      await deleteDevInboxMessagesTo(trx, accountId, contact.email);
      await deleteMessagesTo(trx, accountId, contact.email);
      await eraseAddressFromDeliveries(trx, accountId, contact.email);
      await removeContact(trx, contact.id);
      await deleteAddressSuppressions(trx, accountId, contact.email);
      const value = erasureValue(contact.email);
      await addSuppression(trx, { account_id: accountId, value, reason: ERASURE_REASON, source: 'ERASURE', created_at: now });
      // D24.8: the contact's id only; the erased address never reaches the log.
      await recordAudit(trx, acting, accountId, 'contact.erased', { type: 'contact', id: contact.id });
      return { email: contact.email, suppression: value };
    });
    // Issue 28 L2: the old pages leave the WAL too, not only the tables (SQLite; see db/connect.ts).
    const flushed = flushErasedPages(this.handle);
    if (!flushed.complete) this.logger?.warn({ accountId }, 'an erasure could not empty the SQLite WAL yet (a reader holds it); the next checkpoint will');
    return erased;
  }
}
