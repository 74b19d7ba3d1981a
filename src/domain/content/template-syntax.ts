import { Liquid } from 'liquidjs';
import { ValidationError } from '../shared/errors.ts';
import { mergeFieldsUsed } from './merge-fields.ts';

/**
 * How every template is read: sandboxed (an empty template map, so include/render/layout find
 * nothing; own properties only), unknown filters refused, and a bound on what one parse reads.
 * The sender's engines (sending/liquid-sandbox.ts) use these options; this parser, which only parses,
 * uses them too, so a template that saves is a template that compiles.
 */
export const LIQUID_OPTIONS = { templates: {}, ownPropertyOnly: true, strictFilters: true, parseLimit: 2_000_000 } as const;

const parser = new Liquid(LIQUID_OPTIONS);

/**
 * D17.4: a Liquid syntax error is refused when the template is saved, 400 naming the field, instead
 * of saving fine and turning the campaign FAILED on send. Checked after the template limits, which
 * bound what parsing costs. Returns the merge fields the templates use (mergeFieldsUsed, each once),
 * read from the same parse: D26.7 warns of the unknown ones at no second parse.
 */
export function checkTemplateSyntax(fields: Record<string, string | null | undefined>): string[] {
  const used = new Set<string>();
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || value.length === 0) continue;
    let templates;
    try {
      templates = parser.parse(value);
    } catch (err) {
      const reason = String((err as Error).message ?? err).split('\n')[0];
      throw new ValidationError(`${field} has a Liquid syntax error: ${reason}`);
    }
    for (const name of mergeFieldsUsed(templates)) used.add(name);
  }
  return [...used];
}

/**
 * The merge fields `sources` use (mergeFieldsUsed), each once, for D26.7's content check. A source
 * that does not parse is passed over: the syntax check refuses it when it is saved, and a draft
 * saved before D17.4 is refused before it sends (requireContent).
 */
export function mergeFieldsIn(sources: readonly (string | null)[]): string[] {
  const used = new Set<string>();
  for (const source of sources) {
    if (!source) continue;
    let templates;
    try {
      templates = parser.parse(source);
    } catch {
      continue;
    }
    for (const name of mergeFieldsUsed(templates)) used.add(name);
  }
  return [...used];
}
