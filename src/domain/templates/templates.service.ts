import type { ActingContext } from '../shared/actor.ts';
import type { Selectable } from 'kysely';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { TemplatesTable } from '../../db/schema.ts';
import type { ContentFormat } from '../content/content.ts';
import type { ContentCompiler } from '../content/content-compiler.ts';
import { mergeFieldWarnings } from '../content/merge-field-warnings.service.ts';
import { InvalidStateError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import type { TemplateKind } from './builtin-templates.ts';
import { compileTemplate, mergeFieldPlaceOf, templateName, templateNotFound, toTemplate, type Template } from './template.ts';
import * as repo from './templates.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface TemplateInput {
  name?: string;
  kind?: TemplateKind;
  format?: ContentFormat;
  body?: string;
}

/** How many of the campaigns still using a layout a refused delete names. */
const CAMPAIGNS_NAMED = 5;

/**
 * D22: the account's own layouts and starters, beside the built-in gallery every account sees
 * and none may change (409 INVALID_STATE). Another account's template is 404, as a missing one.
 */
export class TemplateService {
  constructor(
    private readonly handle: DbHandle,
    private readonly compiler: ContentCompiler,
  ) {}

  /**
   * Issue 34: content compiled to HTML as a starter's body is, and nothing stored: the campaign
   * editor converts MJML to the HTML it compiles to (Liquid left as written) when the format changes.
   */
  async compile(accountId: number, format: Template['format'], body: string): Promise<{ html: string }> {
    return { html: (await compileTemplate(this.compiler, accountId, 'starter', format, body)).html };
  }

  /** The template, and D26.7's warnings of merge fields nothing fills. */
  async create(acting: ActingContext, accountId: number, input: Required<TemplateInput>): Promise<{ template: Template; warnings: string[] }> {
    const name = templateName(input.name);
    const compiled = await compileTemplate(this.compiler, accountId, input.kind, input.format, input.body);
    const now = nowIso();
    // D24.8: the entry commits with the template.
    const row = await this.handle.db.transaction().execute(async (trx) => {
      const inserted = await repo.insertTemplate(trx, { account_id: accountId, builtin_key: null, name, kind: input.kind, format: input.format, body: input.body, compiled_html: compiled.html, created_at: now, updated_at: now });
      await recordAudit(trx, acting, accountId, 'template.created', { type: 'template', id: inserted.id });
      return inserted;
    });
    return { template: toTemplate(row), warnings: await mergeFieldWarnings(this.handle, accountId, compiled.mergeFields, mergeFieldPlaceOf(input.kind)) };
  }

  async page(accountId: number, page: PageRequest, kind?: TemplateKind) {
    const { rows, total } = await repo.pageTemplates(this.handle.db, accountId, page, kind);
    return toPage('templates', rows.map(toTemplate), total, page);
  }

  async get(accountId: number, id: number): Promise<Template> {
    return toTemplate(await this.require(this.handle.db, accountId, id));
  }

  /**
   * Omitted fields keep their value; the result is checked and compiled whole, as a new one is. A
   * layout that unsent campaigns use cannot become a starter (they would lose their layout).
   * Campaigns using a changed layout compile it again when they are saved or start sending. D26.7's
   * warnings come with it when its body, kind or format changed.
   */
  async update(acting: ActingContext, accountId: number, id: number, input: TemplateInput): Promise<{ template: Template; warnings: string[] }> {
    const current = await this.requireOwn(this.handle.db, accountId, id);
    const kind = input.kind ?? (current.kind as TemplateKind);
    const format = input.format ?? (current.format as ContentFormat);
    const body = input.body ?? current.body;
    const changes: Parameters<typeof repo.updateTemplate>[3] = { updated_at: nowIso() };
    let mergeFields: string[] = [];
    if (input.name !== undefined) changes.name = templateName(input.name);
    if (input.kind !== undefined || input.format !== undefined || input.body !== undefined) {
      const compiled = await compileTemplate(this.compiler, accountId, kind, format, body);
      changes.compiled_html = compiled.html;
      mergeFields = compiled.mergeFields;
      Object.assign(changes, { kind, format, body });
      if (current.kind === 'layout' && kind !== 'layout') await this.refuseWhileUsed(accountId, id, 'made a starter');
    }
    const row = await this.handle.db.transaction().execute(async (trx) => {
      const updated = await repo.updateTemplate(trx, accountId, id, changes);
      if (!updated) throw templateNotFound();
      await recordAudit(trx, acting, accountId, 'template.updated', { type: 'template', id });
      return updated;
    });
    return { template: toTemplate(row), warnings: await mergeFieldWarnings(this.handle, accountId, mergeFields, mergeFieldPlaceOf(kind)) };
  }

  /** 409 while unsent campaigns lay their content out in it (naming them); SENT ones keep their compiled HTML. */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.requireOwn(this.handle.db, accountId, id);
    await this.refuseWhileUsed(accountId, id, 'deleted');
    await this.handle.db.transaction().execute(async (trx) => {
      await repo.deleteTemplate(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'template.deleted', { type: 'template', id });
    });
  }

  private async refuseWhileUsed(accountId: number, id: number, what: string): Promise<void> {
    const using = await repo.findCampaignsUsingTemplate(this.handle.db, accountId, id, CAMPAIGNS_NAMED + 1);
    if (using.length === 0) return;
    const named = using.slice(0, CAMPAIGNS_NAMED).map((c) => `${c.id} "${c.name}" (${c.status})`).join(', ');
    const more = using.length > CAMPAIGNS_NAMED ? ' and more' : '';
    throw new InvalidStateError(`the layout cannot be ${what} while unsent campaigns use it: ${named}${more}; give them another layout (template_id) first`);
  }

  private async require(db: Db, accountId: number, id: number): Promise<Selectable<TemplatesTable>> {
    const row = await repo.findTemplate(db, accountId, id);
    if (!row) throw templateNotFound();
    return row;
  }

  /** The account's own template: a built-in one is 409 INVALID_STATE (D22), a missing or foreign one 404. */
  private async requireOwn(db: Db, accountId: number, id: number): Promise<Selectable<TemplatesTable>> {
    const row = await this.require(db, accountId, id);
    if (row.account_id === null) throw new InvalidStateError('a built-in template cannot be changed or deleted; duplicate it (POST /api/v1/templates with its body) to make your own');
    return row;
  }
}
