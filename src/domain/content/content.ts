import { ValidationError } from '../shared/errors.ts';

/**
 * The content area's pure module: what a body is written in, and the layout slot's rule. Schemas,
 * services and the dashboard import it; only the compile thread imports compile-content.ts, which
 * loads the compilers (mjml, marked, juice), so the HTTP thread never loads them.
 */

/**
 * D22: the formats a campaign's or a template's body is written in. Each is compiled to HTML by
 * a well-kept library (mjml, marked), laid out, and has its CSS inlined by juice, once when it is
 * saved: the sender renders the result (compiled_html) and never compiles per recipient.
 */
export const CONTENT_FORMATS = ['html', 'mjml', 'markdown'] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/**
 * Issue 15, issue 34: the person a preview shows when it has no contact of the account to show
 * (the campaign preview's sample data, the gallery's thumbnails).
 */
export const SAMPLE_PERSON = { email: 'ann@example.com', first_name: 'Ann', last_name: 'Example', phone: '+1 555 0100' } as const;

export interface ContentSource {
  format: ContentFormat;
  body: string;
}

/** A layout's one slot, `{{ content }}` (with or without Liquid's whitespace dashes). */
export const CONTENT_SLOT = /\{\{-?\s*content\s*-?\}\}/g;

export function contentSlotCount(body: string): number {
  return body.match(CONTENT_SLOT)?.length ?? 0;
}

/** 400 unless a layout's body holds `{{ content }}` exactly once (D22). */
export function checkLayoutSlot(body: string, field = 'body'): void {
  const slots = contentSlotCount(body);
  if (slots === 0) throw new ValidationError(`${field}: a layout must hold {{ content }} once, where the campaign's content goes; it has none`);
  if (slots > 1) throw new ValidationError(`${field}: a layout must hold {{ content }} exactly once; it has ${slots}`);
}
