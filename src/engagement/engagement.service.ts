import { suppressRecipientAddress } from '../domain/suppressions/suppressions.repo.ts';
import type { Db, DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { nowIso, toEpochMs } from '../domain/shared/time.ts';
import { classifyHit, type TrackingHit } from '../domain/campaigns/engagement-kind.ts';
import { addToCounters } from '../domain/campaigns/campaign-stats.repo.ts';
import { findCampaignContent, findCampaignLinks, storeCampaignLinks } from '../domain/campaigns/campaigns.repo.ts';
import { claimOpenEvent, countLinkClick, findFeedbackRecipient, findSentRecipient, findUnsubscribePageFacts, markSentRecipientBounced, setComplaintReporter, setFirstMoment } from '../domain/campaigns/engagement.repo.ts';
import { findLiveTestSend } from '../domain/campaigns/test-sends.repo.ts';
import type { ContactStatus } from '../domain/contacts/contact-fields.ts';
import { applyStatusChange } from '../domain/contacts/contacts.repo.ts';
import { readJson, writeJson } from '../domain/shared/json.ts';
import { enqueueWebhookEvent, enqueueWebhookEvents, type WebhookEvent } from '../domain/outbound-webhooks/enqueue.ts';
import { emailEvent, type MessageRef } from '../domain/outbound-webhooks/event-data.ts';
import { compileCampaign } from '../sending/render.ts';

const COUNTER_OF = {
  opened_at: 'opened',
  clicked_at: 'clicked',
  unsubscribed_at: 'unsubscribed',
  complained_at: 'complained',
  bounced_at: 'bounced',
  human_opened_at: 'human_opened',
  machine_opened_at: 'machine_opened',
  human_clicked_at: 'human_clicked',
  machine_clicked_at: 'machine_clicked',
} as const;
type Moment = keyof typeof COUNTER_OF;

/**
 * Sets a first-time engagement moment and counts it, in the caller's transaction; later hits
 * change nothing, so unique counts stay exact (D16).
 */
async function markFirst(db: Db, recipient: { id: number; campaign_id: number }, column: Moment, now: string): Promise<boolean> {
  const changed = await setFirstMoment(db, recipient.id, column, now);
  if (changed) await addToCounters(db, recipient.campaign_id, recipient.id, { [COUNTER_OF[column]]: 1 });
  return changed;
}

/** What a tracking route saw of the request (D23): the method, the client address after TRUST_PROXY, the user agent. */
export type TrackingRequest = Pick<TrackingHit, 'method' | 'ip' | 'userAgent'>;

export function kindOf(action: TrackingHit['action'], request: TrackingRequest, sentAt: string | Date | null, now: string) {
  return classifyHit({ action, ...request, sentAtMs: toEpochMs(sentAt) ?? null, atMs: Date.parse(now) }).kind;
}

/** Issue 14 L2: after a recipient's first open, further opens give an email.opened event at most this often. */
export const REPEAT_OPEN_EVENT_MS = 10 * 60_000;
/** Issue 14 L4: a test send's links answer 404 this long after it was sent. */
export const TEST_SEND_TTL_MS = 7 * 24 * 3600_000;

export const msAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

/**
 * The links a campaign's content holds, in order: what its click tokens index into (see
 * CompiledCampaign). Compiling is the costly part (issue 14 H2), so this runs once per campaign,
 * when sending starts; content that does not compile sends nothing, so it has none.
 */
export function contentLinks(c: Pick<CampaignRow, 'subject' | 'from_name' | 'html' | 'text' | 'preheader' | 'variants' | 'compiled_html' | 'compiled_variants'>): string[] {
  try {
    // D23: an A/B campaign's list holds each variant's links in turn (compileCampaign).
    return compileCampaign(c).flatMap((compiled) => compiled.links);
  } catch {
    return [];
  }
}

/** The message a recipient row stands for, as email.* webhook events describe it. */
function messageRef(r: { account_id: number; campaign_id: number; contact_id: number | null; email: string; message_id: string | null }): MessageRef {
  return { accountId: r.account_id, campaignId: r.campaign_id, contactId: r.contact_id, email: r.email, messageId: r.message_id };
}

/** D17.1: what the unsubscribe page shows. */
export interface UnsubscribePage {
  email: string;
  /** the contact's status now; null when the contact has been deleted */
  status: ContactStatus | null;
  /** whom the page names: the campaign's from name, else the account's name */
  sender: string;
}

/** Whom the pages behind a mail's links name (D17.1, D20): the campaign's from name, else the account's name. */
export function senderName(facts: { from_name: string | null; account_name: string; from_email: string | null }): string {
  return facts.from_name || facts.account_name || facts.from_email || 'the sender';
}

/** What applying a bounce or complaint did: counted now, already counted before, no such sent message, or not sent yet. */
export type FeedbackOutcome = 'recorded' | 'duplicate' | 'unmatched' | 'not_sent';

/** When a bounce or complaint happened: the provider's time if it is sane (not before the send, not in the future), else now. */
export function feedbackMoment(reported: string | undefined, sentAt: string | Date): string {
  const now = Date.now();
  const at = reported === undefined ? NaN : Date.parse(reported);
  if (!Number.isFinite(at) || at > now) return new Date(now).toISOString();
  return new Date(Math.max(at, toEpochMs(sentAt) ?? at)).toISOString();
}

/**
 * What recipients do with a sent message: opens, clicks, unsubscribes, and the bounces and
 * complaints that arrive later. Each is counted once per recipient and never for a message
 * that was not sent.
 */
export class EngagementService {
  constructor(private readonly handle: DbHandle) {}

  private findSentRecipient(db: Db, recipientId: number) {
    return findSentRecipient(db, recipientId);
  }

  async recordOpen(recipientId: number, request: TrackingRequest): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const recipient = await this.findSentRecipient(trx, recipientId);
      if (!recipient) return false;
      const now = nowIso();
      const unique = await markFirst(trx, recipient, 'opened_at', now);
      await markFirst(trx, recipient, kindOf('open', request, recipient.sent_at, now) === 'human' ? 'human_opened_at' : 'machine_opened_at', now);
      // `unique` tells the first open from the rest (D16 counts only that one). The first is always
      // an event; repeats are one event per 10 minutes at most, however often the pixel is fetched
      // (issue 14 L2: 300 anonymous GETs made 300 webhook deliveries).
      const claimed = await claimOpenEvent(trx, recipient.id, now, msAgo(REPEAT_OPEN_EVENT_MS));
      if (unique || claimed) await enqueueWebhookEvent(trx, emailEvent('email.opened', messageRef(recipient), { unique }));
      return true;
    });
  }

  /** The link's URL, or null when the token names no sent message or no link of its campaign. A click implies an open. */
  async recordClick(recipientId: number, linkIndex: number, request: TrackingRequest): Promise<string | null> {
    const recipient = await this.findSentRecipient(this.handle.db, recipientId);
    if (!recipient) return null;
    const url = (await this.campaignLinks(recipient.campaign_id))[linkIndex];
    if (url === undefined) return null;
    const now = nowIso();
    const kind = kindOf('click', request, recipient.sent_at, now);
    await this.handle.db.transaction().execute(async (trx) => {
      await countLinkClick(trx, recipient.campaign_id, recipient.id, linkIndex, now);
      // D23: a click of either kind also stands for an open of that kind.
      await markFirst(trx, recipient, kind === 'human' ? 'human_clicked_at' : 'machine_clicked_at', now);
      await markFirst(trx, recipient, kind === 'human' ? 'human_opened_at' : 'machine_opened_at', now);
      const events: WebhookEvent[] = [emailEvent('email.clicked', messageRef(recipient), { url, unique: await markFirst(trx, recipient, 'clicked_at', now) })];
      // A click shows the message was opened; the first time, that is the first open too (and
      // starts the 10 minutes before a repeat open is an event again).
      if (await markFirst(trx, recipient, 'opened_at', now)) {
        await claimOpenEvent(trx, recipient.id, now, msAgo(REPEAT_OPEN_EVENT_MS));
        events.push(emailEvent('email.opened', messageRef(recipient), { unique: true }));
      }
      await enqueueWebhookEvents(trx, events);
    });
    return url;
  }

  /**
   * D23: a hit on the hidden trap link. No person can see or reach it, so whatever follows it is a
   * machine: the recipient gains a machine click and a machine open (a scanner fetching the
   * message). It is not one of the content's links, so the spec's `clicked` and `opened`, the link
   * report and the webhooks do not count it. False when the token names no sent message.
   */
  async recordTrapHit(recipientId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const recipient = await this.findSentRecipient(trx, recipientId);
      if (!recipient) return false;
      const now = nowIso();
      await markFirst(trx, recipient, 'machine_clicked_at', now);
      await markFirst(trx, recipient, 'machine_opened_at', now);
      return true;
    });
  }

  /** RFC 8058 one-click and the confirm page's POST: the contact leaves, and the campaign counts it once. */
  async unsubscribe(recipientId: number): Promise<boolean> {
    return this.handle.db.transaction().execute(async (trx) => {
      const recipient = await this.findSentRecipient(trx, recipientId);
      if (!recipient) return false;
      const now = nowIso();
      await markFirst(trx, recipient, 'unsubscribed_at', now);
      if (recipient.contact_id !== null) {
        if (await applyStatusChange(trx, recipient.contact_id, 'UNSUBSCRIBE', now)) {
          await enqueueWebhookEvent(trx, {
            accountId: recipient.account_id,
            type: 'contact.unsubscribed',
            data: { contact: { id: recipient.contact_id, email: recipient.email }, campaign_id: recipient.campaign_id, source: 'unsubscribe_link' },
          });
        }
      }
      return true;
    });
  }

  /**
   * D17.1: what the unsubscribe page says: the address, whether it is unsubscribed now, and the
   * sender's name. null when the token names no sent message.
   */
  async unsubscribePage(recipientId: number): Promise<UnsubscribePage | null> {
    const facts = await findUnsubscribePageFacts(this.handle.db, recipientId);
    if (!facts) return null;
    return { email: facts.email, status: (facts.status as ContactStatus | null) ?? null, sender: senderName(facts) };
  }

  /**
   * D17.1: "subscribe again" on the unsubscribe page. Only an UNSUBSCRIBED contact becomes
   * SUBSCRIBED (D17.5): a bounced or complained address stays out of every audience. Answers the
   * page's facts after the change, or null for a token that names no sent message.
   */
  async resubscribe(recipientId: number): Promise<UnsubscribePage | null> {
    const facts = await findUnsubscribePageFacts(this.handle.db, recipientId);
    if (!facts) return null;
    if (facts.contact_id !== null) {
      const contactId = Number(facts.contact_id);
      await this.handle.db.transaction().execute(async (trx) => {
        if (!(await applyStatusChange(trx, contactId, 'RESUBSCRIBE', nowIso()))) return;
        await enqueueWebhookEvent(trx, {
          accountId: Number(facts.account_id),
          type: 'contact.updated',
          data: { contact: { id: contactId, email: facts.email, status: 'SUBSCRIBED' }, source: 'unsubscribe_page' },
        });
      });
    }
    return this.unsubscribePage(recipientId);
  }

  /**
   * A bounce reported later by the mail provider (webhooks). Counted once in `bounced` (within
   * `sent`, D13), soft or hard: either way the message was not delivered. Only a hard bounce makes
   * the row BOUNCED and the contact BOUNCED, as far as D17.5 allows (an unsubscribed or
   * complained contact stays so); a replay changes nothing.
   */
  async recordBounce(recipientId: number, opts: { campaignId?: number; hard: boolean; at?: string }): Promise<FeedbackOutcome> {
    return this.handle.db.transaction().execute(async (trx) => {
      const found = await this.findFeedbackRecipient(trx, recipientId, opts.campaignId);
      if (typeof found === 'string') return found;
      let changed = await markFirst(trx, found, 'bounced_at', feedbackMoment(opts.at, found.sent_at));
      if (opts.hard) {
        const nowBounced = await markSentRecipientBounced(trx, found.id);
        if (nowBounced && found.contact_id !== null) {
          await applyStatusChange(trx, found.contact_id, 'HARD_BOUNCE', nowIso());
        }
        // D19: a hard bounce puts the address on the account's suppression list.
        if (nowBounced) await suppressRecipientAddress(trx, found.id, 'BOUNCE', 'hard bounce reported by the mail provider', nowIso());
        changed ||= nowBounced;
      }
      if (!changed) return 'duplicate';
      await enqueueWebhookEvent(trx, emailEvent('email.bounced', messageRef(found), { hard: opts.hard }));
      return 'recorded';
    });
  }

  /**
   * A spam report: counted once in `complained`; the contact becomes COMPLAINED, whatever it was
   * (D17.5). `reporter` names who reported it (feedback/reporter.ts); a provider's report,
   * authenticated with the operator's secret, relays the recipient's own, so by default it is the
   * recipient's. Issue 28: with `deliveredOnly` (a report that came by mail, which anyone can
   * send), a report about a message that was not delivered (bounced, or never sent) is unmatched
   * and changes nothing; and whatever its source, the automatic stop counts only complaints about
   * delivered messages (countLatestOutcomes).
   */
  async recordComplaint(recipientId: number, opts: { campaignId?: number; at?: string; reporter?: string; deliveredOnly?: boolean } = {}): Promise<FeedbackOutcome> {
    return this.handle.db.transaction().execute(async (trx) => {
      const found = await this.findFeedbackRecipient(trx, recipientId, opts.campaignId);
      if (typeof found === 'string') return found;
      if (opts.deliveredOnly && (found.status !== 'SENT' || found.bounced_at !== null)) return 'unmatched';
      const changed = await markFirst(trx, found, 'complained_at', feedbackMoment(opts.at, found.sent_at));
      if (!changed) return 'duplicate';
      await setComplaintReporter(trx, found.id, opts.reporter ?? `recipient:${found.id}`);
      if (found.contact_id !== null) {
        await applyStatusChange(trx, found.contact_id, 'COMPLAINT', nowIso());
      }
      // D19: a person who reported spam is never mailed again by this account.
      await suppressRecipientAddress(trx, found.id, 'COMPLAINT', 'spam complaint reported by the mail provider', nowIso());
      await enqueueWebhookEvent(trx, emailEvent('email.complained', messageRef(found)));
      return 'recorded';
    });
  }

  /**
   * The sent recipient a bounce or complaint is about; 'not_sent' while its message may be in
   * flight (sent but not yet recorded: the provider should retry), 'unmatched' when there is none.
   */
  private async findFeedbackRecipient(db: Db, recipientId: number, campaignId: number | undefined) {
    const row = await findFeedbackRecipient(db, recipientId);
    if (!row || (campaignId !== undefined && Number(row.campaign_id) !== campaignId)) return 'unmatched' as const;
    if (row.sent_at === null) return row.status === 'PENDING' || row.status === 'CLAIMED' ? ('not_sent' as const) : ('unmatched' as const);
    return { ...row, sent_at: row.sent_at };
  }

  async isSentRecipient(recipientId: number): Promise<boolean> {
    return (await this.findSentRecipient(this.handle.db, recipientId)) !== undefined;
  }

  /**
   * A test send's link (D13 `/test`), counted nowhere: from the list its messages were rendered
   * with, never the draft as it is now; null once the test send is 7 days old (issue 14 L4).
   */
  async testLink(testSendId: number, linkIndex: number): Promise<string | null> {
    const testSend = await findLiveTestSend(this.handle.db, testSendId, msAgo(TEST_SEND_TTL_MS));
    return testSend ? (readJson<string[]>(testSend.links, [])[linkIndex] ?? null) : null;
  }

  /** Whether a test send's pixel and unsubscribe link still answer (7 days, issue 14 L4). */
  async isLiveTestSend(testSendId: number): Promise<boolean> {
    return (await findLiveTestSend(this.handle.db, testSendId, msAgo(TEST_SEND_TTL_MS))) !== undefined;
  }

  /**
   * The list stored when the campaign started sending (issue 14 H2: a click never compiles). A
   * campaign without one (an automation's hidden campaign, or one that started sending before the
   * list was stored) gets it stored here, once: later clicks read it.
   */
  private async campaignLinks(campaignId: number): Promise<string[]> {
    const stored = await findCampaignLinks(this.handle.db, campaignId);
    if (stored !== null && stored !== undefined) return readJson<string[]>(stored, []);
    const c = await findCampaignContent(this.handle.db, campaignId);
    if (!c) return [];
    return readJson<string[]>(await storeCampaignLinks(this.handle.db, campaignId, writeJson(contentLinks(c))), []);
  }
}
