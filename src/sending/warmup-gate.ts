import type { Db, DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { warmupCapOf } from '../domain/domains/sending-domain.ts';
import { addWarmupClaims, lockWarmupDay, removeWarmupClaims } from '../domain/domains/sending-domains.repo.ts';
import { warmingDomainOf } from '../domain/domains/warmup-today.ts';
import { utcDay } from '../domain/domains/warmup.ts';

/**
 * D23 warm-up: while a sending domain's plan is on, its campaigns' recipients are claimed only up
 * to the day's cap (warmupCapOf), counted per domain and UTC day across all its campaigns. The
 * count moves in the claim's own transaction, under a lock on the day's row, so several sender
 * processes on PostgreSQL never claim past it together. Recipients beyond it stay PENDING (their
 * campaign SENDING) and are claimed on a later day.
 *
 * D26.2: it counts what was handed to the mail server. A claim reserves its rows on the day's
 * count (so processes never claim past the cap together), and every claimed row that is not
 * handed over gives its place back (giveBack): one suppressed since the snapshot, held for its
 * recipient domain's pace, not rendered, deferred (a 4xx or no answer), or given back unsent when
 * a round ends. A message refused with a 5xx was handed over and counts. Only a crash loses a
 * reservation: the rows a dead sender held are claimed again when their lease ends and count
 * again, so a warming domain may send a little less than its cap that day, never more.
 */
export class WarmupGate {
  constructor(private readonly handle: DbHandle) {}

  /** `claim(db, limit)` with `limit` cut to what the campaign's From domain may still send today. */
  async claim<T>(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>, limit: number, claim: (db: Db, limit: number) => Promise<T[]>, now = new Date()): Promise<T[]> {
    const domain = await this.warmingDomain(campaign);
    if (!domain) return claim(this.handle.db, limit);
    const cap = warmupCapOf(domain, now);
    const day = utcDay(now);
    return this.handle.db.transaction().execute(async (trx) => {
      const allowance = Math.min(limit, cap - (await lockWarmupDay(trx, this.handle.dialect, domain.id, day)));
      if (allowance <= 0) return [];
      const rows = await claim(trx, allowance);
      await addWarmupClaims(trx, domain.id, day, rows.length);
      return rows;
    });
  }

  /** Claims of `count` of the campaign's rows that go back unsent are taken back from today's count. */
  async giveBack(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>, count: number, now = new Date()): Promise<void> {
    const domain = count === 0 ? undefined : await this.warmingDomain(campaign);
    if (domain) await removeWarmupClaims(this.handle.db, domain.id, utcDay(now), count);
  }

  /** The campaign's From domain, when it is a sending domain of its account with warm-up on. */
  private warmingDomain(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>) {
    return warmingDomainOf(this.handle.db, campaign.account_id, campaign.from_email);
  }
}
