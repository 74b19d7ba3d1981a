import { LRUCache } from 'lru-cache';
import type { Db, DbHandle } from '../db/connect.ts';
import { nowIso } from '../domain/shared/time.ts';
import { addToCounters } from '../domain/campaigns/campaign-stats.repo.ts';
import { CompiledCampaign } from './render.ts';

const COUNTER_OF = { opened_at: 'opened', clicked_at: 'clicked', unsubscribed_at: 'unsubscribed', complained_at: 'complained', bounced_at: 'bounced' } as const;
type Moment = keyof typeof COUNTER_OF;

/**
 * Sets a first-time engagement moment and counts it, in the caller's transaction; later hits
 * change nothing, so unique counts stay exact (D16).
 */
async function markFirst(db: Db, recipient: { id: number; campaign_id: number }, column: Moment, now: string): Promise<boolean> {
  const result = await db.updateTable('campaign_recipients').set({ [column]: now }).where('id', '=', recipient.id).where(column, 'is', null).executeTakeFirst();
  const changed = Number(result.numUpdatedRows) > 0;
  if (changed) await addToCounters(db, recipient.campaign_id, recipient.id, { [COUNTER_OF[column]]: 1 });
  return changed;
}

/**
 * What recipients do with a sent message: opens, clicks, unsubscribes, and the bounces and
 * complaints that arrive later. Each is counted once per recipient and never for a message
 * that was not sent.
 */
export class EngagementService {
  /** a campaign's own links, in order: click tokens index into them */
  private readonly links = new LRUCache<number, string[]>({ max: 1000 });

  constructor(private readonly handle: DbHandle) {}

  private findSentRecipient(db: Db, recipientId: number) {
    return db
      .selectFrom('campaign_recipients')
      .select(['id', 'campaign_id', 'contact_id', 'opened_at'])
      .where('id', '=', recipientId)
      .where('sent_at', 'is not', null)
      .executeTakeFirst();
  }

  /** false when the token names no sent message */
  async recordOpen(recipientId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const recipient = await this.findSentRecipient(trx, recipientId);
      if (!recipient) return false;
      await markFirst(trx, recipient, 'opened_at', nowIso());
      return true;
    });
  }

  /** The link's URL, or null when the token names no sent message or no link of its campaign. A click implies an open. */
  async recordClick(recipientId: number, linkIndex: number): Promise<string | null> {
    const recipient = await this.findSentRecipient(this.handle.db, recipientId);
    if (!recipient) return null;
    const url = (await this.campaignLinks(recipient.campaign_id))[linkIndex];
    if (url === undefined) return null;
    const now = nowIso();
    await this.handle.db.transaction().execute(async (trx) => {
      await markFirst(trx, recipient, 'clicked_at', now);
      await markFirst(trx, recipient, 'opened_at', now);
    });
    return url;
  }

  /** RFC 8058 one-click and the confirm page's POST: the contact leaves, and the campaign counts it once. */
  async unsubscribe(recipientId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const recipient = await this.findSentRecipient(trx, recipientId);
      if (!recipient) return false;
      const now = nowIso();
      await markFirst(trx, recipient, 'unsubscribed_at', now);
      if (recipient.contact_id !== null) {
        await trx.updateTable('contacts').set({ status: 'UNSUBSCRIBED', updated_at: now }).where('id', '=', recipient.contact_id).where('status', '=', 'SUBSCRIBED').execute();
      }
      return true;
    });
  }

  async isSentRecipient(recipientId: number): Promise<boolean> {
    return (await this.findSentRecipient(this.handle.db, recipientId)) !== undefined;
  }

  private async campaignLinks(campaignId: number): Promise<string[]> {
    let links = this.links.get(campaignId);
    if (!links) {
      // A sent campaign's content no longer changes (D13: edits only before sending), so this is stable.
      const c = await this.handle.db.selectFrom('campaigns').select(['subject', 'html', 'text', 'preheader']).where('id', '=', campaignId).executeTakeFirst();
      links = c ? new CompiledCampaign({ subject: c.subject ?? '', html: c.html, text: c.text, preheader: c.preheader }).links : [];
      this.links.set(campaignId, links);
    }
    return links;
  }
}
