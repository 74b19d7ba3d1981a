import { SYSTEM_ACTING, type ActingContext } from '../shared/actor.ts';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { ReadPool } from '../../db/read-pool.ts';
import type { CampaignRow } from '../../db/schema.ts';
import type { CampaignContentCompiler, CompiledContent } from './campaign-content.ts';
import { enqueueWebhookEvent } from '../outbound-webhooks/enqueue.ts';
import { campaignEvent } from '../outbound-webhooks/event-data.ts';
import { InvalidStateError, NotFoundError, RateLimitedError, ValidationError } from '../shared/errors.ts';
import { writeJson } from '../shared/json.ts';
import { nowIso, parseInputTimestamp, toEpochMs } from '../shared/time.ts';
import { abTestOf, pickWinner, testShareSizes, variantsOf, type AbPhase } from './ab-test.ts';
import { assignTestShares, decideAbTest, releaseHeldRecipients, startAbWait, variantCounts } from './ab-test.repo.ts';
import { AUDIENCE_TOO_LONG, campaignNotFound, changedMeanwhile, contentSourceOf, noRecipients, requireContent, requireSendable, sameSource, type Campaign, type ContentLinks } from './campaign.ts';
import { audienceOf } from './campaign-audience.ts';
import { hasSentMail, requireCampaign, type CampaignPresenter } from './campaign-lookup.ts';
import { transition, type CampaignStatus } from './campaign-status.ts';
import * as repo from './campaigns.repo.ts';
import { cancelUnsentRecipients, countAudience, requeueFailedRecipients, snapshotAudience } from './recipients.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * D13's state machine at work: the transitions a caller asks for (send, schedule, unschedule,
 * retry, and issue 34's pause, resume and cancel) and those the scheduler and the sender make (a due campaign starts, a send completes or
 * fails, an A/B test moves on). Each runs in a transaction whose guarded update lets it happen
 * once across processes; each change of state tells the outbound webhooks.
 */
export class CampaignLifecycleService {
  constructor(
    private readonly handle: DbHandle,
    private readonly contentLinks: ContentLinks,
    private readonly content: CampaignContentCompiler,
    private readonly reads: ReadPool,
    private readonly presenter: CampaignPresenter,
  ) {}

  /** D13: DRAFT or SCHEDULED -> SENDING (audience snapshotted now), or FAILED -> SENDING (only unsent recipients remain). */
  async send(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    const before = await requireCampaign(this.handle.db, accountId, id);
    transition(before.status as CampaignStatus, 'send');
    // D22: the layout as it is now is compiled in, unless mail already went out with the content stored then.
    const compiled = before.status === 'FAILED' && (await hasSentMail(this.handle.db, id)) ? undefined : await this.compileForSending(before);
    if (before.status !== 'FAILED') await this.countAudienceAhead(before);
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'send');
      if (compiled && !sameSource(before, current)) throw changedMeanwhile();
      if (current.status === 'FAILED') {
        requireContent(current);
        // D17.4: edited while FAILED; before any mail went out its links may have changed too.
        const links = (await hasSentMail(trx, id)) ? {} : { links: writeJson(this.contentLinks({ ...current, ...compiled })), ...compiled };
        // D23: the automatic stop judges the resumed send afresh.
        const resumed = await repo.updateCampaign(trx, accountId, id, { status: to, error: null, ...links, outcomes_counted_from: nowIso(), updated_at: nowIso() });
        await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', resumed));
        await recordAudit(trx, acting, accountId, 'campaign.sent', { type: 'campaign', id });
        return this.presenter.present(trx, resumed);
      }
      return this.presenter.present(trx, await this.startSending(acting, trx, current, compiled!));
    });
  }

  /** D13: DRAFT -> SCHEDULED with a future `scheduled_at`; the campaign must already be sendable. */
  async schedule(acting: ActingContext, accountId: number, id: number, rawScheduledAt: string): Promise<Campaign> {
    const scheduledAt = parseInputTimestamp('scheduled_at', rawScheduledAt);
    if (Date.parse(scheduledAt) <= Date.now()) throw new ValidationError('scheduled_at must be in the future');
    // Counted in the read pool before the transaction (issue 28 C2); an audience emptied in between
    // is caught when the snapshot finds no one.
    const before = await requireCampaign(this.handle.db, accountId, id);
    transition(before.status as CampaignStatus, 'schedule');
    requireSendable(before);
    if ((await this.countAudienceAhead(before)) === 0) throw noRecipients();
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'schedule');
      requireSendable(current);
      const scheduled = await repo.updateCampaign(trx, accountId, id, { status: to, scheduled_at: scheduledAt, updated_at: nowIso() });
      await recordAudit(trx, acting, accountId, 'campaign.scheduled', { type: 'campaign', id });
      return this.presenter.present(trx, scheduled);
    });
  }

  async unschedule(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'unschedule');
      const unscheduled = await repo.updateCampaign(trx, accountId, id, { status: to, scheduled_at: null, updated_at: nowIso() });
      await recordAudit(trx, acting, accountId, 'campaign.unscheduled', { type: 'campaign', id });
      return this.presenter.present(trx, unscheduled);
    });
  }

  /**
   * D19: a SENT or FAILED campaign's FAILED recipients go back in line (those still SUBSCRIBED),
   * and the campaign is SENDING until they are done. None to retry: 409 INVALID_STATE.
   */
  async retryFailed(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'retry');
      if ((await requeueFailedRecipients(trx, id)) === 0) throw new InvalidStateError('the campaign has no FAILED recipients whose contact is still SUBSCRIBED');
      const sending = await repo.updateCampaign(trx, accountId, id, { status: to, error: null, outcomes_counted_from: nowIso(), updated_at: nowIso() });
      await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', sending));
      // D24.8: not a new send (no campaign.sent): its own action.
      await recordAudit(trx, acting, accountId, 'campaign.retried', { type: 'campaign', id });
      return this.presenter.present(trx, sending);
    });
  }

  /**
   * Issue 34: SENDING -> PAUSED. From the commit on the sender claims none of its recipients (the
   * claim reads the status); a batch it holds goes back at its next chunk, and what is in flight
   * is recorded as usual. Nothing of the send is lost or repeated: /resume goes on from there.
   */
  async pause(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.userTransition(acting, accountId, id, 'pause', 'campaign.paused');
  }

  /** Issue 34: PAUSED -> SENDING; the recipients not yet sent are claimed again, each once. */
  async resume(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.userTransition(acting, accountId, id, 'resume', 'campaign.resumed', async (trx, row) => {
      await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', row));
    });
  }

  /**
   * Issue 34: SENDING or PAUSED -> CANCELLED, final. Every recipient not yet sent is CANCELLED in
   * the same transaction (cancelUnsentRecipients); those in flight keep their outcome, and what a
   * sender gives back or leaves behind becomes CANCELLED too (settleCancelledRecipients).
   */
  async cancel(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.userTransition(acting, accountId, id, 'cancel', 'campaign.cancelled', async (trx) => {
      await cancelUnsentRecipients(trx, id, nowIso());
    });
  }

  /**
   * A transition the user asks for, the campaign row locked (PostgreSQL) and the update guarded
   * by the status read, so a sender completing or failing it at the same moment goes first or
   * not at all: never PAUSED over SENT.
   */
  private async userTransition(acting: ActingContext, accountId: number, id: number, action: 'pause' | 'resume' | 'cancel', audit: 'campaign.paused' | 'campaign.resumed' | 'campaign.cancelled', also?: (trx: Db, row: CampaignRow) => Promise<void>): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await repo.findCampaignLocked(trx, this.handle.dialect, accountId, id);
      if (!current) throw campaignNotFound();
      const to = transition(current.status as CampaignStatus, action);
      const row = await repo.finishCampaign(trx, id, current.status, { status: to, updated_at: nowIso() });
      if (!row) throw new InvalidStateError(`cannot ${action} the campaign: its status changed meanwhile`);
      await also?.(trx, row);
      await recordAudit(trx, acting, accountId, audit, { type: 'campaign', id });
      return this.presenter.present(trx, row);
    });
  }

  /**
   * The scheduler's half of D13: every SCHEDULED campaign whose time has come (including while the
   * process was down) starts sending. The status guard makes each start happen once across processes.
   */
  async startDueCampaigns(now: string): Promise<number[]> {
    const due = await repo.findDueCampaigns(this.handle.db, now);
    const started: number[] = [];
    for (const { id, account_id } of due) {
      const before = await repo.findCampaign(this.handle.db, account_id, id);
      if (!before || before.status !== 'SCHEDULED') continue;
      // D22: compiled outside the transaction (it may take seconds); content that no longer compiles fails the campaign below.
      const compiled = await this.compileForSending(before).catch((err: unknown) => {
        if (err instanceof NotFoundError) return new ValidationError(`its layout (template_id ${before.template_id}) no longer exists; choose another and send again`);
        if (err instanceof ValidationError || err instanceof RateLimitedError) return err;
        throw err;
      });
      // Issue 28 H1: the account has as many compiles waiting as it may; it starts on a later tick, and the other due campaigns start now.
      if (compiled instanceof RateLimitedError) continue;
      const ok = await this.handle.db.transaction().execute(async (trx) => {
        const current = await repo.findCampaignLocked(trx, this.handle.dialect, account_id, id);
        if (!current || current.status !== 'SCHEDULED' || !sameSource(before, current)) return false;
        try {
          if (compiled instanceof ValidationError) throw compiled;
          await this.startSending(SYSTEM_ACTING, trx, current, compiled, 'due');
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          // Contacts may have left since scheduling: it starts (SCHEDULED -> SENDING) and fails at
          // once (SENDING -> FAILED), saying why; D13 has no direct SCHEDULED -> FAILED.
          const failed = transition(transition('SCHEDULED', 'due'), 'fail');
          const row = await repo.updateCampaign(trx, account_id, id, { status: failed, error: err.message, updated_at: nowIso() });
          await enqueueWebhookEvent(trx, campaignEvent('campaign.failed', row));
        }
        return true;
      });
      if (ok) started.push(id);
    }
    return started;
  }

  /** The sender's half: every recipient final -> SENT. Guarded so concurrent senders finish it once. */
  async complete(campaignId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const sent = await repo.finishCampaign(trx, campaignId, 'SENDING', { status: transition('SENDING', 'complete'), sent_at: nowIso(), updated_at: nowIso() });
      if (sent) await enqueueWebhookEvent(trx, campaignEvent('campaign.sent', sent));
      return sent !== undefined;
    });
  }

  /**
   * D23: moves a SENDING A/B campaign on when its sender finds nothing to claim. TESTING: once the
   * test share is all final, the wait starts (`wait_minutes` from now, stored). WAITING: once the
   * stored end has passed, the variant with the best rate wins and the held rest of the audience
   * is released to it, in one transaction whose guarded update lets one sender pick, once. Both
   * are read from the database each time, so a restart during the wait loses nothing. Returns
   * whether the campaign may complete: it has no test, or its winner is picked; and the winner
   * when this call picked it.
   */
  async advanceAbTest(campaignId: number, now = new Date()): Promise<{ settled: boolean; winner?: number }> {
    const c = await repo.findCampaignById(this.handle.db, campaignId);
    const abTest = abTestOf(c);
    const phase = c.ab_phase as AbPhase | null;
    if (abTest === null || phase === null || phase === 'DECIDED') return { settled: true };
    if (phase === 'TESTING') {
      await startAbWait(this.handle.db, campaignId, new Date(now.getTime() + abTest.wait_minutes * 60_000).toISOString());
      return { settled: false };
    }
    if (c.ab_wait_until === null || (toEpochMs(c.ab_wait_until) ?? Infinity) > now.getTime()) return { settled: false };
    return this.handle.db.transaction().execute(async (trx) => {
      const counts = await variantCounts(trx, campaignId);
      const tallies = (variantsOf(c) ?? []).map((_, i) => counts.find((t) => t.variant === i) ?? { delivered: 0, human_opened: 0, human_clicked: 0 });
      const winner = pickWinner(tallies, abTest.metric);
      if (!(await decideAbTest(trx, campaignId, winner, now.toISOString()))) return { settled: false };
      await releaseHeldRecipients(trx, campaignId, winner);
      return { settled: false, winner };
    });
  }

  /**
   * The transport kept failing past its budget: FAILED with the reason; unsent rows wait for
   * `/send`. Claimed rows stay claimed: a message of this campaign may be in flight in another
   * concurrency slot or sender, and its outcome is recorded only on a claimed row (issue 19: giving
   * them all back lost that record, and /send mailed the person again). Each sender gives back
   * what it holds unsent; a dead sender's rows come back when their lease ends (D13).
   */
  async fail(campaignId: number, error: string): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const failed = await repo.finishCampaign(trx, campaignId, 'SENDING', { status: transition('SENDING', 'fail'), error: error.slice(0, 1000), updated_at: nowIso() });
      if (!failed) return false;
      await enqueueWebhookEvent(trx, campaignEvent('campaign.failed', failed));
      return true;
    });
  }

  /**
   * issue 28 C2: the audience counted in the read pool before a transaction snapshots or counts
   * it on the server's connection. A segment's filter makes that read as slow as it likes; one
   * that cannot be counted within the read budget is refused here (400 naming the limit) instead
   * of holding the HTTP thread and the write lock, and one that can bounds the snapshot after it.
   */
  private async countAudienceAhead(c: CampaignRow): Promise<number> {
    return countAudience(this.handle.db, this.handle.dialect, await audienceOf(this.handle.db, this.handle.dialect, c), this.reads.reader(c.account_id, AUDIENCE_TOO_LONG));
  }

  /**
   * D22: the content compiled again when sending starts, with its layout as it is then: what is
   * sent (and the link list its clicks index into) is a snapshot, which later edits of the layout
   * do not change. Checked as for sending first, so a campaign lacking a subject says so.
   */
  private async compileForSending(c: CampaignRow): Promise<CompiledContent> {
    if (c.status === 'FAILED') requireContent(c);
    else requireSendable(c);
    return this.content.compile(this.handle.db, c.account_id, contentSourceOf(c));
  }

  private async startSending(acting: ActingContext, trx: Db, current: CampaignRow, compiled: CompiledContent, action: 'send' | 'due' = 'send'): Promise<CampaignRow> {
    const to = transition(current.status as CampaignStatus, action);
    requireSendable(current);
    const total = await snapshotAudience(trx, this.handle.dialect, current.id, await audienceOf(trx, this.handle.dialect, current));
    if (total === 0) throw noRecipients();
    // Content no longer changes from here (D13), so the list is what every message's links index into.
    const links = writeJson(this.contentLinks({ ...current, ...compiled }));
    const abTest = abTestOf(current);
    const variants = variantsOf(current);
    // D23: the test share is drawn now, in the transaction that snapshots the audience.
    if (abTest && variants) await assignTestShares(trx, current.id, testShareSizes(total, abTest.test_percent, variants.length));
    const ab = abTest ? { ab_phase: 'TESTING' satisfies AbPhase, ab_wait_until: null, ab_winner: null } : {};
    const sending = await repo.updateCampaign(trx, current.account_id, current.id, { status: to, total_recipients: total, error: null, links, ...compiled, ...ab, outcomes_counted_from: nowIso(), updated_at: nowIso() });
    await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', sending));
    // D24.8: sending starts, by the API's send or by the scheduler (outside any request: the system).
    await recordAudit(trx, acting, current.account_id, 'campaign.sent', { type: 'campaign', id: current.id });
    return sending;
  }
}
