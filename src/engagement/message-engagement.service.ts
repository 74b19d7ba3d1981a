import type { Db, DbHandle } from '../db/connect.ts';
import { applyStatusChangeByEmails } from '../domain/contacts/contacts.repo.ts';
import { claimMessageOpenEvent, findMessageRef, markMessageBounced, setFirstMessageMoment } from '../domain/messages/message-engagement.repo.ts';
import { messageEvent } from '../domain/messages/message-view.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents, type WebhookEvent } from '../domain/outbound-webhooks/enqueue.ts';
import { emailKey } from '../domain/shared/email-address.ts';
import { readJson } from '../domain/shared/json.ts';
import { nowIso } from '../domain/shared/time.ts';
import { addSuppression } from '../domain/suppressions/suppressions.repo.ts';
import { feedbackMoment, kindOf, msAgo, REPEAT_OPEN_EVENT_MS, type FeedbackOutcome, type TrackingRequest } from './engagement.service.ts';

type MessageRef = NonNullable<Awaited<ReturnType<typeof findMessageRef>>>;

/**
 * Issue 31 (D25.5): what happens to a transactional message after it went, by the rules campaign
 * recipients follow (engagement.service.ts), so one ledger holds all mail: an open or click is
 * kept once and told apart as a person's or a machine's (D23); every open and click of either
 * kind gives message.opened / message.clicked, as email.opened / email.clicked are (the kind is
 * not in the event, as it is not in theirs), a repeat open at most every 10 minutes (issue 14
 * L2); the trap link counts a machine open and click and gives no event. A hard bounce makes a
 * SENT message BOUNCED, suppresses the address (D19) and makes its contact BOUNCED (D17.5); a
 * complaint suppresses the address and makes its contact COMPLAINED, with no event (D25.5 names
 * no message.complained).
 */
export class MessageEngagementService {
  constructor(private readonly handle: DbHandle) {}

  /** False when the token names no sent message. */
  async recordOpen(messageId: number, request: TrackingRequest): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const message = await findSentMessage(trx, messageId);
      if (!message) return false;
      const now = nowIso();
      const unique = await setFirstMessageMoment(trx, message.id, 'opened_at', now);
      await setFirstMessageMoment(trx, message.id, kindOf('open', request, message.sent_at, now) === 'human' ? 'human_opened_at' : 'machine_opened_at', now);
      const claimed = await claimMessageOpenEvent(trx, message.id, now, msAgo(REPEAT_OPEN_EVENT_MS));
      if (unique || claimed) await enqueueWebhookEvent(trx, messageEvent('message.opened', message, { unique }));
      return true;
    });
  }

  /** The link's URL, or null when the token names no sent message or no link it held. A click implies an open. */
  async recordClick(messageId: number, linkIndex: number, request: TrackingRequest): Promise<string | null> {
    return this.handle.db.transaction().execute(async (trx) => {
      const message = await findSentMessage(trx, messageId);
      const url = message ? readJson<string[]>(message.links, [])[linkIndex] : undefined;
      if (!message || url === undefined) return null;
      const now = nowIso();
      const kind = kindOf('click', request, message.sent_at, now);
      await setFirstMessageMoment(trx, message.id, kind === 'human' ? 'human_clicked_at' : 'machine_clicked_at', now);
      await setFirstMessageMoment(trx, message.id, kind === 'human' ? 'human_opened_at' : 'machine_opened_at', now);
      const events: WebhookEvent[] = [messageEvent('message.clicked', message, { url, unique: await setFirstMessageMoment(trx, message.id, 'clicked_at', now) })];
      if (await setFirstMessageMoment(trx, message.id, 'opened_at', now)) {
        await claimMessageOpenEvent(trx, message.id, now, msAgo(REPEAT_OPEN_EVENT_MS));
        events.push(messageEvent('message.opened', message, { unique: true }));
      }
      await enqueueWebhookEvents(trx, events);
      return url;
    });
  }

  /** D23's trap link: a machine open and click, no event. False when the token names no sent message. */
  async recordTrapHit(messageId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const message = await findSentMessage(trx, messageId);
      if (!message) return false;
      const now = nowIso();
      await setFirstMessageMoment(trx, message.id, 'machine_clicked_at', now);
      await setFirstMessageMoment(trx, message.id, 'machine_opened_at', now);
      return true;
    });
  }

  /**
   * A bounce reported after the message went (a DSN, a provider's report), as a campaign
   * recipient's: soft or hard it is kept once and gives message.bounced; only a hard one makes the
   * message BOUNCED (D25.1), its address suppressed and its contact BOUNCED.
   */
  async recordBounce(messageId: number, opts: { hard: boolean; reason: string; at?: string }): Promise<FeedbackOutcome> {
    return this.handle.db.transaction().execute(async (trx) => {
      const found = await findFeedbackMessage(trx, messageId);
      if (typeof found === 'string') return found;
      let changed = await setFirstMessageMoment(trx, found.id, 'bounced_at', feedbackMoment(opts.at, found.sent_at));
      if (opts.hard && (await markMessageBounced(trx, found.id, opts.reason))) {
        const now = nowIso();
        await addSuppression(trx, { account_id: found.account_id, value: emailKey(found.to_email), reason: opts.reason.slice(0, 1000), source: 'BOUNCE', created_at: now });
        await applyStatusChangeByEmails(trx, found.account_id, [found.to_email], 'HARD_BOUNCE', now);
        changed = true;
      }
      if (!changed) return 'duplicate';
      await enqueueWebhookEvent(trx, messageEvent('message.bounced', found, { hard: opts.hard, reason: opts.reason }));
      return 'recorded';
    });
  }

  /**
   * A spam report about the message, as a campaign recipient's (D19, D17.5): kept once, the
   * address suppressed and its contact COMPLAINED; no event. With `deliveredOnly` (a report that
   * came by mail, which anyone can send, issue 28), one about a message not delivered is unmatched.
   */
  async recordComplaint(messageId: number, opts: { at?: string; deliveredOnly?: boolean } = {}): Promise<FeedbackOutcome> {
    return this.handle.db.transaction().execute(async (trx) => {
      const found = await findFeedbackMessage(trx, messageId);
      if (typeof found === 'string') return found;
      if (opts.deliveredOnly && (found.status !== 'SENT' || found.bounced_at !== null)) return 'unmatched';
      if (!(await setFirstMessageMoment(trx, found.id, 'complained_at', feedbackMoment(opts.at, found.sent_at)))) return 'duplicate';
      const now = nowIso();
      await addSuppression(trx, { account_id: found.account_id, value: emailKey(found.to_email), reason: 'spam complaint reported by the mail provider', source: 'COMPLAINT', created_at: now });
      await applyStatusChangeByEmails(trx, found.account_id, [found.to_email], 'COMPLAINT', now);
      return 'recorded';
    });
  }
}

/** A message that went to the mail server: what opens and clicks act on. */
async function findSentMessage(db: Db, id: number): Promise<(MessageRef & { sent_at: NonNullable<MessageRef['sent_at']> }) | undefined> {
  const message = await findMessageRef(db, id);
  return message && message.sent_at !== null ? { ...message, sent_at: message.sent_at } : undefined;
}

/** The sent message a bounce or complaint is about; 'not_sent' while it may be in flight (the reporter should retry), 'unmatched' when there is none. */
async function findFeedbackMessage(db: Db, id: number) {
  const message = await findMessageRef(db, id);
  if (!message) return 'unmatched' as const;
  if (message.sent_at === null) return message.status === 'QUEUED' || message.status === 'SCHEDULED' ? ('not_sent' as const) : ('unmatched' as const);
  return { ...message, sent_at: message.sent_at };
}
