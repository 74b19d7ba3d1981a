import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { findCampaignStatus, findSendingCampaigns } from '../domain/campaigns/campaigns.repo.ts';
import { countLatestOutcomes, countUnfinished } from '../domain/campaigns/recipient-reads.repo.ts';
import { claimRecipients, failClaimedRecipients, markBounced, markDeferred, markSentMany, postponeClaims, releaseClaims, renewClaims, settleCancelledRecipients } from '../domain/campaigns/recipients.repo.ts';
import { findMergeFields } from '../domain/contacts/contacts.repo.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents } from '../domain/outbound-webhooks/enqueue.ts';
import { emailEvent } from '../domain/outbound-webhooks/event-data.ts';
import { emailKey } from '../domain/shared/email-address.ts';
import { readJson } from '../domain/shared/json.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import { SUPPRESSED_REASON } from '../domain/suppressions/suppression.ts';
import { suppressedAmong } from '../domain/suppressions/suppressions.repo.ts';
import type { MergeContact } from './render.ts';
import type { ClaimedRow, LatestOutcomes, MessageOutcome, SendingStore } from './sending-ports.ts';
import { WarmupGate } from './warmup-gate.ts';

const refOf = (r: MessageOutcome) => ({ accountId: r.accountId, campaignId: r.row.campaign_id, contactId: r.row.contact_id, email: r.row.email, messageId: r.messageId });

const sentEvent = (r: MessageOutcome, now: string) => emailEvent('email.sent', refOf(r), { sent_at: toApiTimestamp(now) });

/** The dispatcher's SendingStore over the database: recipient rows, the warm-up count, suppressions, merge fields and email.* webhook events. */
export class DbSendingStore implements SendingStore {
  private readonly warmup: WarmupGate;

  constructor(private readonly handle: DbHandle) {
    this.warmup = new WarmupGate(handle);
  }

  sendingCampaigns(): Promise<CampaignRow[]> {
    return findSendingCampaigns(this.handle.db);
  }

  async stillSending(campaignId: number): Promise<boolean> {
    return (await findCampaignStatus(this.handle.db, campaignId)) === 'SENDING';
  }

  settleCancelled(now: string): Promise<void> {
    return settleCancelledRecipients(this.handle.db, now);
  }

  claim(campaign: CampaignRow, limit: number, now: string, leaseUntil: string): Promise<ClaimedRow[]> {
    return this.warmup.claim(campaign, limit, (db, allowed) => claimRecipients(db, this.handle.dialect, { campaignId: campaign.id, limit: allowed, now, leaseUntil }));
  }

  uncountClaims(campaign: CampaignRow, count: number): Promise<void> {
    return this.warmup.giveBack(campaign, count);
  }

  async dropSuppressed(campaign: CampaignRow, rows: ClaimedRow[]): Promise<ClaimedRow[]> {
    const suppressed = await suppressedAmong(this.handle.db, campaign.account_id, rows.map((r) => r.email));
    if (suppressed.size === 0) return rows;
    const isSuppressed = (r: ClaimedRow) => suppressed.has(emailKey(r.email));
    await failClaimedRecipients(this.handle.db, rows.filter(isSuppressed).map((r) => r.id), SUPPRESSED_REASON);
    return rows.filter((r) => !isSuppressed(r));
  }

  async mergeContacts(rows: ClaimedRow[]): Promise<Map<number, MergeContact>> {
    const ids = rows.map((r) => r.contact_id).filter((id): id is number => id !== null);
    const contacts = new Map<number, MergeContact>();
    for (const c of await findMergeFields(this.handle.db, ids)) {
      contacts.set(c.id, { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}) });
    }
    return contacts;
  }

  renewLease(ids: number[], leaseUntil: string): Promise<void> {
    return renewClaims(this.handle.db, ids, leaseUntil);
  }

  release(ids: number[]): Promise<void> {
    return releaseClaims(this.handle.db, ids);
  }

  postpone(ids: number[], until: string): Promise<void> {
    return postponeClaims(this.handle.db, ids, until);
  }

  async recordSent(outcomes: MessageOutcome[], now: string): Promise<void> {
    // email.sent goes out for the rows that really changed, in the same commit.
    await this.handle.db.transaction().execute(async (trx) => enqueueWebhookEvents(trx, (await markSentMany(trx, outcomes, now)).map((r) => sentEvent(r, now))));
  }

  async recordBounced(outcome: MessageOutcome, error: string, now: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      if (!(await markBounced(trx, outcome.row, outcome.messageId, error, now))) return;
      await enqueueWebhookEvent(trx, emailEvent('email.bounced', refOf(outcome), { hard: true, reason: error }));
    });
  }

  recordDeferred(id: number, error: string, retryAt: string | null): Promise<void> {
    return markDeferred(this.handle.db, id, error, retryAt);
  }

  countUnfinished(campaignId: number): Promise<number> {
    return countUnfinished(this.handle.db, campaignId);
  }

  latestOutcomes(campaign: CampaignRow, limit: number): Promise<LatestOutcomes> {
    return countLatestOutcomes(this.handle.db, campaign.id, campaign.outcomes_counted_from, limit);
  }
}
