import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { CampaignRow } from '../db/schema.ts';
import { inSendWindow, type SendWindow } from '../domain/campaigns/send-window.ts';
import { RATE_STOP, rateStopReason } from '../domain/campaigns/rate-stop.ts';
import { backoffDelay } from '../domain/shared/backoff.ts';
import { readJson } from '../domain/shared/json.ts';
import { PollingLoop, yieldToEventLoop } from '../polling-loop.ts';
import { DomainSendLimiter } from '../rate-limit/domain-send-limiter.ts';
import { AccountRotation } from './account-rotation.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { ContentError, type MessageRenderer } from './message-renderer.ts';
import { DomainPacer, PacedRows } from './paced-rows.ts';
import { SentRecorder } from './sent-recorder.ts';
import { CHUNK_BYTES, jobWeight, notHanded, RENDER_CHUNK, type CampaignTurn, type ClaimedBatch, type Job, type Round } from './sending-round.ts';
import type { CampaignLifecycle, ClaimedRow, SendingStore } from './sending-ports.ts';
import type { MailTransport, OutgoingMessage } from './transports/transport.ts';
import { WorkFeed } from './work-feed.ts';
import type { MessageJob, MessageLane } from './message-lane.ts';

/** The sender's settings; Config['sending'] says what each means. */
export type DispatcherOptions = Pick<Config['sending'], 'concurrency' | 'batchSize' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'failureBudget' | 'pollMs' | 'renderBudgetMs'>;

/**
 * Consecutive recipients of a campaign over a render limit, with no message rendered between
 * them, after which the campaign goes FAILED (issue 14 H4): ten messages at the 300 ms budget are
 * 3 s of render thread, and by then it is the content, not one contact's data, that is at fault.
 * Those ten stay FAILED with their reason; the recipients not yet reached stay PENDING for a send
 * once the content is fixed.
 */
const RENDER_LIMIT_STRIKES = 10;

/**
 * D23: batches a campaign's turn may claim in a row whose rows are all held back for their
 * domains' caps before it gives up the turn: a backlog of a million at one capped domain is swept
 * a few thousand rows a turn, not in one turn that keeps every other campaign waiting.
 */
const HELD_BATCHES_PER_TURN = 10;

/** How long a round goes on claiming before it looks again for due and new campaigns. */
const ROUND_MS = 2_000;
/**
 * How long a sent message's outcome may wait for others to share its transaction (SentRecorder).
 * A group of half the concurrency is written at once; measured at 20 in flight, waiting up to a
 * few milliseconds made groups of about 10 instead of 3, and the sender about a quarter faster.
 */
const RECORD_WAIT_MS = 5;

/**
 * The sender: claims recipients of SENDING campaigns in batches, has each batch rendered on the
 * render thread, sends each message, and records each outcome on its row before the concurrency
 * slot is freed. So at any instant at most `concurrency` messages are sent-but-unrecorded: a crash
 * can mail those again (they were in flight) and never skips anyone (an unrecorded row is claimed
 * again when its lease ends). The next batch is claimed and rendered while the current one is
 * being sent (WorkFeed), so the connections do not sit idle between batches.
 */
export class Dispatcher {
  private readonly sent: SentRecorder;
  private consecutiveTransportFailures = 0;
  /** per campaign: its recipients over a render limit since its last message rendered (RENDER_LIMIT_STRIKES); kept across rounds */
  private readonly renderLimitStrikes = new Map<number, number>();
  private readonly loop: PollingLoop;
  private readonly pacer: DomainPacer;
  /** D25.4: transactional mail's lane, asked for work before every campaign turn; null in a sender without it */
  private readonly lane: MessageLane | null;

  constructor(
    private readonly store: SendingStore,
    private readonly campaigns: CampaignLifecycle,
    private readonly transport: MailTransport,
    private readonly renderer: MessageRenderer,
    private readonly opts: DispatcherOptions,
    private readonly logger: Logger,
    /** D23: per-recipient-domain caps (SEND_DOMAIN_RATES); none by default */
    domainLimiter = new DomainSendLimiter(new Map()),
    /** D25.4: builds the transactional lane over this sender's pacer (one pace per recipient domain for both) */
    laneOf?: (pacer: DomainPacer) => MessageLane,
  ) {
    this.sent = new SentRecorder(store, Math.max(1, Math.floor(opts.concurrency / 2)), RECORD_WAIT_MS);
    this.pacer = new DomainPacer(domainLimiter, store);
    this.lane = laneOf ? laneOf(this.pacer) : null;
    this.loop = new PollingLoop(() => this.runOnce(), () => this.pacer.pauseMs(opts.pollMs), (err) => this.logger.error({ err }, 'sending round failed; retrying'));
  }

  start(): void {
    this.loop.start();
  }

  /** Finishes the messages in flight, gives back what was claimed but not sent, then returns. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.renderer.close();
  }

  /**
   * One round: starts due campaigns, then takes turns over the SENDING ones, round-robin by
   * account and by campaign within an account (AccountRotation), each turn one chunk of its
   * campaign's claimed batch (claiming a batch when it holds none). Every campaign has its first
   * turn; more follow while the round is younger than `roundMs` (so `runOnce(0)` is exactly one
   * turn per campaign). A round ends after `roundMs` even with batches half rendered (their rest
   * goes back), so a campaign started meanwhile waits at most that long for its first turn.
   * Returns how many recipients it handled.
   */
  async runOnce(roundMs = ROUND_MS): Promise<number> {
    await this.campaigns.startDueCampaigns(new Date().toISOString());
    // Issue 34: rows a cancel could not reach (held by a sender that died, given back meanwhile) are CANCELLED too.
    await this.store.settleCancelled(new Date().toISOString());
    const turns: CampaignTurn[] = (await this.store.sendingCampaigns()).map((campaign) => ({ campaign, stopped: false, batch: null, tried: false }));
    const rotation = new AccountRotation(turns);
    const roundEnds = Date.now() + roundMs;
    const round: Round = { leases: [], recorded: 0, notHanded: new Map() };
    let aborted = false;
    const feed = new WorkFeed<Job | MessageJob>(
      async () => {
        while (!aborted && !this.loop.stopping) {
          await yieldToEventLoop(); // turns that only record render errors never leave the microtask queue either
          // D25.4: due transactional messages go before the next campaign turn.
          const messages = await this.lane?.take(round.leases);
          if (messages?.length) return messages;
          const turn = rotation.next();
          if (turn === null) return null;
          if (turn.tried && Date.now() >= roundEnds) {
            rotation.drop(turn);
            continue;
          }
          turn.tried = true;
          const jobs = await this.takeTurn(turn, round);
          if (jobs === null) rotation.drop(turn);
          else if (jobs.length > 0) return jobs;
        }
        return null;
      },
      RENDER_CHUNK,
      jobWeight,
    );

    const unsent: number[] = [];
    const paced = new PacedRows();
    let handled = 0;
    let failure: unknown;
    const slot = async () => {
      for (let job = await feed.take(); job !== undefined; job = await feed.take()) {
        // Issue 14 H1: on SQLite every await here can resolve without leaving the microtask queue.
        await yieldToEventLoop();
        if ('lane' in job) {
          // D25.4: a transactional message (given back unsent once the round is over); no campaign's failure budget counts it.
          try {
            if (await this.lane!.send(job, this.transport, aborted || this.loop.stopping)) handled++;
          } catch (err) {
            failure ??= err;
            aborted = true;
          }
          continue;
        }
        const { turn, row, lease } = job;
        if (aborted || turn.stopped || this.loop.stopping || !lease.canStart()) {
          unsent.push(row.id);
          notHanded(round, turn.campaign, 1);
          lease.done(row.id);
          continue;
        }
        try {
          if (await this.overDomainCap(job, paced)) {
            notHanded(round, turn.campaign, 1);
            continue;
          }
          if (!(await this.sendOne(turn, row, job.message))) notHanded(round, turn.campaign, 1);
          handled++;
        } catch (err) {
          // The row stays claimed and is taken again when its lease ends; the rest of the round is given back.
          failure ??= err;
          aborted = true;
        }
        lease.done(row.id);
      }
    };
    try {
      await Promise.all(Array.from({ length: this.opts.concurrency }, slot));
    } finally {
      for (const lease of round.leases) lease.stop();
      await this.store.release(unsent);
      for (const { due, ids } of paced.dueTimes()) await this.store.postpone(ids, new Date(due).toISOString());
      // Claimed but never rendered (the round ended, stopped or failed in the middle of a batch) goes back too.
      for (const turn of turns) if (turn.batch) await this.giveBackRest(turn.batch, round);
      // D26.2: what was claimed and not handed to the mail server comes off the warm-up day's count.
      for (const [campaign, count] of round.notHanded) await this.store.uncountClaims(campaign, count);
    }
    if (failure !== undefined || feed.error !== undefined) throw failure ?? feed.error;
    // Rows held back count as work done: the next round claims past them at once.
    return handled + round.recorded + paced.size;
  }

  /**
   * A campaign's turn: the next chunk of its batch, rendered (a batch claimed first when it holds
   * none left). Null when the campaign is out of this round: nothing (more) to claim now, or it
   * failed, or (issue 34) it was paused or cancelled since the round began.
   */
  private async takeTurn(turn: CampaignTurn, round: Round): Promise<Job[] | null> {
    // Issue 34: asked before each chunk of a batch but its first (the claim read the status then).
    if (!turn.stopped && turn.batch !== null && turn.batch.next < turn.batch.rows.length) turn.stopped = !(await this.store.stillSending(turn.campaign.id));
    if (turn.stopped) {
      // Failed (the transport, in a concurrency slot), paused or cancelled meanwhile: no more of it is rendered.
      if (turn.batch) await this.giveBackRest(turn.batch, round);
      return null;
    }
    if (turn.batch === null || turn.batch.next === turn.batch.rows.length) {
      if (!(await this.mayClaim(turn))) return null;
      turn.batch = await this.claimBatch(turn);
      if (turn.batch === null) return null;
      round.leases.push(turn.batch.lease);
    }
    return this.renderChunk(turn.batch, round);
  }

  /**
   * D23, before each batch: a campaign whose bounce or complaint rate spiked stops (FAILED with the
   * reason; what is in flight is still recorded, see CampaignLifecycle.fail); outside its send window
   * nothing of it is claimed and it stays SENDING.
   */
  private async mayClaim(turn: CampaignTurn): Promise<boolean> {
    const { campaign } = turn;
    const reason = rateStopReason(await this.store.latestOutcomes(campaign, RATE_STOP.window));
    // With nothing left to send there is nothing to stop: it completes as usual.
    if (reason !== null && (await this.store.countUnfinished(campaign.id)) > 0) {
      await this.failCampaign(turn, reason, 'its bounce or complaint rate spiked');
      return false;
    }
    const window = readJson<SendWindow | null>(campaign.send_window, null);
    if (window === null || inSendWindow(window, new Date())) return true;
    // Its last messages may have gone just before the window closed: nothing is left to wait for.
    await this.completeIfDone(campaign);
    return false;
  }

  /** SENT once no recipient is left unfinished. */
  private async completeIfDone(campaign: CampaignRow): Promise<void> {
    if ((await this.store.countUnfinished(campaign.id)) === 0 && (await this.campaigns.complete(campaign.id))) {
      this.renderLimitStrikes.delete(campaign.id);
      this.logger.info({ campaign: campaign.id }, 'campaign sent');
    }
  }

  /**
   * Claims and loads the campaign's next batch; null when it has nothing to claim now (and is
   * finished if nothing is left at all), or when HELD_BATCHES_PER_TURN batches in a row were all
   * held back for their domains' caps (it claims on in its next turn).
   */
  private async claimBatch(turn: CampaignTurn, heldBatches = 0): Promise<ClaimedBatch | null> {
    const { campaign } = turn;
    const claimedAt = Date.now();
    // D23: a warming From domain's campaigns claim no more than its day's cap leaves.
    const claimed = await this.store.claim(campaign, this.opts.batchSize, new Date(claimedAt).toISOString(), new Date(claimedAt + this.opts.leaseMs).toISOString());
    // D19: an address suppressed since the snapshot (a bounce elsewhere, an entry added meanwhile) is not sent.
    const unsuppressed = await this.store.dropSuppressed(campaign, claimed);
    const rows = await this.pacer.holdBacklogged(unsuppressed);
    // D26.2: the suppressed and the held back are not sent: off the warm-up day's count at once,
    // so the next claim of this turn may take their place.
    await this.store.uncountClaims(campaign, claimed.length - rows.length);
    if (unsuppressed.length === 0 && claimed.length > 0) return this.claimBatch(turn, heldBatches);
    if (rows.length === 0 && unsuppressed.length > 0) {
      if (heldBatches + 1 >= HELD_BATCHES_PER_TURN) return null;
      await yieldToEventLoop(); // a long backlog is many claims, each answered at once on SQLite (issue 14 H1)
      return this.claimBatch(turn, heldBatches + 1);
    }
    if (rows.length === 0) {
      // D23: an A/B campaign finishes only after its winner is picked (and sent to the rest).
      const ab = await this.campaigns.advanceAbTest(campaign.id);
      if (ab.winner !== undefined) this.logger.info({ campaign: campaign.id, variant: ab.winner }, 'A/B test decided: the winner goes to the rest');
      if (!ab.settled) return null;
      await this.completeIfDone(campaign);
      return null;
    }
    const lease = new LeaseKeeper(this.store, rows, claimedAt, this.opts.leaseMs, this.logger);
    try {
      return { turn, rows, contacts: await this.store.mergeContacts(rows), lease, next: 0 };
    } catch (err) {
      lease.stop();
      await this.store.release(rows.map((r) => r.id));
      await this.store.uncountClaims(campaign, rows.length);
      throw err;
    }
  }

  /**
   * The batch's next chunk, rendered on the render thread within one turn's budget (RENDER_CHUNK,
   * CHUNK_BYTES, SEND_RENDER_BUDGET_MS). A recipient whose message cannot be rendered is FAILED
   * here with the reason: trying again would fail again. Null when the campaign cannot go on: its
   * content does not compile, or its recipients keep hitting the render limits
   * (RENDER_LIMIT_STRIKES); it is FAILED, and what is left of the batch goes back.
   */
  private async renderChunk(batch: ClaimedBatch, round: Round): Promise<Job[] | null> {
    const { turn, lease } = batch;
    const start = batch.next;
    const rows = batch.rows.slice(start, start + RENDER_CHUNK);
    let results;
    try {
      results = await this.renderer.render(
        turn.campaign,
        rows.map((row) => ({
          recipientId: row.id,
          contact: (row.contact_id === null ? undefined : batch.contacts.get(row.contact_id)) ?? { email: row.email, first_name: null, last_name: null, phone: null, custom_fields: {} },
          variant: row.variant,
        })),
        { ms: this.opts.renderBudgetMs, bytes: CHUNK_BYTES },
      );
    } catch (err) {
      // This chunk and the rest of the batch go back unsent.
      await this.giveBackRest(batch, round);
      if (!(err instanceof ContentError)) throw err;
      await this.failCampaign(turn, `the content cannot be rendered: ${err.message}`, 'its content cannot be rendered');
      return null;
    }
    const campaignId = turn.campaign.id;
    const jobs: Job[] = [];
    for (const [i, message] of results.entries()) {
      const row = rows[i];
      batch.next = start + i + 1;
      if (!('renderError' in message)) {
        this.renderLimitStrikes.delete(campaignId);
        jobs.push({ turn, row, message, lease });
        continue;
      }
      await this.store.recordDeferred(row.id, `could not render the message: ${message.renderError}`, null);
      lease.done(row.id);
      round.recorded++;
      notHanded(round, turn.campaign, 1);
      if (!message.limit) continue;
      const strikes = (this.renderLimitStrikes.get(campaignId) ?? 0) + 1;
      this.renderLimitStrikes.set(campaignId, strikes);
      if (strikes < RENDER_LIMIT_STRIKES) continue;
      this.renderLimitStrikes.delete(campaignId);
      // What this chunk rendered before them goes back with the rest of the batch, unsent.
      for (const job of jobs) lease.done(job.row.id);
      await this.store.release(jobs.map((job) => job.row.id));
      notHanded(round, turn.campaign, jobs.length);
      await this.giveBackRest(batch, round);
      await this.failCampaign(turn, `${strikes} recipients in a row were over a render limit; the last: ${message.renderError}`, 'its messages keep hitting the render limits');
      return null;
    }
    return jobs;
  }

  /** Gives back the batch's rows not yet rendered; the batch is then used up. */
  private async giveBackRest(batch: ClaimedBatch, round: Round): Promise<void> {
    const ids = batch.rows.slice(batch.next).map((r) => r.id);
    batch.next = batch.rows.length;
    for (const id of ids) batch.lease.done(id);
    await this.store.release(ids);
    notHanded(round, batch.turn.campaign, ids.length);
  }

  /**
   * D23: without a token of the recipient domain's cap the row is held back (PacedRows) and the
   * slot goes on to the next message, so mail to other domains is not held up behind it.
   */
  private async overDomainCap(job: Job, paced: PacedRows): Promise<boolean> {
    const due = await this.pacer.heldUntil(job.row.email);
    if (due === null) return false;
    paced.hold(job.row.id, due);
    job.lease.done(job.row.id);
    return true;
  }

  /**
   * Sends one recipient's message and records the outcome. Whether the mail server took it (D26.2:
   * what warm-up counts): accepted, or refused with a 5xx; not a 4xx or no answer.
   */
  private async sendOne(turn: CampaignTurn, row: ClaimedRow, message: OutgoingMessage): Promise<boolean> {
    const { campaign } = turn;
    const outcome = await this.transport.send(message);
    if (outcome.kind === 'sent') {
      this.consecutiveTransportFailures = 0;
      await this.sent.record({ row, messageId: message.messageId, accountId: campaign.account_id });
      return true;
    }
    const now = new Date().toISOString();
    if (outcome.kind === 'bounced') {
      this.consecutiveTransportFailures = 0;
      await this.store.recordBounced({ row, messageId: message.messageId, accountId: campaign.account_id }, outcome.error, now);
      return true;
    }
    const attempts = row.attempts + 1;
    const giveUp = outcome.permanent === true || (!outcome.transportFailure && attempts >= this.opts.maxAttempts);
    const delay = backoffDelay(this.opts.retryBaseMs, attempts);
    await this.store.recordDeferred(row.id, outcome.error, giveUp ? null : new Date(Date.now() + delay).toISOString());
    if (outcome.transportFailure && ++this.consecutiveTransportFailures >= this.opts.failureBudget && !turn.stopped) {
      this.consecutiveTransportFailures = 0;
      await this.failCampaign(turn, `the mail transport keeps failing: ${outcome.error}`, 'mail transport keeps failing');
    }
    return false;
  }

  /** The campaign goes FAILED with `reason`; nothing more of it is started this round. */
  private async failCampaign(turn: CampaignTurn, reason: string, logAs: string): Promise<void> {
    turn.stopped = true;
    await this.campaigns.fail(turn.campaign.id, reason);
    this.logger.error({ campaign: turn.campaign.id, error: reason }, `campaign failed: ${logAs}`);
  }
}
