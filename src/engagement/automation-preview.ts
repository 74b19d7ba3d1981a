import { createHash } from 'node:crypto';
import type { DbHandle } from '../db/connect.ts';
import type { CampaignRow } from '../db/schema.ts';
import { EVENT_DATA_MAX_BYTES, EVENT_DATA_MAX_DEPTH, needsCompiling, nestsDeeperThan } from '../domain/automations/automation-definition.ts';
import { AUTOMATION_CAMPAIGN_STATUS } from '../domain/campaigns/campaigns.repo.ts';
import { contentFormat, type CampaignContentCompiler } from '../domain/campaigns/campaign-content.ts';
import type { ContentWarning } from '../domain/content/content-checks.ts';
import type { ContentFormat } from '../domain/content/content.ts';
import { unknownMergeFieldsOf } from '../domain/content/merge-field-warnings.service.ts';
import { unknownMergeFieldWarning } from '../domain/content/merge-fields.ts';
import { checkTemplateLimits } from '../domain/content/template-limits.ts';
import { checkTemplateSyntax } from '../domain/content/template-syntax.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import { writeJson } from '../domain/shared/json.ts';
import { nowIso } from '../domain/shared/time.ts';
import type { TestSender } from './test-send.ts';

/** A SEND_EMAIL step as the editor has it (saved or not), and whose data to preview it with. */
export interface StepPreviewInput {
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  format?: string;
  template_id?: number | null;
  from_email?: string | null;
  from_name?: string | null;
  /** a contact's address: its fields fill the merge fields (else sample data) */
  email?: string;
  /** the triggering event's data the step is previewed with: `{{ event.<key> }}` (D26.7) */
  event?: Record<string, unknown> | null;
}

/**
 * Issue 34 item 11: a workflow's SEND_EMAIL step previewed as a campaign is (D22): its format
 * compiled in its layout as saving would (MJML errors 400 naming the line; another account's or a
 * missing layout 404 TEMPLATE_NOT_FOUND), rendered neutrally on the API's render thread for a
 * contact or sample data with sample event data, nothing sent, stored or tracked; and the content
 * checks the campaign page shows (D22's warnings, D26.7's unknown merge fields at a workflow's
 * place, where `event.*` is known).
 */
export class AutomationStepPreview {
  constructor(
    private readonly handle: DbHandle,
    private readonly testSender: TestSender,
    private readonly content: CampaignContentCompiler,
  ) {}

  async preview(accountId: number, input: StepPreviewInput): Promise<{ subject: string; html: string | null; text: string | null; merge_data: string; warnings: ContentWarning[] }> {
    const subject = input.subject ?? '';
    const html = input.html ?? '';
    const text = input.text ?? null;
    // The same limits and syntax check as saving the step (D17.4), before anything compiles.
    checkTemplateLimits({ html, text });
    checkTemplateSyntax({ subject, html, text });
    const event = input.event ?? {};
    // As POST /v1/events bounds an event's data (D14, issue 14 L7), before anything walks it.
    if (nestsDeeperThan(event, EVENT_DATA_MAX_DEPTH)) throw new ValidationError(`event must nest objects and arrays at most ${EVENT_DATA_MAX_DEPTH} levels deep`);
    if (Buffer.byteLength(writeJson(event)) > EVENT_DATA_MAX_BYTES) throw new ValidationError(`event must be at most ${EVENT_DATA_MAX_BYTES} bytes as JSON`);
    const format: ContentFormat = contentFormat(input.format ?? 'html');
    const templateId = input.template_id ?? null;
    const compiled =
      html !== '' && needsCompiling({ type: 'SEND_EMAIL', subject, html, text, from_email: '', from_name: null, format, template_id: templateId })
        ? (await this.content.compile(this.handle.db, accountId, { format, html, template_id: templateId, variants: null })).compiled_html
        : null;
    const now = nowIso();
    const row: CampaignRow = {
      id: 0,
      account_id: accountId,
      name: 'workflow step preview',
      subject,
      from_name: input.from_name ?? null,
      from_email: input.from_email ?? null,
      reply_to: null,
      preheader: null,
      html,
      text,
      list_ids: '[]',
      tags: '[]',
      status: AUTOMATION_CAMPAIGN_STATUS,
      scheduled_at: null,
      total_recipients: 0,
      sent_at: null,
      error: null,
      created_at: now,
      // The render thread keeps content compiled per version: each preview's content is a version of its own.
      updated_at: `draft:${createHash('sha256').update(JSON.stringify([subject, html, compiled, text])).digest('base64url')}`,
      links: null,
      deleted_at: null,
      segment_ids: '[]',
      follow_up: null,
      variants: null,
      ab_test: null,
      ab_phase: null,
      ab_wait_until: null,
      ab_winner: null,
      send_window: null,
      outcomes_counted_from: null,
      format,
      template_id: templateId,
      archive: 0,
      compiled_html: compiled,
      compiled_variants: null,
    } as CampaignRow;
    const message = await this.testSender.renderPreview(row, input.email, { event });
    const checks = await this.content.checks(accountId, [compiled ?? (html || null)], text, [subject]);
    const unknown = await unknownMergeFieldsOf(this.handle, accountId, checks.mergeFields, 'workflow');
    return { ...message, warnings: [...checks.warnings, ...unknown.map((name) => ({ code: 'UNKNOWN_MERGE_FIELD' as const, message: unknownMergeFieldWarning(name) }))] };
  }
}
