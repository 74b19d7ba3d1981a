import type { ActingContext } from '../shared/actor.ts';
import type { Updateable } from 'kysely';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { CampaignRow, CampaignsTable } from '../../db/schema.ts';
import { normaliseTags } from '../contacts/contact-fields.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { compiledVariantsOf, contentFormat, type CampaignContentCompiler, type CampaignContentSource } from './campaign-content.ts';
import { findList } from '../lists/lists.repo.ts';
import { listNotFound } from '../lists/lists.service.ts';
import { requireSegments } from '../segments/segments.service.ts';
import { findSegments } from '../segments/segments.repo.ts';
import { InvalidStateError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { storedVariant, variantContent, variantsOf } from './ab-test.ts';
import { ANYTIME_FIELDS, CAMPAIGN_LIMITS, changedMeanwhile, checkAbColumns, checkContentInput, checkLength, checkVariants, copyName, sameSource, type Campaign, type CampaignInput, type ContentLinks } from './campaign.ts';
import { hasSentMail, requireCampaign, type CampaignPresenter } from './campaign-lookup.ts';
import { canDelete, canEdit, CAMPAIGN_STATUSES, type CampaignStatus } from './campaign-status.ts';
import * as repo from './campaigns.repo.ts';
import { followUpName, type FollowUp, type FollowUpAudience } from './follow-up.ts';
import { checkSendWindow } from './send-window.ts';
import { checkTemplateLimits } from '../content/template-limits.ts';
import { checkTemplateSyntax } from '../content/template-syntax.ts';
import { mergeFieldWarnings } from '../content/merge-field-warnings.service.ts';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * Turns API input into column values; list ids must name lists of this account (404
 * LIST_NOT_FOUND). With them, the merge fields the content given uses (D26.7, from the syntax
 * check's parse).
 */
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
  const mergeFields = new Set(checkTemplateSyntax({ subject: input.subject, preheader: input.preheader, html: input.html, text: input.text }));
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
    for (const name of checkVariants(input.variants ?? [])) mergeFields.add(name);
    out.variants = input.variants === null ? null : writeJson(input.variants.map(storedVariant));
  }
  if (input.ab_test !== undefined) out.ab_test = input.ab_test === null ? null : writeJson({ test_percent: input.ab_test.test_percent, metric: input.ab_test.metric, wait_minutes: input.ab_test.wait_minutes });
  if (input.send_window !== undefined) out.send_window = input.send_window === null ? null : writeJson(checkSendWindow(input.send_window));
  return { columns: out, mergeFields: [...mergeFields] };
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

/**
 * A campaign's drafts and copies: create, read, edit and delete, duplicate and follow up. Sending
 * and its states are CampaignLifecycleService's; what a campaign reports, CampaignReports'.
 */
export class CampaignService {
  constructor(
    private readonly handle: DbHandle,
    private readonly contentLinks: ContentLinks,
    private readonly content: CampaignContentCompiler,
    private readonly presenter: CampaignPresenter,
  ) {}

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

  /** D13: only `name` is needed at creation; the rest can be filled in later. D26.7's warnings come with it. */
  async create(acting: ActingContext, accountId: number, input: CampaignInput & { name: string }): Promise<{ campaign: Campaign; warnings: string[] }> {
    const compiled = await this.compileInput(accountId, null, input);
    let mergeFields: string[] = [];
    const campaign = await this.handle.db.transaction().execute(async (trx) => {
      const given = await toColumns(trx, accountId, input);
      mergeFields = given.mergeFields;
      const cols = { ...given.columns, ...compiled };
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
      await recordAudit(trx, acting, accountId, 'campaign.created', { type: 'campaign', id: row.id });
      return this.presenter.present(trx, row);
    });
    return { campaign, warnings: await mergeFieldWarnings(this.handle, accountId, mergeFields, 'campaign') };
  }

  async page(accountId: number, status: string | undefined, page: PageRequest) {
    if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
      throw new ValidationError(`status must be one of ${CAMPAIGN_STATUSES.join(', ')}`);
    }
    const { rows, total } = await repo.pageCampaigns(this.handle.db, accountId, status, page);
    const campaigns: Campaign[] = [];
    for (const row of rows) campaigns.push(await this.presenter.present(this.handle.db, row));
    return toPage('campaigns', campaigns, total, page);
  }

  async get(accountId: number, id: number): Promise<Campaign> {
    return this.presenter.present(this.handle.db, await requireCampaign(this.handle.db, accountId, id));
  }

  /** The campaign edited, and D26.7's warnings of merge fields nothing fills in the content given. */
  async update(acting: ActingContext, accountId: number, id: number, input: CampaignInput): Promise<{ campaign: Campaign; warnings: string[] }> {
    // D23: the send window is when to send, not what, and D22's archive flag is where it is shown:
    // either may change at any time, a SENDING or SENT campaign's too.
    const anytimeOnly = Object.keys(input).length > 0 && Object.keys(input).every((field) => ANYTIME_FIELDS.includes(field));
    const editable = (c: CampaignRow) => {
      if (!canEdit(c.status as CampaignStatus) && !anytimeOnly) throw new InvalidStateError(`a ${c.status} campaign cannot be edited`);
    };
    const before = await requireCampaign(this.handle.db, accountId, id);
    editable(before);
    const compiled = await this.compileInput(accountId, before, input);
    let mergeFields: string[] = [];
    const campaign = await this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      editable(current);
      if (compiled && !sameSource(before, current)) throw changedMeanwhile();
      const given = await toColumns(trx, accountId, input);
      mergeFields = given.mergeFields;
      const cols = { ...given.columns, ...compiled };
      const abChanged = (cols.variants !== undefined && cols.variants !== current.variants) || (cols.ab_test !== undefined && cols.ab_test !== current.ab_test);
      if (abChanged) {
        // D23: the test's shares are drawn when sending starts; a FAILED A/B campaign resumes the same test.
        if (current.ab_phase !== null) throw new InvalidStateError('variants and ab_test cannot change once the campaign has started sending');
        checkAbColumns({ ...current, ...cols } as CampaignRow);
      }
      if (current.status === 'FAILED' && (await hasSentMail(trx, id))) {
        // Clicks in mail already delivered index into the links stored when sending started: the
        // rest of the audience may get corrected wording, not a different set of links.
        const linksBefore = writeJson(this.contentLinks(current));
        const linksAfter = writeJson(this.contentLinks({ ...current, ...cols } as CampaignRow));
        if (linksBefore !== linksAfter) throw new ValidationError('html must keep the same links in the same order: this campaign has already sent mail whose links must keep working; duplicate it to send different links');
      }
      const updated = await repo.updateCampaign(trx, accountId, id, { ...cols, updated_at: nowIso() });
      // D24.8: an A/B test's variants are part of the campaign: their changes are this entry too.
      await recordAudit(trx, acting, accountId, 'campaign.updated', { type: 'campaign', id });
      return this.presenter.present(trx, updated);
    });
    return { campaign, warnings: await mergeFieldWarnings(this.handle, accountId, mergeFields, 'campaign') };
  }

  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      const current = await requireCampaign(trx, accountId, id);
      if (!canDelete(current.status as CampaignStatus)) throw new InvalidStateError(`a campaign cannot be deleted while it is ${current.status}${current.status === 'PAUSED' ? ': cancel it first' : ''}`);
      // D17.3: once mail has gone out, its links must keep working: the row stays, hidden.
      if (await hasSentMail(trx, id)) await repo.markCampaignDeleted(trx, accountId, id, nowIso());
      else await repo.deleteCampaign(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'campaign.deleted', { type: 'campaign', id });
    });
  }

  /**
   * D17.4: a new DRAFT with the same content and audience, named `Copy of <name>`, unscheduled,
   * from a campaign in any status. Lists deleted since are left out of the copy's audience.
   */
  async duplicate(acting: ActingContext, accountId: number, id: number): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const original = await requireCampaign(trx, accountId, id);
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
      // D24.8: a copy or a follow-up is a campaign created too.
      await recordAudit(trx, acting, accountId, 'campaign.created', { type: 'campaign', id: row.id });
      return this.presenter.present(trx, row);
    });
  }

  /**
   * D18: a new DRAFT with the SENT campaign's content, named `<name> (follow-up)`, whose audience
   * is a part of that campaign's recipients (follow-up.ts), decided when it is sent, minus anyone
   * no longer SUBSCRIBED then. Other statuses: 409 INVALID_STATE.
   */
  async followUp(acting: ActingContext, accountId: number, id: number, audience: FollowUpAudience): Promise<Campaign> {
    return this.handle.db.transaction().execute(async (trx) => {
      const original = await requireCampaign(trx, accountId, id);
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
      // D24.8: a copy or a follow-up is a campaign created too.
      await recordAudit(trx, acting, accountId, 'campaign.created', { type: 'campaign', id: row.id });
      return this.presenter.present(trx, row);
    });
  }
}
