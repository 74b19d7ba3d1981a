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
import { buildMessage, type MessageContext } from './message.ts';
import { CompiledCampaign, type MergeContact } from './render.ts';
import type { MailTransport } from './transports/transport.ts';

/** The sender's settings; Config['sending'] says what each means. */
export type DispatcherOptions = Pick<Config['sending'], 'concurrency' | 'batchSize' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'failureBudget' | 'pollMs'>;

type ClaimedRow = Awaited<ReturnType<typeof claimRecipients>>[number];

/** A message the mail server accepted, with what its email.sent webhook event tells. */
type SentOutcome = SentRecord & { row: ClaimedRow; accountId: number };

const sentEvent = (r: SentOutcome) =>
  emailEvent('email.sent', { accountId: r.accountId, campaignId: r.row.campaign_id, contactId: r.row.contact_id, email: r.row.email, messageId: r.messageId }, { sent_at: toApiTimestamp(r.now) });

async function eachWithConcurrency<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Group commit for SENT outcomes: every outcome that arrives while a write is pending or running
 * joins the next transaction, so a commit (most of a message's database cost on SQLite) is shared
 * by the messages in flight. Each caller still waits until its own row is written, so an outcome
 * is recorded before its concurrency slot takes the next message. If a group fails, its rows are
 * written one by one, so one bad row cannot take the others' records with it.
 */
class SentRecorder {
  private queue: (SentOutcome & { done: (err?: unknown) => void })[] = [];
  private busy = false;

  constructor(private readonly handle: DbHandle) {}

  record(record: SentOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ...record, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        // email.sent goes out for the rows that really changed, in the same commit.
        await this.handle.db.transaction().execute(async (trx) => enqueueWebhookEvents(trx, (await markSentMany(trx, group)).map(sentEvent)));
        for (const r of group) r.done();
      } catch {
        for (const r of group) {
          try {
            await this.handle.db.transaction().execute(async (trx) => {
              if (await markSent(trx, r.row, r.messageId, r.now)) await enqueueWebhookEvent(trx, sentEvent(r));
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

/**
 * The sender: claims recipients of SENDING campaigns in batches, renders and sends each, and
 * records each outcome on its row before the concurrency slot is freed. So at any instant at
 * most `concurrency` messages are sent-but-unrecorded: a crash can mail those again (they were
 * in flight) and never skips anyone (an unrecorded row is claimed again when its lease ends).
 */
export class Dispatcher {
  private readonly compiled = new Map<number, { updatedAt: string; compiled: CompiledCampaign }>();
  private readonly sent: SentRecorder;
  private consecutiveTransportFailures = 0;
  private readonly loop: PollingLoop;

  constructor(
    private readonly handle: DbHandle,
    private readonly campaigns: CampaignService,
    private readonly transport: MailTransport,
    private readonly context: Omit<MessageContext, 'compiled' | 'campaign'>,
    private readonly opts: DispatcherOptions,
    private readonly logger: Logger,
  ) {
    this.sent = new SentRecorder(handle);
    this.loop = new PollingLoop(() => this.runOnce(), opts.pollMs, (err) => this.logger.error({ err }, 'sending round failed; retrying'));
  }

  start(): void {
    this.loop.start();
  }

  /** Finishes the messages in flight, gives back what was claimed but not sent, then returns. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One round over every SENDING campaign; returns how many recipients it handled. */
  async runOnce(): Promise<number> {
    await this.campaigns.startDueCampaigns(new Date().toISOString());
    let handled = 0;
    for (const campaign of await findSendingCampaigns(this.handle.db)) {
      if (this.loop.stopping) break;
      handled += await this.sendBatch(campaign);
    }
    return handled;
  }

  private compile(campaign: CampaignRow): CompiledCampaign {
    const updatedAt = String(campaign.updated_at);
    const cached = this.compiled.get(campaign.id);
    if (cached && cached.updatedAt === updatedAt) return cached.compiled;
    const compiled = new CompiledCampaign({ subject: campaign.subject ?? '', html: campaign.html, text: campaign.text, preheader: campaign.preheader });
    this.compiled.set(campaign.id, { updatedAt, compiled });
    return compiled;
  }

  private async loadContacts(rows: ClaimedRow[]): Promise<Map<number, MergeContact>> {
    const ids = rows.map((r) => r.contact_id).filter((id): id is number => id !== null);
    const contacts = new Map<number, MergeContact>();
    for (let i = 0; i < ids.length; i += 500) {
      const found = await this.handle.db
        .selectFrom('contacts')
        .select(['id', 'email', 'first_name', 'last_name', 'phone', 'custom_fields', 'status'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const c of found) contacts.set(c.id, { ...c, custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}) });
    }
    return contacts;
  }

  private async sendBatch(campaign: CampaignRow): Promise<number> {
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
        this.compiled.delete(campaign.id);
      }
      return 0;
    }
    const compiled = this.compile(campaign);
    const contacts = await this.loadContacts(rows);
    const lease = new LeaseKeeper(this.handle, rows, claimedAt, this.opts.leaseMs, this.logger);
    const unsent: number[] = [];
    let failed = false;
    try {
      await eachWithConcurrency(rows, this.opts.concurrency, async (row) => {
        if (failed || this.loop.stopping || !lease.canStart()) {
          unsent.push(row.id);
          lease.done(row.id);
          return;
        }
        await this.sendOne(campaign, compiled, contacts, row, () => {
          if (failed) return false;
          failed = true;
          return true;
        });
        lease.done(row.id);
      });
    } finally {
      lease.stop();
    }
    await releaseClaims(this.handle.db, unsent);
    return rows.length - unsent.length;
  }

  /** Renders, sends and records one recipient. `claimFailure` says whether this call is the one to fail the campaign. */
  private async sendOne(
    campaign: CampaignRow,
    compiled: CompiledCampaign,
    contacts: Map<number, MergeContact>,
    row: ClaimedRow,
    claimFailure: () => boolean,
  ): Promise<void> {
    const contact = row.contact_id === null ? undefined : contacts.get(row.contact_id);
    const merge: MergeContact = contact ?? { email: row.email, first_name: null, last_name: null, phone: null, custom_fields: {} };
    const message = buildMessage({ ...this.context, campaign, compiled }, row.id, merge);
    const outcome = await this.transport.send(message);
    const now = new Date().toISOString();
    if (outcome.kind === 'sent') {
      this.consecutiveTransportFailures = 0;
      await this.sent.record({ row, messageId: message.messageId, now, accountId: campaign.account_id });
    } else if (outcome.kind === 'bounced') {
      this.consecutiveTransportFailures = 0;
      await this.handle.db.transaction().execute(async (trx) => {
        if (!(await markBounced(trx, row, message.messageId, outcome.error, now))) return;
        const ref = { accountId: campaign.account_id, campaignId: row.campaign_id, contactId: row.contact_id, email: row.email, messageId: message.messageId };
        await enqueueWebhookEvent(trx, emailEvent('email.bounced', ref, { hard: true, reason: outcome.error }));
      });
    } else {
      const attempts = row.attempts + 1;
      const giveUp = !outcome.transportFailure && attempts >= this.opts.maxAttempts;
      const delay = Math.min(this.opts.retryBaseMs * 2 ** Math.min(attempts - 1, 20), 3_600_000);
      await markDeferred(this.handle.db, row.id, outcome.error, giveUp ? null : new Date(Date.now() + delay).toISOString());
      if (outcome.transportFailure && ++this.consecutiveTransportFailures >= this.opts.failureBudget && claimFailure()) {
        this.consecutiveTransportFailures = 0;
        await this.campaigns.fail(campaign.id, `the mail transport keeps failing: ${outcome.error}`);
        this.logger.error({ campaign: campaign.id, error: outcome.error }, 'campaign failed: mail transport keeps failing');
      }
    }
  }
}
