import { ValidationError } from '../shared/errors.ts';

/**
 * Issue 14 H2: a template's size and its number of Liquid tags bound what compiling it costs
 * (parsing is about 20 ms per 1,000 tags, and grows faster than the size past that: a 950 KB
 * draft took 14 s). Checked when a campaign is saved, and again when a draft saved before these
 * limits is test-sent.
 */
export const TEMPLATE_LIMITS = { bytesMax: 256 * 1024, tagsMax: 10_000 } as const;

const LIQUID_BLOCK = /\{%-?\s*liquid\s/y;

/**
 * Liquid tags and outputs in a template: each `{{` and `{%`, and each line inside a
 * `{% liquid %}` tag (one tag per line there). One pass, whatever the input: it counts rather
 * than parses, so it may count an opening inside `{% raw %}` too, never fewer than there are.
 */
export function liquidTagCount(source: string): number {
  let count = 0;
  let i = source.indexOf('{');
  while (i !== -1 && i < source.length - 1) {
    const next = source[i + 1];
    if (next === '{') count++;
    else if (next === '%') {
      count++;
      LIQUID_BLOCK.lastIndex = i;
      if (LIQUID_BLOCK.test(source)) {
        const end = source.indexOf('%}', i + 2);
        const stop = end === -1 ? source.length : end;
        for (let j = source.indexOf('\n', i); j !== -1 && j < stop; j = source.indexOf('\n', j + 1)) count++;
        i = stop;
      }
    }
    i = source.indexOf('{', i + 1);
  }
  return count;
}

/** 400 INVALID_REQUEST naming the first field of `fields` over a limit. */
export function checkTemplateLimits(fields: Record<string, string | null | undefined>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > TEMPLATE_LIMITS.bytesMax) {
      throw new ValidationError(`${field} must be at most ${TEMPLATE_LIMITS.bytesMax} bytes (256 KB) of UTF-8; it has ${bytes}`);
    }
    const tags = liquidTagCount(value);
    if (tags > TEMPLATE_LIMITS.tagsMax) {
      throw new ValidationError(`${field} must hold at most ${TEMPLATE_LIMITS.tagsMax} Liquid tags and outputs ({{ }}, {% %}); it has ${tags}`);
    }
  }
}
