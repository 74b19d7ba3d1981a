import type { Db } from '../../db/connect.ts';
import type { CampaignRow } from '../../db/schema.ts';
import { findAccount } from '../accounts/accounts.repo.ts';
import { warmupToday } from '../domains/warmup-today.ts';
import { readJson } from '../shared/json.ts';
import { campaignNotFound, isArchived, toCampaign, type Campaign } from './campaign.ts';
import { heldOf, type Held } from './campaign-hold.ts';
import type { SendWindow } from './send-window.ts';
import { readQueueState } from './recipient-reads.repo.ts';
import { readCounters } from './campaign-stats.repo.ts';
import { findCampaign } from './campaigns.repo.ts';

/** What the campaign services read before they act or answer: the campaign itself, whether it mailed anyone, its API form. */

/** The account's campaign, or 404 CAMPAIGN_NOT_FOUND. */
export async function requireCampaign(db: Db, accountId: number, id: number): Promise<CampaignRow> {
  const row = await findCampaign(db, accountId, id);
  if (!row) throw campaignNotFound();
  return row;
}

/** Once mail has gone out, its links must keep working (D17.3, D17.4). */
export async function hasSentMail(db: Db, id: number): Promise<boolean> {
  return (await readCounters(db, id)).sent > 0;
}

/**
 * The API's campaign. archive_url needs the account's slug, read only for an archived SENT
 * campaign and kept: a slug is made once and never changes (account-slug.ts). One presenter is
 * shared by the campaign services, so they share what they have read.
 */
export class CampaignPresenter {
  /** Accounts' archive URLs by account id. */
  private readonly archiveBases = new Map<number, string>();

  /** `publicUrl`: PUBLIC_URL, where archive_url points (D22). */
  constructor(private readonly publicUrl = '') {}

  /** `db`: the caller's transaction, when it has one. */
  async present(db: Db, row: CampaignRow): Promise<Campaign> {
    if (row.status === 'SENDING') return toCampaign(row, null, await this.heldOf(db, row));
    if (!isArchived(row)) return toCampaign(row);
    let base = this.archiveBases.get(row.account_id);
    if (base === undefined) {
      const account = await findAccount(db, row.account_id);
      base = `${this.publicUrl}/archive/${encodeURIComponent(account?.slug ?? '')}`;
      if (this.archiveBases.size > 10_000) this.archiveBases.clear();
      this.archiveBases.set(row.account_id, base);
    }
    return toCampaign(row, base);
  }

  /** D26.2: why a SENDING campaign waits, from its window, its From domain's warm-up and its queue; a few one-row reads. */
  private async heldOf(db: Db, row: CampaignRow): Promise<Held | null> {
    const now = new Date();
    return heldOf(
      {
        status: 'SENDING',
        window: readJson<SendWindow | null>(row.send_window, null),
        warmup: await warmupToday(db, row.account_id, row.from_email, now),
        queue: await readQueueState(db, row.id, now.toISOString()),
      },
      now,
    );
  }
}
