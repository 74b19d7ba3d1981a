import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { findSendingCampaigns } from '../domain/campaigns/campaigns.repo.ts';
import type { CampaignService } from '../domain/campaigns/campaigns.service.ts';
import { claimRecipients, countUnfinished, markBounced, markDeferred, markSent, markSentMany, releaseClaims, renewClaims, type SentRecord } from '../domain/campaigns/recipients.repo.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents } from '../domain/outbound-webhooks/enqueue.ts';
import { emailEvent } from '../domain/outbound-webhooks/event-data.ts';
import { readJson } from '../domain/shared/json.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import { PollingLoop } from '../polling-loop.ts';
import { ContentError, type MessageRenderer, type RenderResult } from './message-renderer.ts';
import type { MergeContact } from './render.ts';
import type { MailTransport } from './transports/transport.ts';
import { WorkFeed } from './work-feed.ts';

/** The sender's settings; Config['sending'] says what each means. */
export type DispatcherOptions = Pick<Config['sending'], 'concurrency' | 'batchSize' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'failureBudget' | 'pollMs'>;

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
  /** the transport kept failing: nothing more of this campaign is started this round */
  failed: boolean;
}

/** A claimed recipient with its rendered message, as the round's concurrency slots take them. */
interface Job {
  turn: CampaignTurn;
  row: ClaimedRow;
  message: RenderResult;
  lease: LeaseKeeper;
}

/** A claimed batch, rendered chunk by chunk as the round's slots need its messages. */
interface ClaimedBatch {
  turn: CampaignTurn;
  rows: ClaimedRow[];
  contacts: Map<number, MergeContact>;
  lease: LeaseKeeper;
  /** the first row not yet rendered */
  next: number;
}

/**
 * Messages rendered per request to the render thread, and how few may be left before the next
 * chunk is asked for. Chunks rather than whole batches bound the rendered-but-unsent messages a
 * sender holds: a batch of large newsletters, rendered at once, could hold tens of megabytes.
 */
const RENDER_CHUNK = 50;

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
  private readonly loop: PollingLoop;

  constructor(
    private readonly handle: DbHandle,
    private readonly campaigns: CampaignService,
    private readonly transport: MailTransport,
    private readonly renderer: MessageRenderer,
    private readonly opts: DispatcherOptions,
    private readonly logger: Logger,
  ) {
    this.sent = new SentRecorder(handle, Math.max(1, Math.floor(opts.concurrency / 2)), RECORD_WAIT_MS);
    this.loop = new PollingLoop(() => this.runOnce(), opts.pollMs, (err) => this.logger.error({ err }, 'sending round failed; retrying'));
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
   * One round: starts due campaigns, then takes turns over the SENDING ones, one batch each per
   * turn, and starts another turn while the round is younger than `roundMs` (so `runOnce(0)` is
   * exactly one batch per campaign). Returns how many recipients it handled.
   */
  async runOnce(roundMs = ROUND_MS): Promise<number> {
    await this.campaigns.startDueCampaigns(new Date().toISOString());
    const waiting: CampaignTurn[] = (await findSendingCampaigns(this.handle.db)).map((campaign) => ({ campaign, failed: false }));
    const roundEnds = Date.now() + roundMs;
    let turnsLeft = waiting.length; // the first turn always goes all the way round
    let aborted = false;
    const leases: LeaseKeeper[] = [];
    /** the batch being rendered, chunk by chunk */
    let batch: ClaimedBatch | null = null;
    const claimNext = async (): Promise<ClaimedBatch | null> => {
      while (waiting.length > 0 && (turnsLeft > 0 || Date.now() < roundEnds)) {
        const turn = waiting.shift()!;
        turnsLeft--;
        const claimed = turn.failed ? null : await this.claimBatch(turn);
        if (claimed === null) continue; // nothing (more) to claim now: out of this round
        waiting.push(turn);
        leases.push(claimed.lease);
        return claimed;
      }
      return null;
    };
    const feed = new WorkFeed<Job>(async () => {
      while (!aborted && !this.loop.stopping) {
        // A campaign that failed meanwhile gets no more messages rendered: its batch goes back.
        if (batch !== null && batch.turn.failed) await this.giveBackRest(batch);
        if (batch === null || batch.next === batch.rows.length) batch = await claimNext();
        if (batch === null) return null;
        const jobs = await this.renderChunk(batch);
        if (jobs !== null) return jobs;
      }
      return null;
    }, RENDER_CHUNK);

    const unsent: number[] = [];
    let handled = 0;
    let failure: unknown;
    const slot = async () => {
      for (let job = await feed.take(); job !== undefined; job = await feed.take()) {
        const { turn, row, lease } = job;
        if (aborted || turn.failed || this.loop.stopping || !lease.canStart()) {
          unsent.push(row.id);
          lease.done(row.id);
          continue;
        }
        try {
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
      for (const lease of leases) lease.stop();
      await releaseClaims(this.handle.db, unsent);
      // Claimed but never rendered (the round stopped or failed in the middle of a batch) goes back too.
      const current = batch as ClaimedBatch | null; // assigned in the feed's closure: TypeScript cannot tell
      if (current) await this.giveBackRest(current);
    }
    if (failure !== undefined || feed.error !== undefined) throw failure ?? feed.error;
    return handled;
  }

  /** Claims and loads the campaign's next batch; null when it has nothing to claim now (and is finished if nothing is left at all). */
  private async claimBatch(turn: CampaignTurn): Promise<ClaimedBatch | null> {
    const { campaign } = turn;
    const claimedAt = Date.now();
    const rows = await claimRecipients(this.handle.db, this.handle.dialect, {
      campaignId: campaign.id,
      limit: this.opts.batchSize,
      now: new Date(claimedAt).toISOString(),
      leaseUntil: new Date(claimedAt + this.opts.leaseMs).toISOString(),
    });
    if (rows.length === 0) {
      if ((await countUnfinished(this.handle.db, campaign.id)) === 0 && (await this.campaigns.complete(campaign.id))) {
        this.logger.info({ campaign: campaign.id }, 'campaign sent');
      }
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
   * The batch's next RENDER_CHUNK messages, rendered on the render thread; null when the content
   * cannot be rendered at all (the campaign is failed and the batch given back).
   */
  private async renderChunk(batch: ClaimedBatch): Promise<Job[] | null> {
    const { turn, lease } = batch;
    const rows = batch.rows.slice(batch.next, batch.next + RENDER_CHUNK);
    batch.next += rows.length;
    try {
      const messages = await this.renderer.render(
        turn.campaign,
        rows.map((row) => ({
          recipientId: row.id,
          contact: (row.contact_id === null ? undefined : batch.contacts.get(row.contact_id)) ?? { email: row.email, first_name: null, last_name: null, phone: null, custom_fields: {} },
        })),
      );
      return rows.map((row, i) => ({ turn, row, message: messages[i], lease }));
    } catch (err) {
      // This chunk and the rest of the batch go back unsent.
      batch.next -= rows.length;
      await this.giveBackRest(batch);
      if (!(err instanceof ContentError)) throw err;
      turn.failed = true;
      await this.campaigns.fail(turn.campaign.id, `the content cannot be rendered: ${err.message}`);
      this.logger.error({ campaign: turn.campaign.id, error: err.message }, 'campaign failed: its content cannot be rendered');
      return null;
    }
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
    for (let i = 0; i < ids.length; i += 500) {
      const found = await this.handle.db
        .selectFrom('contacts')
        .select(['id', 'email', 'first_name', 'last_name', 'phone', 'custom_fields'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const c of found) contacts.set(c.id, { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}) });
    }
    return contacts;
  }

  /** Sends one recipient's message and records the outcome. */
  private async sendOne(turn: CampaignTurn, row: ClaimedRow, message: RenderResult): Promise<void> {
    const { campaign } = turn;
    if ('renderError' in message) {
      // The content cannot be rendered for this contact (a template limit): trying again would fail again.
      await markDeferred(this.handle.db, row.id, `could not render the message: ${message.renderError}`, null);
      return;
    }
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
    const giveUp = !outcome.transportFailure && attempts >= this.opts.maxAttempts;
    const delay = Math.min(this.opts.retryBaseMs * 2 ** Math.min(attempts - 1, 20), 3_600_000);
    await markDeferred(this.handle.db, row.id, outcome.error, giveUp ? null : new Date(Date.now() + delay).toISOString());
    if (outcome.transportFailure && ++this.consecutiveTransportFailures >= this.opts.failureBudget && !turn.failed) {
      turn.failed = true;
      this.consecutiveTransportFailures = 0;
      await this.campaigns.fail(campaign.id, `the mail transport keeps failing: ${outcome.error}`);
      this.logger.error({ campaign: campaign.id, error: outcome.error }, 'campaign failed: mail transport keeps failing');
    }
  }
}
