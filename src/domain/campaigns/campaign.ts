import type { Held } from './campaign-hold.ts';
import type { CampaignRow } from '../../db/schema.ts';
import type { ContentFormat } from '../content/content.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { readJson } from '../shared/json.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { abTestOf, checkAbSettings, variantsOf, type AbTest, type Variant } from './ab-test.ts';
import type { CampaignStatus } from './campaign-status.ts';
import type { FollowUp } from './follow-up.ts';
import type { SendWindow } from './send-window.ts';
import { checkTemplateLimits } from '../content/template-limits.ts';
import { checkTemplateSyntax } from '../content/template-syntax.ts';

/**
 * The campaign as the API, its schemas and the dashboard see it, with the rules that need no
 * database: limits, the checks a save or a send makes, and the row's mapping to the API's shape.
 * No query and no service here, so anything may import it.
 */

/**
 * The links a campaign's content holds, in order: what its messages' click tokens index into.
 * Finding them is the sender's business (engagement/engagement.service.ts gives it); the list is
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
  /** D26.2: why a SENDING campaign waits, and until when; null while it sends, and in any other status */
  held: Held | null;
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

/** D22: compiling happens outside the transaction (it may take seconds); a save in between is refused, not overwritten. */
export const changedMeanwhile = () => new InvalidStateError('the campaign changed while its content was being compiled; save or send again');

/** issue 28 C2: an audience not counted within the read budget (read-pool.ts adds the limit). */
export const AUDIENCE_TOO_LONG = "segment_ids: the audience took too long to count; narrow its segments' conditions";

export const noRecipients = () => new ValidationError('the campaign has no recipients: its lists and segments hold no SUBSCRIBED contact matching its tags who is not on the suppression list');

/**
 * D22: what may change whatever the campaign's status, a SENDING or SENT one's too: when it may
 * send (D23's window) and whether it is in the public archive (archiving a sent campaign is the
 * usual way to put it there).
 */
export const ANYTIME_FIELDS: readonly string[] = ['send_window', 'archive'];

/** D22: whether the campaign is in its account's public archive: archived and SENT. */
export function isArchived(row: Pick<CampaignRow, 'archive' | 'status'>): boolean {
  return Number(row.archive) === 1 && row.status === 'SENT';
}

/** `archiveBase`: the account's archive, `{PUBLIC_URL}/archive/{slug}`, needed when the campaign is in it (isArchived). */
export function toCampaign(row: CampaignRow, archiveBase: string | null = null, held: Held | null = null): Campaign {
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
    held,
  };
}

export function checkLength(field: string, value: string | null | undefined, max: number): void {
  if (typeof value === 'string' && [...value].length > max) throw new ValidationError(`${field} must be at most ${max} characters`);
}

/**
 * D23: a variant's fields are checked as the base's are, each error naming `variants[i].<field>`.
 * Returns the merge fields they use (D26.7, from the syntax check's parse).
 */
export function checkVariants(variants: Variant[]): string[] {
  const mergeFields = new Set<string>();
  for (const [i, v] of variants.entries()) {
    checkLength(`variants[${i}].subject`, v.subject, CAMPAIGN_LIMITS.subjectMax);
    checkLength(`variants[${i}].from_name`, v.from_name, CAMPAIGN_LIMITS.fromNameMax);
    checkTemplateLimits({ [`variants[${i}].html`]: v.html, [`variants[${i}].text`]: v.text });
    for (const name of checkTemplateSyntax({ [`variants[${i}].subject`]: v.subject, [`variants[${i}].html`]: v.html, [`variants[${i}].text`]: v.text })) mergeFields.add(name);
  }
  return [...mergeFields];
}

/**
 * The input's content checks, run before compiling, which they bound. The html's Liquid syntax is
 * checked on the compile thread, before it compiles (issue 28: a large draft's parse held the
 * HTTP thread).
 */
export function checkContentInput(input: CampaignInput): void {
  checkTemplateLimits({ html: input.html, text: input.text });
  checkVariants(input.variants ?? []);
}

/** D23: a campaign saved has variants and ab_test both, or neither. */
export function checkAbColumns(c: Pick<CampaignRow, 'variants' | 'ab_test'>): void {
  checkAbSettings(variantsOf(c), abTestOf(c));
}

/** Whether the campaign names any audience at all: lists, segments, or the campaign it follows up. */
function hasAudienceSource(c: CampaignRow): boolean {
  return readJson<number[]>(c.list_ids, []).length > 0 || readJson<number[]>(c.segment_ids, []).length > 0 || c.follow_up !== null;
}

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
export function requireSendable(c: CampaignRow): void {
  const missing = missingContent(c);
  if (!hasAudienceSource(c)) missing.push('list_ids or segment_ids');
  if (missing.length > 0) throw new ValidationError(`the campaign cannot be sent without ${missing.join(', ')}`);
  checkTemplates(c);
}

/** D17.4: a copy's name, within the name limit. */
export function copyName(name: string): string {
  return [...`Copy of ${name}`].slice(0, CAMPAIGN_LIMITS.nameMax).join('');
}

/** The fields D22's compiled content is made from (campaign-content.ts CampaignContentSource). */
type ContentSourceFields = Pick<CampaignRow, 'format' | 'html' | 'template_id' | 'variants'>;

/** The fields D22's compiled content is made from, as a row holds them. */
export function contentSourceOf(c: ContentSourceFields): ContentSourceFields {
  return { format: c.format, html: c.html, template_id: c.template_id === null ? null : Number(c.template_id), variants: c.variants };
}

export const sameSource = (a: ContentSourceFields, b: ContentSourceFields) => JSON.stringify(contentSourceOf(a)) === JSON.stringify(contentSourceOf(b));
