import type { Db } from '../../db/connect.ts';
import type { CampaignRow } from '../../db/schema.ts';
import { setsField, variantsOf, type Variant } from './ab-test.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { findTemplate } from '../templates/templates.repo.ts';
import { CONTENT_FORMATS, type ContentFormat, type ContentSource } from '../content/content.ts';
import type { ContentChecks } from '../content/compile-worker.ts';
import type { ContentCompiler } from '../content/content-compiler.ts';

export const templateNotFound = () => new NotFoundError('TEMPLATE_NOT_FOUND', 'template not found');

/** What a campaign's compiled content is made from (D22). */
export type CampaignContentSource = Pick<CampaignRow, 'format' | 'html' | 'template_id' | 'variants'>;

export interface CompiledContent {
  compiled_html: string | null;
  compiled_variants: string | null;
}

export function contentFormat(value: string): ContentFormat {
  if (!(CONTENT_FORMATS as readonly string[]).includes(value)) throw new ValidationError(`format must be one of ${CONTENT_FORMATS.join(', ')}`);
  return value as ContentFormat;
}

/**
 * D22: the layout a campaign may name: the account's own or a built-in one (404 TEMPLATE_NOT_FOUND
 * otherwise, another account's included), and a layout, not a starter (400).
 */
export async function requireLayout(db: Db, accountId: number, templateId: number): Promise<ContentSource> {
  const template = await findTemplate(db, accountId, templateId);
  if (!template) throw templateNotFound();
  if (template.kind !== 'layout') throw new ValidationError(`template_id must name a layout; template ${templateId} is a ${template.kind}, whose body is copied into a campaign rather than wrapped around it`);
  return { format: contentFormat(template.format), body: template.body };
}

/**
 * D22: a campaign's html and each variant's own html, compiled in its format and wrapped in its
 * layout (read now), off the HTTP thread. The result is refused (400 naming the field) when it is
 * larger than a message part may be, or when its Liquid (the layout's included) does not parse,
 * so what saves is what sends.
 */
export class CampaignContentCompiler {
  constructor(
    private readonly compiler: ContentCompiler,
    private readonly maxPartBytes: number,
  ) {}

  /** `htmlField`: what errors about the html call it (a workflow step's is `steps[2].html`). */
  async compile(db: Db, accountId: number, source: CampaignContentSource, htmlField = 'html'): Promise<CompiledContent> {
    const format = contentFormat(source.format);
    const layout = source.template_id === null ? null : await requireLayout(db, accountId, source.template_id);
    // Plain HTML without a layout compiles to itself but for inlined CSS; it is compiled all the same, so every format sends alike.
    const one = async (body: string | null, field: string) =>
      body === null || body === '' ? null : this.checkedSize(await this.compiler.compile(accountId, { format, body }, layout, field, { resultUpToBytes: this.maxPartBytes }), field);
    const compiled_html = await one(source.html, htmlField);
    const variants: Variant[] | null = variantsOf(source);
    let compiled_variants: string | null = null;
    if (variants) {
      const each: (string | null)[] = [];
      for (const [i, v] of variants.entries()) each.push(setsField(v.html) ? await one(v.html, `variants[${i}].html`) : null);
      compiled_variants = writeJson(each);
    }
    return { compiled_html, compiled_variants };
  }

  /**
   * D22: the warnings of a campaign's compiled HTMLs, and D26.7's merge fields they, the text and
   * `mergeSources` use, worked out on the compile thread in the account's turn (issue 28 C1).
   */
  checks(accountId: number, htmls: (string | null)[], text: string | null, mergeSources: (string | null)[]): Promise<ContentChecks> {
    return this.compiler.checks(accountId, htmls, text, mergeSources);
  }

  /** The compile thread parsed the Liquid of a result within the size (issue 28); a larger one is refused here. */
  private checkedSize(html: string, field: string): string {
    const bytes = Buffer.byteLength(html, 'utf8');
    if (bytes > this.maxPartBytes) {
      throw new ValidationError(`${field}: compiled with its layout and CSS inlined it is ${bytes} bytes, more than a message part may hold (${this.maxPartBytes}); make it smaller`);
    }
    return html;
  }
}

/** A variant's compiled html (D22), or null where it has none of its own. */
export function compiledVariantsOf(c: Pick<CampaignRow, 'compiled_variants'>): (string | null)[] | null {
  return readJson<(string | null)[] | null>(c.compiled_variants, null);
}
