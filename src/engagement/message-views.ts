import { LRUCache } from 'lru-cache';
import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { findAccountBySlug } from '../domain/accounts/accounts.repo.ts';
import { findArchivedCampaign, findCampaignById, pageArchivedCampaigns } from '../domain/campaigns/campaigns.repo.ts';
import { findRecipientView } from '../domain/campaigns/recipient-reads.repo.ts';
import { findContactById } from '../domain/contacts/contacts.repo.ts';
import { readJson } from '../domain/shared/json.ts';
import type { PageRequest } from '../domain/shared/paging.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { EngagementService } from './engagement.service.ts';
import type { Rendering } from '../sending/message.ts';
import { ContentError, type MessageRenderer } from '../sending/message-renderer.ts';
import type { MergeContact } from '../sending/render.ts';
import type { RenderRecipient } from '../sending/render-worker.ts';
import type { TokenSigner } from '../domain/shared/tokens.ts';

/** A message as a page shows it: the HTML part, or null when the message is text only. */
export interface ViewedMessage {
  subject: string;
  html: string | null;
  text: string | null;
}

/**
 * D22: the archive shows a campaign to anyone, so it is rendered for nobody: every merge field
 * empty (`Hi {{ first_name }}` reads `Hi `), never a sample person and never a real one.
 */
const NOBODY: MergeContact = { email: '', first_name: null, last_name: null, phone: null, custom_fields: {} };

/** Archive pages list this many campaigns a page; the RSS feed holds the latest FEED_ITEMS. */
export const ARCHIVE_PAGE_SIZE = 20;
export const FEED_ITEMS = 50;
/** What the feed's item description keeps of a message's text. */
const SUMMARY_CHARS = 300;

/**
 * Waits for the turn of the account whose content a public view shows (issue 28: anonymous
 * requests spend that account's share of the HTTP thread), called once the account is known and
 * before the view's work; it throws RateLimitedError when the account has too many waiting.
 */
export type WaitForAccountTurn = (accountId: number) => Promise<void> | void;

export interface ArchiveAccount {
  name: string;
  slug: string;
}

export interface ArchiveEntry {
  id: number;
  subject: string;
  /** ISO 8601 */
  sent_at: string;
  summary: string;
}

/** What one rendering of a view needs: the campaign, and whom it is rendered for. */
interface ViewRender {
  campaign: CampaignRow;
  recipient: RenderRecipient;
}

/** A row's version in a cache key: PostgreSQL's Date to the millisecond (its String() keeps only seconds). */
const versionOf = (at: string | Date) => (at instanceof Date ? at.toISOString() : at);

/**
 * Rendered views kept per key, bounded in size. A key asked for again while its render is under
 * way waits for that render (lru-cache's fetch): 40 requests at once for one uncached message
 * cost one render, not 40 (issue 28 H2: the feed's 50 campaigns were rendered once per concurrent
 * request until the first render finished).
 */
function viewCache(render: (job: ViewRender) => Promise<ViewedMessage>) {
  return new LRUCache<string, ViewedMessage, ViewRender>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (m) => m.subject.length + (m.html?.length ?? 0) + (m.text?.length ?? 0) + 1,
    fetchMethod: (_key, _stale, { context }) => render(context),
  });
}

/**
 * D22's public views of messages: the web view (`/w/{token}`, one recipient's message again) and
 * the account's archive (`/archive/{slug}`: its archived SENT campaigns, rendered for nobody).
 * Messages render on the API's render thread (the test sends' one), never on the thread answering
 * HTTP, each request in its account's turn (issue 28 H2: anyone may ask for these pages, so a
 * flood of them spends the turns of the account whose content they show, and nobody else's).
 * Both are kept rendered per content version: an archived campaign per its updated_at, so a
 * popular archive costs one render per campaign; a web view per recipient, campaign and contact
 * version, so one link opened many times renders once. Both caches are bounded in size.
 */
export class MessageViews {
  private readonly archived = viewCache((job) => this.counted('archive', job, 'neutral'));
  private readonly webviews = viewCache((job) => this.counted('webview', job, 'webview'));

  constructor(
    private readonly handle: DbHandle,
    private readonly renderer: MessageRenderer,
    private readonly signer: TokenSigner,
    private readonly engagement: EngagementService,
    private readonly metrics: Metrics,
  ) {}

  /**
   * `/w/{token}`: the recipient's message as they got it (their merge fields, their variant, their
   * signed links, so a click from it counts and its unsubscribe link works) without the open pixel:
   * looking at it again counts no open. `test` for a live test send's token (a test message names
   * no recipient to render it for); null when the token is not valid, the recipient row is gone,
   * or its contact was deleted or erased (D21: the page would show what the person asked us to forget).
   */
  async webview(token: string, waitForTurn: WaitForAccountTurn): Promise<ViewedMessage | 'test' | null> {
    const payload = this.signer.verify(token, 'webview');
    if (!payload) {
      const test = this.signer.verify(token, 'test-webview');
      return test && (await this.engagement.isLiveTestSend(test.testSendId)) ? 'test' : null;
    }
    const { db, dialect } = this.handle;
    const recipient = await findRecipientView(db, payload.recipientId);
    if (!recipient || recipient.contact_id === null) return null;
    const [campaign, contact] = await Promise.all([findCampaignById(db, recipient.campaign_id), findContactById(db, dialect, recipient.contact_id).catch(() => undefined)]);
    if (!campaign || !contact) return null;
    await waitForTurn(campaign.account_id);
    const merge: MergeContact = { email: recipient.email, first_name: contact.first_name, last_name: contact.last_name, phone: contact.phone, custom_fields: readJson<Record<string, unknown>>(contact.custom_fields, {}) };
    const key = `${recipient.id}:${versionOf(campaign.updated_at)}:${versionOf(contact.updated_at)}`;
    return (await this.webviews.fetch(key, { context: { campaign, recipient: { recipientId: recipient.id, contact: merge, variant: recipient.variant } } }))!;
  }

  /** `/archive/{slug}`: a page of the account's archive, newest first; null for an unknown slug. */
  async archive(slug: string, page: PageRequest, waitForTurn: WaitForAccountTurn): Promise<{ account: ArchiveAccount; entries: ArchiveEntry[]; total: number } | null> {
    const account = await findAccountBySlug(this.handle.db, slug);
    if (!account) return null;
    await waitForTurn(account.id);
    const { rows, total } = await pageArchivedCampaigns(this.handle.db, account.id, page);
    return { account: { name: account.name, slug: account.slug }, entries: await this.entries(rows), total };
  }

  /** `/archive/{slug}/{id}`: the archived campaign rendered for nobody; null unless it is in that account's archive. */
  async archivedMessage(slug: string, id: number, waitForTurn: WaitForAccountTurn): Promise<{ account: ArchiveAccount; message: ViewedMessage } | null> {
    const account = await findAccountBySlug(this.handle.db, slug);
    if (!account) return null;
    await waitForTurn(account.id);
    const campaign = await findArchivedCampaign(this.handle.db, account.id, id);
    if (!campaign) return null;
    return { account: { name: account.name, slug: account.slug }, message: await this.archivedRender(campaign) };
  }

  private async entries(rows: CampaignRow[]): Promise<ArchiveEntry[]> {
    const entries: ArchiveEntry[] = [];
    for (const row of rows) {
      const message = await this.archivedRender(row);
      const summary = (message.text ?? '').replace(/\s+/g, ' ').trim();
      entries.push({
        id: row.id,
        subject: message.subject,
        sent_at: toApiTimestamp(row.sent_at ?? row.updated_at)!,
        summary: summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS - 1)}…` : summary,
      });
    }
    return entries;
  }

  private async archivedRender(campaign: CampaignRow): Promise<ViewedMessage> {
    // D23: an A/B campaign's archive shows the variant that won (else the first), as most recipients got it.
    const recipient: RenderRecipient = { recipientId: { testSendId: 0 }, contact: NOBODY, variant: campaign.ab_winner ?? null };
    return (await this.archived.fetch(`${campaign.id}:${versionOf(campaign.updated_at)}`, { context: { campaign, recipient } }))!;
  }

  /** A render the caches asked for, counted (`sendwell_view_renders_total`): what a cached view saves shows there. */
  private counted(view: 'webview' | 'archive', { campaign, recipient }: ViewRender, rendering: Rendering): Promise<ViewedMessage> {
    this.metrics.viewRenders.inc({ view });
    return this.render(campaign, recipient, rendering);
  }

  /** The message, or a plain note in its place when it cannot be rendered any more (content edited since, a limit). */
  private async render(campaign: CampaignRow, recipient: RenderRecipient, rendering: Rendering): Promise<ViewedMessage> {
    const fallback = { subject: campaign.subject ?? '', html: null, text: 'This message cannot be shown.' };
    try {
      const [result] = await this.renderer.render({ ...campaign, subject: campaign.subject ?? '' }, [{ ...recipient, rendering }]);
      if ('renderError' in result) return fallback;
      return { subject: result.subject, html: result.html, text: result.text };
    } catch (err) {
      if (err instanceof ContentError) return fallback;
      throw err;
    }
  }
}
