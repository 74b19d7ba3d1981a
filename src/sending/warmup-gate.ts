import type { Db, DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { fromDomainOf } from '../domain/domains/sending-domain.ts';
import { addWarmupClaims, findWarmingDomain, lockWarmupDay, removeWarmupClaims } from '../domain/domains/sending-domains.repo.ts';
import { utcDay, warmupCap } from '../domain/domains/warmup.ts';

/**
 * D23 warm-up: while a sending domain's plan is on, its campaigns' recipients are claimed only up
 * to the day's cap (warmupCap), counted per domain and UTC day across all its campaigns. The
 * count moves in the claim's own transaction, under a lock on the day's row, so several sender
 * processes on PostgreSQL never claim past it together. Recipients beyond it stay PENDING (their
 * campaign SENDING) and are claimed on a later day.
 *
 * It counts what was claimed, not what was accepted: a message claimed and then deferred, given
 * back unsent or taken again after a crash counts again. A warming domain may so send a little
 * less than its cap, never more, which is the side to err on. The exception is a row held back
 * for its recipient domain's pace (SEND_DOMAIN_RATES): that happens to many rows, again and
 * again while a capped domain's backlog drains, so those are given back (giveBack), else the
 * pace would use up the day's cap with messages never sent.
 */
export class WarmupGate {
  constructor(private readonly handle: DbHandle) {}

  /** `claim(db, limit)` with `limit` cut to what the campaign's From domain may still send today. */
  async claim<T>(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>, limit: number, claim: (db: Db, limit: number) => Promise<T[]>, now = new Date()): Promise<T[]> {
    const domain = await this.warmingDomain(campaign);
    if (!domain) return claim(this.handle.db, limit);
    const cap = warmupCap(
      { start: domain.warmup_start, factor: Number(domain.warmup_factor), startedAt: domain.warmup_started_at === null ? null : new Date(domain.warmup_started_at).toISOString() },
      now,
    );
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
  private async warmingDomain(campaign: Pick<CampaignRow, 'account_id' | 'from_email'>) {
    const domainName = fromDomainOf(campaign.from_email);
    return domainName === null ? undefined : findWarmingDomain(this.handle.db, campaign.account_id, domainName);
  }
}
