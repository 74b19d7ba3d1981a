/**
 * Liquid kept out of a converter's way (D22): compiling content (mjml, marked, juice) and making
 * the text part from HTML (render.ts). Its own module, free of those libraries, so the render
 * thread loads none of them.
 */

// Liquid tags and outputs are swapped for inert words while content is compiled or converted,
// and put back after: marked would URL-encode `{{ unsubscribe_url }}` in a link, mjml and juice
// would read `{{`/`{%` in attributes and styles as text to rewrite. The word holds only letters
// and digits, so no compiler escapes or splits it.
const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

export class LiquidShield {
  private readonly held: string[] = [];
  private readonly key = `swlq${Math.random().toString(36).slice(2, 8).replace(/[0-9]/g, 'q')}`;

  hide(source: string): string {
    return source.replace(LIQUID, (tag) => `${this.key}x${this.held.push(tag) - 1}x`);
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
      return word.startsWith(this.key) || !tag.startsWith('{{') ? tag : tag.replace(/\s*-?\}\}$/, ' | upcase }}');
    });
    return intact && next === this.held.length ? restored : null;
  }
}

