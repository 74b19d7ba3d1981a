import type { DbHandle } from '../../db/connect.ts';
import type { ReadPool } from '../../db/read-pool.ts';
import { countWithStatus, firstEngagementsPerHour } from './campaign-insights.repo.ts';
import { readCounters } from './campaign-stats.repo.ts';
import { findCampaign } from './campaigns.repo.ts';
import { AUDIENCE_TOO_LONG, campaignNotFound } from './campaign.ts';
import { countAudience } from './recipients.repo.ts';
import { audienceMatching } from './campaign-audience.ts';
import { requireSegments } from '../segments/segments.service.ts';
import type { FollowUp } from './follow-up.ts';

export interface SendProgress {
  status: string;
  total_recipients: number;
  /** messages handed to the mail server (bounces included, D13) */
  sent: number;
  bounced: number;
  /** recipients given up after retries */
  failed: number;
  /** not yet sent nor given up */
  /** issue 34: not sent, their campaign cancelled */
  cancelled: number;
  remaining: number;
}

export interface EngagementHour {
  /** the hour's start, D1 form */
  hour: string;
  opens: number;
  clicks: number;
}

/**
 * What the dashboard's campaign pages read beyond the reference API: how big an audience would
 * be, how far a send has come, and when recipients opened and clicked.
 */
export class CampaignInsights {
  constructor(
    private readonly handle: DbHandle,
    private readonly reads: ReadPool,
  ) {}

  /**
   * D13's audience rule with D18's segments, counted now: SUBSCRIBED contacts in any of the lists
   * or segments, with any of the tags if given. List ids that are not the account's count no one;
   * a segment id that is not is 404 SEGMENT_NOT_FOUND, as campaign create answers it (D26.10).
   * Counted in the read pool (issue 28 C2): the segments' filters make it as slow as they like.
   */
  async audienceSize(accountId: number, listIds: number[], tags: string[], segmentIds: number[] = [], followUp?: FollowUp): Promise<number> {
    await requireSegments(this.handle.db, accountId, segmentIds);
    const matching = await audienceMatching(this.handle.db, this.handle.dialect, accountId, segmentIds, followUp ?? null);
    return countAudience(this.handle.db, this.handle.dialect, { accountId, listIds, matching, tags }, this.reads.reader(accountId, AUDIENCE_TOO_LONG));
  }

  /** Read from the statistics counters, so polling it during a large send stays cheap. */
  async progress(accountId: number, id: number): Promise<SendProgress> {
    const campaign = await this.require(accountId, id);
    const [counters, failed, cancelled] = await Promise.all([readCounters(this.handle.db, id), countWithStatus(this.handle.db, id, 'FAILED'), countWithStatus(this.handle.db, id, 'CANCELLED')]);
    return {
      status: campaign.status,
      total_recipients: Number(campaign.total_recipients),
      sent: counters.sent,
      bounced: counters.bounced,
      failed,
      cancelled,
      remaining: Math.max(0, Number(campaign.total_recipients) - counters.sent - failed - cancelled),
    };
  }

  /** Unique opens and clicks per hour (UTC), oldest first; hours with neither are left out. */
  async engagementOverTime(accountId: number, id: number): Promise<EngagementHour[]> {
    await this.require(accountId, id);
    const { db, dialect } = this.handle;
    const [opens, clicks] = await Promise.all([firstEngagementsPerHour(db, dialect, id, 'opened_at'), firstEngagementsPerHour(db, dialect, id, 'clicked_at')]);
    const hours = new Map<string, EngagementHour>();
    const at = (hour: string) => hours.get(hour) ?? hours.set(hour, { hour: `${hour}:00:00`, opens: 0, clicks: 0 }).get(hour)!;
    for (const o of opens) at(o.hour).opens = o.count;
    for (const c of clicks) at(c.hour).clicks = c.count;
    return [...hours.values()].sort((a, b) => a.hour.localeCompare(b.hour));
  }

  private async require(accountId: number, id: number) {
    const campaign = await findCampaign(this.handle.db, accountId, id);
    if (!campaign) throw campaignNotFound();
    return campaign;
  }
}
