import type { Db, DbHandle, Dialect } from '../../db/connect.ts';
import type { ReadPool } from '../../db/read-pool.ts';
import { requireSegments, segmentsMatching } from '../segments/segments.service.ts';
import { findSegments, matchContacts } from '../segments/segments.repo.ts';
import { followUpCondition, followUpName, type FollowUp, type FollowUpAudience } from './follow-up.ts';
import type { Updateable } from 'kysely';
import type { CampaignRow, CampaignsTable } from '../../db/schema.ts';
import { normaliseEmail, normaliseTags } from '../contacts/contact-fields.ts';
import { findList } from '../lists/lists.repo.ts';
import { findAccount } from '../accounts/accounts.repo.ts';
import { listNotFound } from '../lists/lists.service.ts';
import { InvalidStateError, NotFoundError, RateLimitedError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, toApiTimestamp, toEpochMs } from '../shared/time.ts';
import { canDelete, canEdit, CAMPAIGN_STATUSES, transition, type CampaignStatus } from './campaign-status.ts';
import * as repo from './campaigns.repo.ts';
import { readCounters } from './campaign-stats.repo.ts';
import { enqueueWebhookEvent } from '../outbound-webhooks/enqueue.ts';
import { campaignEvent } from '../outbound-webhooks/event-data.ts';
import { countAudience, pageRecipients, requeueFailedRecipients, snapshotAudience, type Audience, type RecipientFilter } from './recipients.repo.ts';
import { linkClickTotals } from './engagement.repo.ts';
import { parseInputTimestamp } from '../shared/time.ts';
import { computeStatistics, rate, type CampaignStatistics } from './statistics.ts';
import { checkTemplateLimits } from './template-limits.ts';
import { checkTemplateSyntax } from './template-syntax.ts';
import { abTestOf, checkAbSettings, pickWinner, setsField, storedVariant, testShareSizes, variantContent, variantsOf, type AbPhase, type AbTest, type Variant } from './ab-test.ts';
import { assignTestShares, decideAbTest, releaseHeldRecipients, startAbWait, variantCounts } from './ab-test.repo.ts';
import { checkSendWindow, type SendWindow } from './send-window.ts';
import { compiledVariantsOf, contentFormat, type CampaignContentCompiler, type CampaignContentSource, type CompiledContent } from '../content/campaign-content.ts';
import type { ContentFormat } from '../content/content.ts';
import type { ContentWarning } from '../content/content-checks.ts';

/**
 * The links a campaign's content holds, in order: what its messages' click tokens index into.
 * Finding them is the sender's business (sending/engagement.service.ts gives it); the list is
 * stored when sending starts, so a click only reads it (issue 14 H2).
 */
export type ContentLinks = (campaign: CampaignRow) => string[];

// html and text: TEMPLATE_LIMITS (template-limits.ts), in bytes and Liquid tags.
export const CAMPAIGN_LIMITS = { nameMax: 255, subjectMax: 998, fromNameMax: 255, preheaderMax: 255 } as const;

export interface Campaign {
  id: number;
  name: string;
  subject: string | null;
  status: CampaignStatus;
  total_recipients: number;
  created_at: string;
  sent_at: string | null;
  from_name: string | null;
  from_email: string | null;
  reply_to: string | null;
  preheader: string | null;
  html: string | null;
  text: string | null;
  /** D22: what `html` (and each variant's html) is written in */
  format: ContentFormat;
  /** D22: the layout the content is placed in, or null */
  template_id: number | null;
  list_ids: number[];
  segment_ids: number[];
  tags: string[];
  follow_up: FollowUp | null;
  /** D23: 2-4 variants over the base content, with `ab_test`; else null */
  variants: Variant[] | null;
  ab_test: AbTest | null;
  scheduled_at: string | null;
  updated_at: string;
  error: string | null;
  /** D23: when it may send, in its time zone; null: any time */
  send_window: SendWindow | null;
  /** D22: shown in the account's public archive once SENT */
  archive: boolean;
  /** D22: `{PUBLIC_URL}/archive/{account slug}/{id}` when archived and SENT, else null */
  archive_url: string | null;
}

export interface CampaignInput {
  name?: string;
  subject?: string | null;
  from_name?: string | null;
  from_email?: string | null;
  reply_to?: string | null;
  preheader?: string | null;
  html?: string | null;
  text?: string | null;
  format?: ContentFormat;
  template_id?: number | null;
  list_ids?: number[];
  segment_ids?: number[];
  tags?: string[];
  variants?: Variant[] | null;
  ab_test?: AbTest | null;
  send_window?: SendWindow | null;
  archive?: boolean;
}

export const campaignNotFound = () => new NotFoundError('CAMPAIGN_NOT_FOUND', 'campaign not found');

/** D22: whether the campaign is in its account's public archive: archived and SENT. */
export function isArchived(row: Pick<CampaignRow, 'archive' | 'status'>): boolean {
  return Number(row.archive) === 1 && row.status === 'SENT';
}

/** `archiveBase`: the account's archive, `{PUBLIC_URL}/archive/{slug}`, needed when the campaign is in it (isArchived). */
export function toCampaign(row: CampaignRow, archiveBase: string | null = null): Campaign {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    status: row.status as CampaignStatus,
    total_recipients: Number(row.total_recipients),
    created_at: toApiTimestamp(row.created_at),
    sent_at: toApiTimestamp(row.sent_at),
    from_name: row.from_name,
    from_email: row.from_email,
    reply_to: row.reply_to,
    preheader: row.preheader,
    html: row.html,
    text: row.text,
    format: row.format as ContentFormat,
    template_id: row.template_id === null ? null : Number(row.template_id),
    list_ids: readJson<number[]>(row.list_ids, []),
    segment_ids: readJson<number[]>(row.segment_ids, []),
    tags: readJson<string[]>(row.tags, []),
    follow_up: readJson<FollowUp | null>(row.follow_up, null),
    variants: variantsOf(row),
    ab_test: abTestOf(row),
    scheduled_at: toApiTimestamp(row.scheduled_at),
    updated_at: toApiTimestamp(row.updated_at),
    error: row.error,
    send_window: readJson<SendWindow | null>(row.send_window, null),
    archive: Number(row.archive) === 1,
    archive_url: isArchived(row) && archiveBase !== null ? `${archiveBase}/${row.id}` : null,
  };
}

function checkLength(field: string, value: string | null | undefined, max: number): void {
  if (typeof value === 'string' && [...value].length > max) throw new ValidationError(`${field} must be at most ${max} characters`);
}

/** Turns API input into column values; list ids must name lists of this account (404 LIST_NOT_FOUND). */
async function toColumns(db: Db, accountId: number, input: CampaignInput) {
  const out: Updateable<CampaignsTable> = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name.length === 0) throw new ValidationError('name must not be empty');
    checkLength('name', name, CAMPAIGN_LIMITS.nameMax);
    out.name = name;
  }
  checkLength('subject', input.subject, CAMPAIGN_LIMITS.subjectMax);
  checkLength('from_name', input.from_name, CAMPAIGN_LIMITS.fromNameMax);
  checkLength('preheader', input.preheader, CAMPAIGN_LIMITS.preheaderMax);
  checkTemplateLimits({ html: input.html, text: input.text });
  checkTemplateSyntax({ subject: input.subject, preheader: input.preheader, html: input.html, text: input.text });
  for (const f of ['subject', 'from_name', 'preheader', 'html', 'text'] as const) if (input[f] !== undefined) out[f] = input[f];
  if (input.format !== undefined) out.format = contentFormat(input.format);
  // template_id is checked (D22: 404 TEMPLATE_NOT_FOUND, 400 for a starter) when the content is compiled, before this.
  if (input.template_id !== undefined) out.template_id = input.template_id;
  if (input.archive !== undefined) out.archive = input.archive ? 1 : 0;
  for (const f of ['from_email', 'reply_to'] as const) {
    const v = input[f];
    if (v !== undefined) out[f] = v === null ? null : normaliseEmail(v, f);
  }
  if (input.list_ids !== undefined) {
    const ids = [...new Set(input.list_ids)];
    for (const id of ids) if (!(await findList(db, accountId, id))) throw listNotFound();
    out.list_ids = writeJson(ids);
  }
  if (input.segment_ids !== undefined) out.segment_ids = writeJson(await requireSegments(db, accountId, input.segment_ids));
  if (input.tags !== undefined) out.tags = writeJson(normaliseTags(input.tags));
  if (input.variants !== undefined) {
    checkVariants(input.variants ?? []);
    out.variants = input.variants === null ? null : writeJson(input.variants.map(storedVariant));
  }
  if (input.ab_test !== undefined) out.ab_test = input.ab_test === null ? null : writeJson({ test_percent: input.ab_test.test_percent, metric: input.ab_test.metric, wait_minutes: input.ab_test.wait_minutes });
  if (input.send_window !== undefined) out.send_window = input.send_window === null ? null : writeJson(checkSendWindow(input.send_window));
  return out;
}

/** D23: a variant's fields are checked as the base's are, each error naming `variants[i].<field>`. */
function checkVariants(variants: Variant[]): void {
  for (const [i, v] of variants.entries()) {
    checkLength(`variants[${i}].subject`, v.subject, CAMPAIGN_LIMITS.subjectMax);
    checkLength(`variants[${i}].from_name`, v.from_name, CAMPAIGN_LIMITS.fromNameMax);
    checkTemplateLimits({ [`variants[${i}].html`]: v.html, [`variants[${i}].text`]: v.text });
    checkTemplateSyntax({ [`variants[${i}].subject`]: v.subject, [`variants[${i}].html`]: v.html, [`variants[${i}].text`]: v.text });
  }
}

/** D23: a campaign saved has variants and ab_test both, or neither. */
function checkAbColumns(c: Pick<CampaignRow, 'variants' | 'ab_test'>): void {
  checkAbSettings(variantsOf(c), abTestOf(c));
}

/**
 * D18: what an audience takes beside its lists, as SQL over `contacts`: the segments' filters (read
 * now) and a follow-up's part of an earlier campaign. A campaign id of another account matches no
 * one (its recipients are that account's contacts), so it needs no check here.
 */
export async function audienceMatching(db: Db, dialect: Dialect, accountId: number, segmentIds: number[], followUp: FollowUp | null) {
  const matching = await segmentsMatching(db, dialect, accountId, segmentIds);
  if (followUp) matching.push(matchContacts(followUpCondition(followUp), { dialect, accountId, nowMs: Date.now() }));
  return matching;
}

/** D13 and D18: the campaign's lists, segments and follow-up part, then its tags. */
async function audienceOf(db: Db, dialect: Dialect, c: CampaignRow): Promise<Audience> {
  const matching = await audienceMatching(db, dialect, c.account_id, readJson<number[]>(c.segment_ids, []), readJson<FollowUp | null>(c.follow_up, null));
  return { accountId: c.account_id, listIds: readJson<number[]>(c.list_ids, []), matching, tags: readJson<string[]>(c.tags, []) };
}

/** Whether the campaign names any audience at all: lists, segments, or the campaign it follows up. */
function hasAudienceSource(c: CampaignRow): boolean {
  return readJson<number[]>(c.list_ids, []).length > 0 || readJson<number[]>(c.segment_ids, []).length > 0 || c.follow_up !== null;
}

/** issue 28 C2: an audience not counted within the read budget (read-pool.ts adds the limit). */
export const AUDIENCE_TOO_LONG = "segment_ids: the audience took too long to count; narrow its segments' conditions";

const noRecipients = () => new ValidationError('the campaign has no recipients: its lists and segments hold no SUBSCRIBED contact matching its tags who is not on the suppression list');

/**
 * What a campaign lacks to be mailed at all: subject, sender, content (D13). A test send needs
 * these too. A draft saved before issue 14's template limits may be over them: it cannot be sent
 * until edited (400 naming the field).
 */
export function requireContent(c: CampaignRow): void {
  const missing = missingContent(c);
  if (missing.length > 0) throw new ValidationError(`the campaign cannot be sent without ${missing.join(', ')}`);
  checkTemplates(c);
}

/** Limits, then syntax (D17.4): drafts saved before either check are caught before they mail anyone. */
function checkTemplates(c: CampaignRow): void {
  checkTemplateLimits({ html: c.html, text: c.text });
  checkTemplateSyntax({ subject: c.subject, preheader: c.preheader, html: c.html, text: c.text });
  checkVariants(variantsOf(c) ?? []);
}

function missingContent(c: CampaignRow): string[] {
  const missing = [];
  if (!c.subject?.trim()) missing.push('subject');
  if (!c.from_email) missing.push('from_email');
  if (!c.html?.trim() && !c.text?.trim()) missing.push('html or text');
  return missing;
}

/** D13: no subject, no sender, no content or no lists: it cannot be sent or scheduled (400). */
function requireSendable(c: CampaignRow): void {
  const missing = missingContent(c);
  if (!hasAudienceSource(c)) missing.push('list_ids or segment_ids');
  if (missing.length > 0) throw new ValidationError(`the campaign cannot be sent without ${missing.join(', ')}`);
  checkTemplates(c);
}

/** D19: a ledger row as the API shows it; a row a sender holds (or D23 holds for an A/B winner) is still PENDING to the reader. */
function toLedgerEntry(r: { contact_id: number | null; email: string; status: string; attempts: number; last_error: string | null; sent_at: string | Date | null; opened_at: string | Date | null; clicked_at: string | Date | null }) {
  return {
    contact_id: r.contact_id === null ? null : Number(r.contact_id),
    email: r.email,
    status: r.status === 'CLAIMED' || r.status === 'HELD' ? 'PENDING' : r.status,
    attempts: Number(r.attempts),
    last_error: r.last_error,
    sent_at: toApiTimestamp(r.sent_at),
    opened_at: toApiTimestamp(r.opened_at),
    clicked_at: toApiTimestamp(r.clicked_at),
  };
}

/** What a copy or a follow-up takes of the original: its content and sender (D17.4, D18). */
function contentOf(c: CampaignRow) {
  const { subject, preheader, html, text, from_name, from_email, reply_to, format, template_id, compiled_html } = c;
  return { subject, preheader, html, text, from_name, from_email, reply_to, format, template_id, compiled_html };
}

/**
 * D23: a follow-up of an A/B campaign takes the winner's content (what most recipients got), as
 * its base and without a test; before a winner (a test that did not finish) the base content.
 */
function winningContentOf(c: CampaignRow) {
  if (c.ab_winner === null) return contentOf(c);
  const compiled_html = compiledVariantsOf(c)?.[c.ab_winner] ?? c.compiled_html;
  return contentOf({ ...c, ...variantContent(c, variantsOf(c)?.[c.ab_winner]), compiled_html });
}

/** The fields D22's compiled content is made from (CampaignContentSource), as a row holds them. */
function contentSourceOf(c: CampaignContentSource): CampaignContentSource {
  return { format: c.format, html: c.html, template_id: c.template_id === null ? null : Number(c.template_id), variants: c.variants };
}

const sameSource = (a: CampaignContentSource, b: CampaignContentSource) => JSON.stringify(contentSourceOf(a)) === JSON.stringify(contentSourceOf(b));

/** D22: compiling happens outside the transaction (it may take seconds); a save in between is refused, not overwritten. */
const changedMeanwhile = () => new InvalidStateError('the campaign changed while its content was being compiled; save or send again');

/**
 * The input's content checks, run before compiling, which they bound. The html's Liquid syntax is
 * checked on the compile thread, before it compiles (issue 28: a large draft's parse held the
 * HTTP thread).
 */
function checkContentInput(input: CampaignInput): void {
  checkTemplateLimits({ html: input.html, text: input.text });
  checkVariants(input.variants ?? []);
}

/** D17.4: a copy's name, within the name limit. */
export function copyName(name: string): string {
  return [...`Copy of ${name}`].slice(0, CAMPAIGN_LIMITS.nameMax).join('');
}

/**
 * D22: what may change whatever the campaign's status, a SENDING or SENT one's too: when it may
 * send (D23's window) and whether it is in the public archive (archiving a sent campaign is the
 * usual way to put it there).
 */
const ANYTIME_FIELDS: readonly string[] = ['send_window', 'archive'];

export class CampaignService {
  /** Accounts' archive URLs by account id: a slug is made once and never changes (account-slug.ts). */
  private readonly archiveBases = new Map<number, string>();

  /** `publicUrl`: PUBLIC_URL, where archive_url points (D22). */
  constructor(
    private readonly handle: DbHandle,
    private readonly contentLinks: ContentLinks,
    private readonly content: CampaignContentCompiler,
    private readonly reads: ReadPool,
    private readonly publicUrl = '',
  ) {}

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
   * D22: the content compiled as `input` leaves it over `current` (null when creating), or
   * undefined when the input changes none of html, format, template_id and variants.
   */
  private async compileInput(accountId: number, current: CampaignContentSource | null, input: CampaignInput) {
    if (current !== null && input.html === undefined && input.format === undefined && input.template_id === undefined && input.variants === undefined) return undefined;
    checkContentInput(input);
    const source: CampaignContentSource = {
      format: input.format ?? current?.format ?? 'html',
      html: input.html !== undefined ? input.html : (current?.html ?? null),
      template_id: input.template_id !== undefined ? input.template_id : (current?.template_id ?? null),
      variants: input.variants !== undefined ? (input.variants === null ? null : writeJson(input.variants.map(storedVariant))) : (current?.variants ?? null),
    };
    return this.content.compile(this.handle.db, accountId, source);
  }

  /** The API's campaign: archive_url needs the account's slug, read (through `db`, the caller's transaction) only for an archived SENT one. */
  private async present(db: Db, row: CampaignRow): Promise<Campaign> {
    if (!isArchived(row)) return toCampaign(row);
    let base = this.archiveBases.get(row.account_id);
    if (base === undefined) {
      const account = await findAccount(db, row.account_id);
      base = `${this.publicUrl}/archive/${encodeURIComponent(account?.slug ?? '')}`;
      if (this.archiveBases.size > 10_000) this.archiveBases.clear();
      this.archiveBases.set(row.account_id, base);
    }
    return toCampaign(row, base);
  }

  /** D13: only `name` is needed at creation; the rest can be filled in later. */
  async create(accountId: number, input: CampaignInput & { name: string }): Promise<Campaign> {
    const compiled = await this.compileInput(accountId, null, input);
    return this.handle.db.transaction().execute(async (trx) => {
      const cols = { ...(await toColumns(trx, accountId, input)), ...compiled };
      checkAbColumns({ variants: cols.variants ?? null, ab_test: cols.ab_test ?? null });
      const now = nowIso();
      const row = await repo.insertCampaign(trx, {
        list_ids: '[]',
        tags: '[]',
        ...cols,
        account_id: accountId,
        name: cols.name!,
        status: 'DRAFT',
        created_at: now,
        updated_at: now,
      });
      return this.present(trx, row);
    });
  }

  async page(accountId: number, status: string | undefined, page: PageRequest) {
    if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
      throw new ValidationError(`status must be one of ${CAMPAIGN_STATUSES.join(', ')}`);
    }
    const { rows, total } = await repo.pageCampaigns(this.handle.db, accountId, status, page);
    const campaigns: Campaign[] = [];
    for (const row of rows) campaigns.push(await this.present(this.handle.db, row));
    return toPage('campaigns', campaigns, total, page);
  }

  async get(accountId: number, id: number): Promise<Campaign> {
    return this.present(this.handle.db, await this.require(this.handle.db, accountId, id));
  }

  async update(accountId: number, id: number, input: CampaignInput): Promise<Campaign> {
    // D23: the send window is when to send, not what, and D22's archive flag is where it is shown:
    // either may change at any time, a SENDING or SENT campaign's too.
    const anytimeOnly = Object.keys(input).length > 0 && Object.keys(input).every((field) => ANYTIME_FIELDS.includes(field));
    const editable = (c: CampaignRow) => {
      if (!canEdit(c.status as CampaignStatus) && !anytimeOnly) throw new InvalidStateError(`a ${c.status} campaign cannot be edited`);
    };
    const before = await this.require(this.handle.db, accountId, id);
    editable(before);
    const compiled = await this.compileInput(accountId, before, input);
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      editable(current);
      if (compiled && !sameSource(before, current)) throw changedMeanwhile();
      const cols = { ...(await toColumns(trx, accountId, input)), ...compiled };
      const abChanged = (cols.variants !== undefined && cols.variants !== current.variants) || (cols.ab_test !== undefined && cols.ab_test !== current.ab_test);
      if (abChanged) {
        // D23: the test's shares are drawn when sending starts; a FAILED A/B campaign resumes the same test.
        if (current.ab_phase !== null) throw new InvalidStateError('variants and ab_test cannot change once the campaign has started sending');
        checkAbColumns({ ...current, ...cols } as CampaignRow);
      }
      if (current.status === 'FAILED' && (await this.hasSentMail(trx, id))) {
        // Clicks in mail already delivered index into the links stored when sending started: the
        // rest of the audience may get corrected wording, not a different set of links.
        const linksBefore = writeJson(this.contentLinks(current));
        const linksAfter = writeJson(this.contentLinks({ ...current, ...cols } as CampaignRow));
        if (linksBefore !== linksAfter) throw new ValidationError('html must keep the same links in the same order: this campaign has already sent mail whose links must keep working; duplicate it to send different links');
      }
      return this.present(trx, await repo.updateCampaign(trx, accountId, id, { ...cols, updated_at: nowIso() }));
    });
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      if (!canDelete(current.status as CampaignStatus)) throw new InvalidStateError('a campaign cannot be deleted while it is SENDING');
      // D17.3: once mail has gone out, its links must keep working: the row stays, hidden.
      if (await this.hasSentMail(trx, id)) await repo.markCampaignDeleted(trx, accountId, id, nowIso());
      else await repo.deleteCampaign(trx, accountId, id);
    });
  }

  /** Statistics exist only for SENT campaigns (spec); otherwise 409 CAMPAIGN_NOT_SENT (D13). */
  async statistics(accountId: number, id: number): Promise<CampaignStatistics> {
    const campaign = await this.require(this.handle.db, accountId, id);
    if (campaign.status !== 'SENT') throw new InvalidStateError(`statistics are available once the campaign is SENT; it is ${campaign.status}`, 'CAMPAIGN_NOT_SENT');
    return computeStatistics(await readCounters(this.handle.db, id));
  }

  /** D13: DRAFT or SCHEDULED -> SENDING (audience snapshotted now), or FAILED -> SENDING (only unsent recipients remain). */
  async send(accountId: number, id: number): Promise<Campaign> {
    const before = await this.require(this.handle.db, accountId, id);
    transition(before.status as CampaignStatus, 'send');
    // D22: the layout as it is now is compiled in, unless mail already went out with the content stored then.
    const compiled = before.status === 'FAILED' && (await this.hasSentMail(this.handle.db, id)) ? undefined : await this.compileForSending(before);
    if (before.status !== 'FAILED') await this.countAudienceAhead(before);
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'send');
      if (compiled && !sameSource(before, current)) throw changedMeanwhile();
      if (current.status === 'FAILED') {
        requireContent(current);
        // D17.4: edited while FAILED; before any mail went out its links may have changed too.
        const links = (await this.hasSentMail(trx, id)) ? {} : { links: writeJson(this.contentLinks({ ...current, ...compiled })), ...compiled };
        // D23: the automatic stop judges the resumed send afresh.
        const resumed = await repo.updateCampaign(trx, accountId, id, { status: to, error: null, ...links, outcomes_counted_from: nowIso(), updated_at: nowIso() });
        await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', resumed));
        return this.present(trx, resumed);
      }
      return this.present(trx, await this.startSending(trx, current, compiled!));
    });
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

  /** D13: DRAFT -> SCHEDULED with a future `scheduled_at`; the campaign must already be sendable. */
  async schedule(accountId: number, id: number, rawScheduledAt: string): Promise<Campaign> {
    const scheduledAt = parseInputTimestamp('scheduled_at', rawScheduledAt);
    if (Date.parse(scheduledAt) <= Date.now()) throw new ValidationError('scheduled_at must be in the future');
    // Counted in the read pool before the transaction (issue 28 C2); an audience emptied in between
    // is caught when the snapshot finds no one.
    const before = await this.require(this.handle.db, accountId, id);
    transition(before.status as CampaignStatus, 'schedule');
    requireSendable(before);
    if ((await this.countAudienceAhead(before)) === 0) throw noRecipients();
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'schedule');
      requireSendable(current);
      return this.present(trx, await repo.updateCampaign(trx, accountId, id, { status: to, scheduled_at: scheduledAt, updated_at: nowIso() }));
    });
  }

  async unschedule(accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'unschedule');
      return this.present(trx, await repo.updateCampaign(trx, accountId, id, { status: to, scheduled_at: null, updated_at: nowIso() }));
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
        const current = await repo.findCampaign(trx, account_id, id);
        if (!current || current.status !== 'SCHEDULED' || !sameSource(before, current)) return false;
        try {
          if (compiled instanceof ValidationError) throw compiled;
          await this.startSending(trx, current, compiled, 'due');
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

  private async startSending(trx: Db, current: CampaignRow, compiled: CompiledContent, action: 'send' | 'due' = 'send'): Promise<CampaignRow> {
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
    return sending;
  }

  /**
   * D17.4: a new DRAFT with the same content and audience, named `Copy of <name>`, unscheduled,
   * from a campaign in any status. Lists deleted since are left out of the copy's audience.
   */
  async duplicate(accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const original = await this.require(trx, accountId, id);
      const listIds: number[] = [];
      for (const listId of readJson<number[]>(original.list_ids, [])) if (await findList(trx, accountId, listId)) listIds.push(listId);
      const segmentIds = (await findSegments(trx, accountId, readJson<number[]>(original.segment_ids, []))).map((s) => s.id);
      const now = nowIso();
      const row = await repo.insertCampaign(trx, {
        account_id: accountId,
        name: copyName(original.name),
        status: 'DRAFT',
        ...contentOf(original),
        list_ids: writeJson(listIds),
        segment_ids: writeJson(segmentIds),
        follow_up: original.follow_up,
        tags: original.tags,
        // D23: the copy runs the same test again, on its own audience.
        variants: original.variants,
        compiled_variants: original.compiled_variants,
        ab_test: original.ab_test,
        send_window: original.send_window,
        created_at: now,
        updated_at: now,
      });
      return this.present(trx, row);
    });
  }

  /**
   * D18: a new DRAFT with the SENT campaign's content, named `<name> (follow-up)`, whose audience
   * is a part of that campaign's recipients (follow-up.ts), decided when it is sent, minus anyone
   * no longer SUBSCRIBED then. Other statuses: 409 INVALID_STATE.
   */
  async followUp(accountId: number, id: number, audience: FollowUpAudience): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const original = await this.require(trx, accountId, id);
      if (original.status !== 'SENT') throw new InvalidStateError(`a follow-up needs a SENT campaign; this one is ${original.status}`);
      const now = nowIso();
      const row = await repo.insertCampaign(trx, {
        account_id: accountId,
        name: followUpName(original.name, CAMPAIGN_LIMITS.nameMax),
        status: 'DRAFT',
        ...winningContentOf(original),
        list_ids: '[]',
        segment_ids: '[]',
        follow_up: writeJson({ campaign_id: original.id, audience } satisfies FollowUp),
        tags: '[]',
        created_at: now,
        updated_at: now,
      });
      return this.present(trx, row);
    });
  }

  /** D19: the ledger, a recipient per row with its outcome and engagement, by id. */
  async recipients(accountId: number, id: number, filter: RecipientFilter, page: PageRequest) {
    await this.require(this.handle.db, accountId, id);
    const { rows, total } = await pageRecipients(this.handle.db, id, filter, page);
    return toPage('recipients', rows.map(toLedgerEntry), total, page);
  }

  /**
   * D19: each link of the campaign with its clicks and unique clicks, in the order its messages
   * hold them (the list stored when sending started; a draft's from its content, at zero).
   */
  async links(accountId: number, id: number) {
    const campaign = await this.require(this.handle.db, accountId, id);
    const urls = campaign.links === null ? this.contentLinks(campaign) : readJson<string[]>(campaign.links, []);
    const totals = await linkClickTotals(this.handle.db, id);
    return { links: urls.map((url, i) => ({ url, clicks: totals.get(i)?.clicks ?? 0, unique_clicks: totals.get(i)?.unique_clicks ?? 0 })) };
  }

  /**
   * D22: warnings about the content as it would be sent (compiled, its layout included): the base
   * and each variant's own HTML, each warning once. Worked out on the compile thread, in the
   * account's turn and within its time limit: it reads tenant HTML (issue 28 C1).
   */
  async checks(accountId: number, id: number): Promise<{ warnings: ContentWarning[] }> {
    const c = await this.require(this.handle.db, accountId, id);
    const compiledVariants = compiledVariantsOf(c);
    const htmls = [c.compiled_html ?? c.html, ...(variantsOf(c) ?? []).map((v, i) => compiledVariants?.[i] ?? (setsField(v.html) ? v.html : null))];
    return { warnings: await this.content.checks(accountId, htmls, c.text) };
  }

  /**
   * D23: each variant with its content (over the base), its share of the audience, and how its
   * recipients engaged; the winner's figures include the rest of the audience it was sent to.
   * `winner` is null until the test is decided. Before sending starts, the share is the planned
   * one. A campaign without variants has an empty list: it exists, it just has none.
   */
  async variantReport(accountId: number, id: number) {
    const c = await this.require(this.handle.db, accountId, id);
    const variants = variantsOf(c) ?? [];
    const abTest = abTestOf(c);
    const counts = c.ab_phase === null ? [] : await variantCounts(this.handle.db, id);
    const total = Number(c.total_recipients);
    return {
      variants: variants.map((v, index) => {
        const content = variantContent(c, v);
        const n = counts.find((t) => t.variant === index) ?? { recipients: 0, sent: 0, delivered: 0, human_opened: 0, human_clicked: 0 };
        return {
          index,
          subject: content.subject,
          from_name: content.from_name,
          share_percent: c.ab_phase === null ? rate(abTest?.test_percent ?? 0, 100 * variants.length) : rate(n.recipients, total),
          sent: n.sent,
          human_opened: n.human_opened,
          human_clicked: n.human_clicked,
          human_open_rate: rate(n.human_opened, n.delivered),
          human_click_rate: rate(n.human_clicked, n.delivered),
          winner: c.ab_phase === 'DECIDED' ? index === c.ab_winner : null,
        };
      }),
    };
  }

  /**
   * D19: a SENT or FAILED campaign's FAILED recipients go back in line (those still SUBSCRIBED),
   * and the campaign is SENDING until they are done. None to retry: 409 INVALID_STATE.
   */
  async retryFailed(accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const current = await this.require(trx, accountId, id);
      const to = transition(current.status as CampaignStatus, 'retry');
      if ((await requeueFailedRecipients(trx, id)) === 0) throw new InvalidStateError('the campaign has no FAILED recipients whose contact is still SUBSCRIBED');
      const sending = await repo.updateCampaign(trx, accountId, id, { status: to, error: null, outcomes_counted_from: nowIso(), updated_at: nowIso() });
      await enqueueWebhookEvent(trx, campaignEvent('campaign.sending', sending));
      return this.present(trx, sending);
    });
  }

  private async hasSentMail(db: Db, id: number): Promise<boolean> {
    return (await readCounters(db, id)).sent > 0;
  }

  private async require(db: Db, accountId: number, id: number): Promise<CampaignRow> {
    const row = await repo.findCampaign(db, accountId, id);
    if (!row) throw campaignNotFound();
    return row;
  }
}
