/**
 * Liquid kept out of a converter's way (D22): compiling content (mjml, marked, juice) and making
 * the text part from HTML (render.ts). Its own module, free of those libraries, so the render
 * thread loads none of them.
 */

// Liquid tags and outputs are swapped for inert words while content is compiled or converted,
// and put back after: marked would URL-encode `{{ unsubscribe_url }}` in a link, mjml and juice
// would read `{{`/`{%` in attributes and styles as text to rewrite. The word holds only letters
// and digits, so no compiler escapes or splits it.

/**
 * `text` with each Liquid tag (`{% ... %}`) and, unless `tagsOnly`, each output (`{{ ... }}`)
 * replaced by `replace(it)`, as `/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g` would, in one pass (issue 28
 * C1): indexOf finds each opener and its closer, and a kind whose closer is missing is not looked
 * for again, where that pattern rescans to the end from every unclosed opener (minutes for a
 * 250 KB run of `{{`).
 */
export function replaceLiquid(text: string, replace: (tag: string) => string, tagsOnly = false): string {
  let out = '';
  let at = 0;
  let tags = true;
  let outputs = !tagsOnly;
  while (tags || outputs) {
    const tag = tags ? text.indexOf('{%', at) : -1;
    const output = outputs ? text.indexOf('{{', at) : -1;
    if (tag < 0) tags = false;
    if (output < 0) outputs = false;
    if (tag < 0 && output < 0) break;
    const isOutput = output >= 0 && (tag < 0 || output < tag);
    const start = isOutput ? output : tag;
    const end = text.indexOf(isOutput ? '}}' : '%}', start + 2);
    if (end < 0) {
      if (isOutput) outputs = false;
      else tags = false;
      continue;
    }
    out += text.slice(at, start) + replace(text.slice(start, end + 2));
    at = end + 2;
  }
  return out + text.slice(at);
}

/** An output `{{ x -}}` as `{{ x | upcase }}` (its closing whitespace and dash dropped, as `/\s*-?\}\}$/` would, without rescanning a run of spaces from each of them). */
function upcased(output: string): string {
  const inner = output.slice(0, -2);
  return `${(inner.endsWith('-') ? inner.slice(0, -1) : inner).trimEnd()} | upcase }}`;
}

export class LiquidShield {
  private readonly held: string[] = [];
  private readonly key = `swlq${Math.random().toString(36).slice(2, 8).replace(/[0-9]/g, 'q')}`;

  hide(source: string): string {
    return replaceLiquid(source, (tag) => `${this.key}x${this.held.push(tag) - 1}x`);
  }

  restore(html: string): string {
    return html.replace(new RegExp(`${this.key}x(\\d+)x`, 'g'), (word, index: string) => this.held[Number(index)] ?? word);
  }

  /**
   * Like restore, for text a converter made from the hidden source (the text part, render.ts):
   * null unless every tag came through exactly once and in order, since a converter that dropped
   * one (a tag inside a skipped element or an attribute it ignores) could leave an `{% if %}`
   * without its `{% endif %}`. A word the converter upper-cased (html-to-text's headings) gets its
   * output upper-cased too, as converting the rendered HTML would have.
   */
  restoreInOrder(text: string): string | null {
    let next = 0;
    let intact = true;
    const restored = text.replace(new RegExp(`${this.key}x(\\d+)x`, 'gi'), (word: string, index: string) => {
      if (Number(index) !== next++) intact = false;
      const tag = this.held[Number(index)] ?? '';
      return word.startsWith(this.key) || !tag.startsWith('{{') ? tag : upcased(tag);
    });
    return intact && next === this.held.length ? restored : null;
  }
}

