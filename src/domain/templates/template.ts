import type { Selectable } from 'kysely';
import type { TemplatesTable } from '../../db/schema.ts';
import { checkTemplateLimits } from '../content/template-limits.ts';
import { checkTemplateSyntax } from '../content/template-syntax.ts';
import { checkLayoutSlot, type ContentFormat } from '../content/content.ts';
import type { ContentCompiler } from '../content/content-compiler.ts';
import type { MergeFieldPlace } from '../content/merge-fields.ts';
import { NotFoundError } from '../shared/errors.ts';
import { nameWithKey } from '../shared/names.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { TemplateKind } from './builtin-templates.ts';

/** D22: a template as the API shows it; `html` is its body compiled alone (for thumbnails). */
export interface Template {
  id: number;
  name: string;
  kind: TemplateKind;
  format: ContentFormat;
  body: string;
  builtin: boolean;
  html: string;
  created_at: string;
  updated_at: string;
}

export const TEMPLATE_KINDS = ['layout', 'starter'] as const satisfies readonly TemplateKind[];
export const TEMPLATE_NAME_MAX = 255;

export const templateNotFound = () => new NotFoundError('TEMPLATE_NOT_FOUND', 'template not found');

export function toTemplate(row: Selectable<TemplatesTable>): Template {
  return {
    id: Number(row.id),
    name: row.name,
    kind: row.kind as TemplateKind,
    format: row.format as ContentFormat,
    body: row.body,
    builtin: row.account_id === null,
    html: row.compiled_html ?? '',
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export const templateName = (raw: string) => nameWithKey(raw, TEMPLATE_NAME_MAX).name;

/**
 * D22: a template's body checked and compiled, cheapest check first: its size and Liquid tag
 * count (which bound what the rest costs, issue 14 H2), its Liquid syntax (D17.4), a layout's
 * one `{{ content }}`, then the format compiled on the compile thread, within its time limit, as
 * campaigns' content is (an MJML error names its line). Returns the compiled HTML, stored as
 * compiled_html, and the merge fields the body uses (D26.7, from the syntax check's parse). Each
 * refusal is a 400 naming `body`.
 */
export async function compileTemplate(compiler: ContentCompiler, accountId: number, kind: TemplateKind, format: ContentFormat, body: string): Promise<{ html: string; mergeFields: string[] }> {
  checkTemplateLimits({ body });
  const mergeFields = checkTemplateSyntax({ body });
  if (kind === 'layout') checkLayoutSlot(body);
  return { html: await compiler.compile(accountId, { format, body }, null, 'body'), mergeFields };
}

/** D26.7: where a template's merge fields are looked up: a layout has its `{{ content }}` slot. */
export const mergeFieldPlaceOf = (kind: TemplateKind): MergeFieldPlace => (kind === 'layout' ? 'layout' : 'template');
