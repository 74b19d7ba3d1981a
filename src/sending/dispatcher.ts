import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { findSendingCampaigns } from '../domain/campaigns/campaigns.repo.ts';
import type { CampaignLifecycleService } from '../domain/campaigns/campaign-lifecycle.service.ts';
import { suppressedAmong } from '../domain/suppressions/suppressions.repo.ts';
import { SUPPRESSED_REASON } from '../domain/suppressions/suppression.ts';
import { claimRecipients, countLatestOutcomes, countUnfinished, failClaimedRecipients, markBounced, markDeferred, markSent, markSentMany, postponeClaims, releaseClaims, renewClaims, type SentRecord } from '../domain/campaigns/recipients.repo.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents } from '../domain/outbound-webhooks/enqueue.ts';
import { emailEvent } from '../domain/outbound-webhooks/event-data.ts';
import { readJson } from '../domain/shared/json.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import { PollingLoop, yieldToEventLoop } from '../polling-loop.ts';
import { AccountRotation } from './account-rotation.ts';
import { ContentError, type MessageRenderer } from './message-renderer.ts';
import type { MergeContact } from './render.ts';
import type { MailTransport, OutgoingMessage } from './transports/transport.ts';
import { WarmupGate } from './warmup-gate.ts';
import { WorkFeed } from './work-feed.ts';
import { backoffDelay } from '../domain/shared/backoff.ts';
import { findMergeFields } from '../domain/contacts/contacts.repo.ts';
import { DomainSendLimiter } from '../rate-limit/domain-send-limiter.ts';
import { emailDomain, emailKey } from '../domain/shared/email-address.ts';
import { DomainSlots, PacedRows } from './paced-rows.ts';
import { inSendWindow, type SendWindow } from '../domain/campaigns/send-window.ts';
import { RATE_STOP, rateStopReason } from '../domain/campaigns/rate-stop.ts';

/** The sender's settings; Config['sending'] says what each means. */
export type DispatcherOptions = Pick<Config['sending'], 'concurrency' | 'batchSize' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'failureBudget' | 'pollMs' | 'renderBudgetMs'>;

type ClaimedRow = Awaited<ReturnType<typeof claimRecipients>>[number];

/** A message the mail server accepted, with what its email.sent webhook event tells. */
type SentOutcome = SentRecord & { row: ClaimedRow; accountId: number };

const sentEvent = (r: SentOutcome, now: string) =>
  emailEvent('email.sent', { accountId: r.accountId, campaignId: r.row.campaign_id, contactId: r.row.contact_id, email: r.row.email, messageId: r.messageId }, { sent_at: toApiTimestamp(now) });

/**
 * Group commit for SENT outcomes: outcomes are written together, one transaction per group, since
 * a transaction's fixed cost (begin, commit, the webhook subscriber lookup) is most of what a
 * small one costs: measured on SQLite, about 75-120 µs of CPU per message in groups of 1, 25-35
 * in groups of 4, and 9 in groups of 20. A group is written once it holds `groupSize` outcomes
 * or its first one has waited `maxWaitMs`, whichever comes first; outcomes that arrive while a
 * group is being written join the next one. Each caller still waits until its own row is written,
 * so an outcome is recorded before its concurrency slot takes the next message. If a group
 * fails, its rows are written one by one, so one bad row cannot take the others' records with it.
 */
class SentRecorder {
  private queue: (SentOutcome & { done: (err?: unknown) => void })[] = [];
  private busy = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly handle: DbHandle,
    private readonly groupSize: number,
    private readonly maxWaitMs: number,
  ) {}

  record(record: SentOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ...record, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.busy) return; // the write under way takes this group next
      if (this.queue.length >= this.groupSize) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.busy = true;
        setImmediate(() => void this.flush());
      } else {
        this.timer ??= setTimeout(() => {
          this.timer = null;
          this.busy = true;
          void this.flush();
        }, this.maxWaitMs);
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      const now = new Date().toISOString();
      try {
        // email.sent goes out for the rows that really changed, in the same commit.
        await this.handle.db.transaction().execute(async (trx) => enqueueWebhookEvents(trx, (await markSentMany(trx, group, now)).map((r) => sentEvent(r, now))));
        for (const r of group) r.done();
      } catch {
        for (const r of group) {
          try {
            await this.handle.db.transaction().execute(async (trx) => {
              if (await markSent(trx, r.row, r.messageId, now)) await enqueueWebhookEvent(trx, sentEvent(r, now));
            });
            r.done();
          } catch (err) {
            r.done(err);
          }
        }
      }
    }
    this.busy = false;
  }
}

/**
 * Keeps a claimed batch's lease alive while it is being sent. Without it, a batch that takes
 * longer than the lease (a slow SMTP server, a large batch) would let another sender claim rows
 * this one is still sending: a duplicate with no crash at all. Every third of the lease it
 * extends the rows not yet recorded. Should renewing fail (the database unreachable), rows not
 * yet started are given back before the lease it last secured runs out.
 */
class LeaseKeeper {
  private readonly held: Set<number>;
  private securedUntil: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly handle: DbHandle,
    rows: ClaimedRow[],
    claimedAt: number,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.held = new Set(rows.map((r) => r.id));
    this.securedUntil = claimedAt + leaseMs;
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  /** A row may be started only while a good part of the lease remains, so its send ends inside it. */
  canStart(): boolean {
    return Date.now() < this.securedUntil - this.leaseMs * 0.2;
  }

  done(rowId: number): void {
    this.held.delete(rowId);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = Date.now() + this.leaseMs;
    try {
      await renewClaims(this.handle.db, [...this.held], new Date(until).toISOString());
      this.securedUntil = until;
    } catch (err) {
      this.logger.warn({ err }, 'could not renew the lease on claimed recipients; unstarted ones will be given back');
    }
  }
}

/** One campaign's part in a round. */
interface CampaignTurn {
  campaign: CampaignRow;
  /** the transport kept failing, or its messages the render limits: nothing more of it is started this round */
  failed: boolean;
  /** its claimed batch, rendered a chunk per turn */
  batch: ClaimedBatch | null;
  /** it has had a turn this round */
  tried: boolean;
}

/** A claimed recipient with its rendered message, as the round's concurrency slots take them. */
interface Job {
  turn: CampaignTurn;
  row: ClaimedRow;
  message: OutgoingMessage;
  lease: LeaseKeeper;
}

/** A claimed batch, rendered chunk by chunk as its campaign's turns come. */
interface ClaimedBatch {
  turn: CampaignTurn;
  rows: ClaimedRow[];
  contacts: Map<number, MergeContact>;
  lease: LeaseKeeper;
  /** the first row not yet rendered */
  next: number;
}

/** What a round keeps across its turns. */
interface Round {
  leases: LeaseKeeper[];
  /** recipients whose outcome was recorded without a send (their message could not be rendered) */
  recorded: number;
}

/**
 * A campaign's turn renders at most this many messages, this many bytes of them (MIME source and
 * parts), and the render budget of one message (SEND_RENDER_BUDGET_MS) in time, whichever comes
 * first, but always one message; then the next account takes its turn (issue 14 H4, H5). Bounded
 * by count alone, one account's 50 heavy messages held the render thread for up to 50 s while
 * another account's single message waited; bounded by bytes too, a chunk of large newsletters
 * stays a few megabytes however large each one is.
 */
const RENDER_CHUNK = 50;
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * How much the sending thread keeps rendered ahead: the next turn is rendered once what is left
 * weighs no more than RENDER_CHUNK messages of up to 64 KB each (a larger message weighs more).
 */
const FEED_UNIT_BYTES = 64 * 1024;
const jobWeight = (job: Job) => Math.max(1, Math.ceil((job.message.mime?.byteLength ?? 0) / FEED_UNIT_BYTES));

/**
 * Consecutive recipients of a campaign over a render limit, with no message rendered between
 * them, after which the campaign goes FAILED (issue 14 H4): ten messages at the 300 ms budget are
 * 3 s of render thread, and by then it is the content, not one contact's data, that is at fault.
 * Those ten stay FAILED with their reason; the recipients not yet reached stay PENDING for a send
 * once the content is fixed.
 */
const RENDER_LIMIT_STRIKES = 10;

/** D23: the pause between idle rounds while held-back rows are coming due (a tenth of a second's worth of each cap at a time). */
const PACED_POLL_MS = 100;

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
  /** D23: caps what a warming domain's campaigns claim per day */
  private readonly warmup: WarmupGate;
  /** D23: when rows held back for their domain's cap are due again, kept across rounds */
  private readonly domainSlots = new DomainSlots();

  constructor(
    private readonly handle: DbHandle,
    private readonly campaigns: CampaignLifecycleService,
    private readonly transport: MailTransport,
    private readonly renderer: MessageRenderer,
    private readonly opts: DispatcherOptions,
    private readonly logger: Logger,
    /** D23: per-recipient-domain caps (SEND_DOMAIN_RATES); none by default */
    private readonly domainLimiter = new DomainSendLimiter(new Map()),
  ) {
    this.sent = new SentRecorder(handle, Math.max(1, Math.floor(opts.concurrency / 2)), RECORD_WAIT_MS);
    this.warmup = new WarmupGate(handle);
    this.loop = new PollingLoop(() => this.runOnce(), opts.pollMs, (err) => this.logger.error({ err }, 'sending round failed; retrying'));
    // D23: while rows held back for a domain's cap are coming due, look again soon: a full SEND_POLL_MS pause would leave the cap's seconds unused.
    const pauseMs = () => (this.domainSlots.dueUntil() > Date.now() ? Math.min(opts.pollMs, PACED_POLL_MS) : opts.pollMs);
    this.loop = new PollingLoop(() => this.runOnce(), pauseMs, (err) => this.logger.error({ err }, 'sending round failed; retrying'));
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
    const turns: CampaignTurn[] = (await findSendingCampaigns(this.handle.db)).map((campaign) => ({ campaign, failed: false, batch: null, tried: false }));
    const rotation = new AccountRotation(turns);
    const roundEnds = Date.now() + roundMs;
    const round: Round = { leases: [], recorded: 0 };
    let aborted = false;
    const feed = new WorkFeed<Job>(
      async () => {
        while (!aborted && !this.loop.stopping) {
          await yieldToEventLoop(); // turns that only record render errors never leave the microtask queue either
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
    /** per campaign, its rows held back for their domain's pace this round (the warm-up gate takes them back) */
    const pacedOf = new Map<CampaignRow, number>();
    let handled = 0;
    let failure: unknown;
    const slot = async () => {
      for (let job = await feed.take(); job !== undefined; job = await feed.take()) {
        // Issue 14 H1: on SQLite every await here can resolve without leaving the microtask queue.
        await yieldToEventLoop();
        const { turn, row, lease } = job;
        if (aborted || turn.failed || this.loop.stopping || !lease.canStart()) {
          unsent.push(row.id);
          lease.done(row.id);
          continue;
        }
        try {
          if (await this.overDomainCap(job, paced)) {
            pacedOf.set(turn.campaign, (pacedOf.get(turn.campaign) ?? 0) + 1);
            continue;
          }
          await this.sendOne(turn, row, job.message);
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
      await releaseClaims(this.handle.db, unsent);
      for (const { due, ids } of paced.dueTimes()) await postponeClaims(this.handle.db, ids, new Date(due).toISOString());
      for (const [campaign, count] of pacedOf) await this.warmup.giveBack(campaign, count);
      // Claimed but never rendered (the round ended, stopped or failed in the middle of a batch) goes back too.
      for (const turn of turns) if (turn.batch) await this.giveBackRest(turn.batch);
    }
    if (failure !== undefined || feed.error !== undefined) throw failure ?? feed.error;
    // Rows held back count as work done: the next round claims past them at once.
    return handled + round.recorded + paced.size;
  }

  /**
   * A campaign's turn: the next chunk of its batch, rendered (a batch claimed first when it holds
   * none left). Null when the campaign is out of this round: nothing (more) to claim now, or it
   * failed.
   */
  private async takeTurn(turn: CampaignTurn, round: Round): Promise<Job[] | null> {
    if (turn.failed) {
      // Failed meanwhile (the transport, in a concurrency slot): no more of it is rendered.
      if (turn.batch) await this.giveBackRest(turn.batch);
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
   * reason; what is in flight is still recorded, see CampaignLifecycleService.fail); outside its send window
   * nothing of it is claimed and it stays SENDING.
   */
  private async mayClaim(turn: CampaignTurn): Promise<boolean> {
    const { campaign } = turn;
    const reason = rateStopReason(await countLatestOutcomes(this.handle.db, campaign.id, campaign.outcomes_counted_from, RATE_STOP.window));
    // With nothing left to send there is nothing to stop: it completes as usual.
    if (reason !== null && (await countUnfinished(this.handle.db, campaign.id)) > 0) {
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
    if ((await countUnfinished(this.handle.db, campaign.id)) === 0 && (await this.campaigns.complete(campaign.id))) {
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
    const claimed = await this.warmup.claim(campaign, this.opts.batchSize, (db, limit) =>
      claimRecipients(db, this.handle.dialect, {
        campaignId: campaign.id,
        limit,
        now: new Date(claimedAt).toISOString(),
        leaseUntil: new Date(claimedAt + this.opts.leaseMs).toISOString(),
      }),
    );
    // D19: an address suppressed since the snapshot (a bounce elsewhere, an entry added meanwhile) is not sent.
    const suppressed = await suppressedAmong(this.handle.db, campaign.account_id, claimed.map((r) => r.email));
    const unsuppressed = suppressed.size === 0 ? claimed : claimed.filter((r) => !suppressed.has(emailKey(r.email)));
    if (unsuppressed.length < claimed.length) {
      await failClaimedRecipients(this.handle.db, claimed.filter((r) => suppressed.has(emailKey(r.email))).map((r) => r.id), SUPPRESSED_REASON);
      if (unsuppressed.length === 0) return this.claimBatch(turn);
    }
    const rows = await this.holdBacklogged(unsuppressed);
    await this.warmup.giveBack(campaign, unsuppressed.length - rows.length);
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
    const lease = new LeaseKeeper(this.handle, rows, claimedAt, this.opts.leaseMs, this.logger);
    try {
      return { turn, rows, contacts: await this.loadContacts(rows), lease, next: 0 };
    } catch (err) {
      lease.stop();
      await releaseClaims(this.handle.db, rows.map((r) => r.id));
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
      await this.giveBackRest(batch);
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
      await markDeferred(this.handle.db, row.id, `could not render the message: ${message.renderError}`, null);
      lease.done(row.id);
      round.recorded++;
      if (!message.limit) continue;
      const strikes = (this.renderLimitStrikes.get(campaignId) ?? 0) + 1;
      this.renderLimitStrikes.set(campaignId, strikes);
      if (strikes < RENDER_LIMIT_STRIKES) continue;
      this.renderLimitStrikes.delete(campaignId);
      // What this chunk rendered before them goes back with the rest of the batch, unsent.
      for (const job of jobs) lease.done(job.row.id);
      await releaseClaims(this.handle.db, jobs.map((job) => job.row.id));
      await this.giveBackRest(batch);
      await this.failCampaign(turn, `${strikes} recipients in a row were over a render limit; the last: ${message.renderError}`, 'its messages keep hitting the render limits');
      return null;
    }
    return jobs;
  }

  /** Gives back the batch's rows not yet rendered; the batch is then used up. */
  private async giveBackRest(batch: ClaimedBatch): Promise<void> {
    const ids = batch.rows.slice(batch.next).map((r) => r.id);
    batch.next = batch.rows.length;
    for (const id of ids) batch.lease.done(id);
    await releaseClaims(this.handle.db, ids);
  }

  private async loadContacts(rows: ClaimedRow[]): Promise<Map<number, MergeContact>> {
    const ids = rows.map((r) => r.contact_id).filter((id): id is number => id !== null);
    const contacts = new Map<number, MergeContact>();
    for (const c of await findMergeFields(this.handle.db, ids)) {
      contacts.set(c.id, { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}) });
    }
    return contacts;
  }

  /**
   * D23: rows of a capped domain not tried yet, whose held-back rows already fill its slots past
   * the next second, would only be held back too: they take their slots now, before they are rendered, so a
   * campaign whose first thousands of recipients share a capped domain reaches the others'
   * quickly (rendering each first, a loaded 2-core machine took 6 s to get past 4,000).
   */
  private async holdBacklogged(rows: ClaimedRow[]): Promise<ClaimedRow[]> {
    const now = Date.now();
    const held = new PacedRows();
    const ready = rows.filter((row) => {
      const rate = this.domainLimiter.rateFor(row.email);
      const domain = emailDomain(row.email);
      // A row with a due time has waited for its slot (or its retry) already: it goes now.
      if (rate === null || row.next_attempt_at !== null || this.domainSlots.nextFree(domain) <= now + 1000) return true;
      held.hold(row.id, this.domainSlots.take(domain, rate, now));
      return false;
    });
    for (const { due, ids } of held.dueTimes()) await postponeClaims(this.handle.db, ids, new Date(due).toISOString());
    return ready;
  }

  /**
   * D23: takes a token of the recipient domain's cap; without one the row is held back (PacedRows)
   * and the slot goes on to the next message, so mail to other domains is not held up behind it.
   */
  private async overDomainCap(job: Job, paced: PacedRows): Promise<boolean> {
    const { row, lease } = job;
    const waitMs = await this.domainLimiter.take(row.email);
    if (waitMs === null) return false;
    paced.hold(row.id, this.domainSlots.take(emailDomain(row.email), this.domainLimiter.rateFor(row.email) ?? 1, Date.now() + waitMs));
    lease.done(row.id);
    return true;
  }

  /** Sends one recipient's message and records the outcome. */
  private async sendOne(turn: CampaignTurn, row: ClaimedRow, message: OutgoingMessage): Promise<void> {
    const { campaign } = turn;
    const outcome = await this.transport.send(message);
    if (outcome.kind === 'sent') {
      this.consecutiveTransportFailures = 0;
      await this.sent.record({ row, messageId: message.messageId, accountId: campaign.account_id });
      return;
    }
    const now = new Date().toISOString();
    if (outcome.kind === 'bounced') {
      this.consecutiveTransportFailures = 0;
      await this.handle.db.transaction().execute(async (trx) => {
        if (!(await markBounced(trx, row, message.messageId, outcome.error, now))) return;
        const ref = { accountId: campaign.account_id, campaignId: row.campaign_id, contactId: row.contact_id, email: row.email, messageId: message.messageId };
        await enqueueWebhookEvent(trx, emailEvent('email.bounced', ref, { hard: true, reason: outcome.error }));
      });
      return;
    }
    const attempts = row.attempts + 1;
    const giveUp = outcome.permanent === true || (!outcome.transportFailure && attempts >= this.opts.maxAttempts);
    const delay = backoffDelay(this.opts.retryBaseMs, attempts);
    await markDeferred(this.handle.db, row.id, outcome.error, giveUp ? null : new Date(Date.now() + delay).toISOString());
    if (outcome.transportFailure && ++this.consecutiveTransportFailures >= this.opts.failureBudget && !turn.failed) {
      this.consecutiveTransportFailures = 0;
      await this.failCampaign(turn, `the mail transport keeps failing: ${outcome.error}`, 'mail transport keeps failing');
    }
  }

  /** The campaign goes FAILED with `reason`; nothing more of it is started this round. */
  private async failCampaign(turn: CampaignTurn, reason: string, logAs: string): Promise<void> {
    turn.failed = true;
    await this.campaigns.fail(turn.campaign.id, reason);
    this.logger.error({ campaign: turn.campaign.id, error: reason }, `campaign failed: ${logAs}`);
  }
}
