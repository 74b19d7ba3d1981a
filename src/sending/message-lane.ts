import type { Logger } from 'pino';
import type { DbHandle } from '../db/connect.ts';
import { applyStatusChangeByEmails, findMergeFields } from '../domain/contacts/contacts.repo.ts';
import type { MessageAttachment, MessageContact, TransactionalSource } from '../domain/messages/message.ts';
import { messageEvent } from '../domain/messages/message-view.ts';
import {
  accountsWithQueuedMessages,
  claimMessages,
  dueMessageIdsOf,
  markMessageBouncedAtSend,
  markMessageDeferred,
  markMessagesSent,
  releaseMessages,
  renewMessageLeases,
  type ClaimedMessageRow,
} from '../domain/messages/messages.repo.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents } from '../domain/outbound-webhooks/enqueue.ts';
import { backoffDelay } from '../domain/shared/backoff.ts';
import { emailKey } from '../domain/shared/email-address.ts';
import { readJson, writeJson } from '../domain/shared/json.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import { addSuppression } from '../domain/suppressions/suppressions.repo.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import type { MessageRenderer } from './message-renderer.ts';
import type { DomainPacer } from './paced-rows.ts';
import { interleaveByAccount, sharePerAccount } from './account-shares.ts';
import { RENDER_CHUNK } from './sending-round.ts';
import { SentRecorder } from './sent-recorder.ts';
import type { TransactionalOutgoing } from './transactional-message.ts';
import type { MailTransport } from './transports/transport.ts';

/** A claimed transactional message with its mail, as the dispatcher's concurrency slots take it. */
export interface MessageJob {
  lane: 'transactional';
  row: ClaimedMessageRow;
  message: TransactionalOutgoing;
  lease: LeaseKeeper;
}

export interface MessageLaneOptions {
  leaseMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  renderBudgetMs: number;
}

/** How many messages one take claims: a chunk, as a campaign's turn renders. */
const TAKE = RENDER_CHUNK;
/** How many accounts one take serves at most; with more waiting, the next take starts after the last served. */
const ACCOUNTS_PER_TAKE = 10;
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * D25.4: transactional mail's own lane in the sender. The dispatcher asks it for work before every
 * campaign turn, so a queued message waits behind at most the chunk already rendered, however
 * large the campaign. Its messages go through the same render thread, DKIM signing, recipient-
 * domain pacing (D23), transport and retry rule as campaign messages; what differs is the row
 * (`messages`) and the events (message.*, D25.5). Warm-up's day caps do not hold it back: they
 * ration a new domain's bulk mail, and a receipt or a password reset is not bulk mail.
 */
export class MessageLane {
  /** SENT outcomes are written in groups, as the campaign side's are (SentRecorder) */
  private readonly sent: SentRecorder<SentMessage>;
  /** The rotation: the last account a take served; the next take starts after it. */
  private lastAccount = 0;

  constructor(
    private readonly handle: DbHandle,
    private readonly renderer: MessageRenderer,
    private readonly pacer: DomainPacer,
    private readonly opts: MessageLaneOptions,
    private readonly logger: Logger,
  ) {
    this.sent = new SentRecorder<SentMessage>({ recordSent: (group, now) => this.recordSent(group, now) }, 10, 5);
  }

  /**
   * Claims the due messages (up to a chunk) and renders them, one render request per account. A
   * message that cannot be rendered is FAILED with the reason. Empty when nothing is due. The
   * jobs' lease joins `leases`, the round's, which stops them all when it ends.
   */
  async take(leases: LeaseKeeper[]): Promise<MessageJob[]> {
    const claimedAt = Date.now();
    const rows = await this.claimFairly(new Date(claimedAt).toISOString(), new Date(claimedAt + this.opts.leaseMs).toISOString());
    if (rows.length === 0) return [];
    const lease = new LeaseKeeper({ renewLease: (ids, until) => renewMessageLeases(this.handle.db, ids, until) }, rows, claimedAt, this.opts.leaseMs, this.logger);
    const jobs: MessageJob[] = [];
    const unrendered: number[] = [];
    try {
      const contacts = await this.contactsOf(rows);
      const byAccount = new Map<number, ClaimedMessageRow[]>();
      for (const row of rows) byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row]);
      for (const [accountId, accountRows] of byAccount) {
        const sources = accountRows.map((row) => sourceOf(row, row.contact_id === null ? null : (contacts.get(row.contact_id) ?? null)));
        const results = await this.renderer.renderTransactional(accountId, sources, true, { ms: this.opts.renderBudgetMs, bytes: CHUNK_BYTES });
        for (const [i, row] of accountRows.entries()) {
          const result = results[i];
          if (result === undefined) {
            // Over this take's render budget: back in the queue, due at once (below, in one statement).
            lease.done(row.id);
            unrendered.push(row.id);
          } else if ('renderError' in result) {
            lease.done(row.id);
            const error = `could not render the message: ${result.renderError}`;
            // Over a render limit (its time, on a thread still warming up or a busy machine) it is
            // tried again later, as a 4xx is; an error in the content itself would only repeat.
            const attempts = row.attempts + 1;
            if (result.limit === true && attempts < this.opts.maxAttempts) await markMessageDeferred(this.handle.db, row.id, error, new Date(Date.now() + backoffDelay(this.opts.retryBaseMs, attempts)).toISOString());
            else await this.fail(row.id, error);
          } else {
            jobs.push({ lane: 'transactional', row, message: result as TransactionalOutgoing, lease });
          }
        }
      }
    } catch (err) {
      lease.stop();
      await releaseMessages(
        this.handle.db,
        rows.map((r) => r.id),
      );
      throw err;
    }
    await releaseMessages(this.handle.db, unrendered);
    if (jobs.length === 0) lease.stop();
    else leases.push(lease);
    return jobs;
  }

  /**
   * A take's rows, shared between the accounts with messages due (account-shares.ts), served in
   * rotation from after the last take's last account, and ordered in turns by account: one
   * account's burst of ten thousand receipts does not hold back another's password reset.
   */
  private async claimFairly(now: string, leaseUntil: string): Promise<ClaimedMessageRow[]> {
    const accounts = await accountsWithQueuedMessages(this.handle.db, this.lastAccount, ACCOUNTS_PER_TAKE);
    if (accounts.length === 0) return [];
    this.lastAccount = accounts.at(-1)!;
    const share = sharePerAccount(TAKE, accounts.length);
    const ids: number[] = [];
    for (const accountId of accounts) ids.push(...(await dueMessageIdsOf(this.handle.db, accountId, share, now)));
    const claimed = await claimMessages(this.handle.db, ids, now, leaseUntil);
    return interleaveByAccount(claimed.sort((a, b) => a.id - b.id));
  }

  /** Gives a job back unsent (the round ended, or the sender stops): due again at once, or at `due`. */
  async giveBack(job: MessageJob, due?: string): Promise<void> {
    job.lease.done(job.row.id);
    await releaseMessages(this.handle.db, [job.row.id], due);
  }

  /**
   * Sends one message and records what the mail server said; with `giveBack` (the round is over),
   * or too little of its lease left, it goes back unsent. Held back for its recipient domain's pace
   * (D23), it goes back due when the pace allows. Whether it was handed to the mail server.
   */
  async send(job: MessageJob, transport: MailTransport, giveBack: boolean): Promise<boolean> {
    const { row, message } = job;
    if (giveBack || !job.lease.canStart()) {
      await this.giveBack(job);
      return false;
    }
    const held = await this.pacer.heldUntil(row.to_email);
    if (held !== null) {
      await this.giveBack(job, new Date(held).toISOString());
      return false;
    }
    try {
      const outcome = await transport.send(message);
      const now = new Date().toISOString();
      if (outcome.kind === 'sent') {
        await this.sent.record({ id: row.id, links: message.links.length > 0 ? writeJson(message.links) : null });
        return true;
      }
      if (outcome.kind === 'bounced') {
        await this.recordBounced(job, outcome.error, now);
        return true;
      }
      const attempts = row.attempts + 1;
      const giveUp = outcome.permanent === true || attempts >= this.opts.maxAttempts;
      const retryAt = giveUp ? null : new Date(Date.now() + backoffDelay(this.opts.retryBaseMs, attempts)).toISOString();
      if (retryAt === null) await this.fail(row.id, outcome.error);
      else await markMessageDeferred(this.handle.db, row.id, outcome.error, retryAt);
      return false;
    } finally {
      job.lease.done(row.id);
    }
  }

  /** SENT, and message.sent for the rows that changed, in one transaction for the group. */
  private async recordSent(group: SentMessage[], now: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const changed = await markMessagesSent(trx, group, now);
      await enqueueWebhookEvents(
        trx,
        changed.map((r) => messageEvent('message.sent', r, { sent_at: toApiTimestamp(now) })),
      );
    });
  }

  /** A 5xx: BOUNCED, and the address suppressed and its contact BOUNCED, as a campaign's hard bounce does (D19, D17.5). */
  private async recordBounced({ row }: MessageJob, error: string, now: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const changed = await markMessageBouncedAtSend(trx, row.id, error.slice(0, 1000), now);
      if (!changed) return;
      await addSuppression(trx, { account_id: row.account_id, value: emailKey(row.to_email), reason: error.slice(0, 1000), source: 'BOUNCE', created_at: now });
      await applyStatusChangeByEmails(trx, row.account_id, [row.to_email], 'HARD_BOUNCE', now);
      await enqueueWebhookEvent(trx, messageEvent('message.bounced', changed, { hard: true, reason: error }));
    });
  }

  /** FAILED for good with the reason, and message.failed. */
  private async fail(id: number, error: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const failed = await markMessageDeferred(trx, id, error.slice(0, 1000), null);
      if (failed) await enqueueWebhookEvent(trx, messageEvent('message.failed', failed, { error }));
    });
  }

  private async contactsOf(rows: ClaimedMessageRow[]): Promise<Map<number, MessageContact>> {
    const ids = [...new Set(rows.map((r) => r.contact_id).filter((id): id is number => id !== null))];
    const contacts = new Map<number, MessageContact>();
    if (ids.length === 0) return contacts;
    for (const c of await findMergeFields(this.handle.db, ids)) {
      contacts.set(c.id, { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}) });
    }
    return contacts;
  }
}

/** A message the mail server took, as its row records it. */
interface SentMessage {
  id: number;
  links: string | null;
}

/** What the render thread needs of a claimed message. */
function sourceOf(row: ClaimedMessageRow, contact: MessageContact | null): TransactionalSource {
  return {
    id: row.id,
    account_id: row.account_id,
    to_email: row.to_email,
    from_email: row.from_email,
    from_name: row.from_name,
    reply_to: row.reply_to,
    subject: row.subject_template,
    html: row.html,
    text: row.text,
    data: readJson(row.data, {}),
    headers: readJson(row.headers, {}),
    attachments: readJson<MessageAttachment[] | null>(row.attachments, null),
    track_opens: row.track_opens === 1,
    track_clicks: row.track_clicks === 1,
    contact: contact && { ...contact, email: row.to_email },
    mime: row.mime ? new Uint8Array(row.mime) : null,
  };
}
