import juice from 'juice';
import { Marked } from 'marked';
import mjml2html from 'mjml';
import { ValidationError } from '../shared/errors.ts';
import { CONTENT_SLOT, type ContentSource } from './content.ts';
import { LiquidShield } from './liquid-shield.ts';

const markdown = new Marked({ gfm: true, async: false });

/** Lines before the slot in the layout, and lines the content spans, to tell whose line an MJML error is on. */
interface Spliced {
  body: string;
  contentFirstLine: number;
  contentLines: number;
}

function splice(layout: string, content: string): Spliced {
  const index = layout.search(CONTENT_SLOT);
  const before = layout.slice(0, index);
  const slot = layout.slice(index).match(CONTENT_SLOT)![0];
  return {
    body: before + content + layout.slice(index + slot.length),
    contentFirstLine: before.split('\n').length,
    contentLines: content.split('\n').length,
  };
}

interface MjmlError {
  line?: number;
  message?: string;
}

/**
 * MJML to HTML, strictly validated: an unknown element or attribute is an error, 400 naming its
 * line, as a Liquid error is (D17.4). `where` says whose line it is, when a layout and content
 * were compiled together. The library's own message names a file path; only its line and message
 * are kept.
 */
async function compileMjml(body: string, where: (line: number) => string): Promise<string> {
  let result: { html: string; errors: MjmlError[] };
  try {
    // Issue 34: no web font unless the design declares one (mj-font). MJML otherwise links Google
    // Fonts for its default font (Ubuntu) and a few others by name: mail that calls Google unasked,
    // and a preview the dashboard's Content-Security-Policy refuses.
    result = await mjml2html(body, { validationLevel: 'strict', keepComments: false, minify: false, beautify: false, fonts: {} });
  } catch (err) {
    const errors = (err as { errors?: MjmlError[] }).errors;
    const first = errors?.[0];
    if (first?.message) throw new ValidationError(`${where(first.line ?? 1)} has an MJML error: ${first.message}`);
    throw new ValidationError(`${where(1)} is not MJML (it must be one <mjml> document): ${String((err as Error).message ?? err).split('\n')[0]}`);
  }
  return result.html;
}

/** Markdown and HTML as HTML; MJML compiled (a whole document). */
async function toHtml(source: ContentSource, field: string): Promise<string> {
  if (source.format === 'markdown') return markdown.parse(source.body) as string;
  if (source.format === 'mjml') return compileMjml(source.body, (line) => `${field} line ${line}`);
  return source.body;
}

/** Where `tag` (a global pattern) next matches in `html` from `from`; -1 when it does not. */
function indexOfTag(html: string, tag: RegExp, from: number): number {
  tag.lastIndex = from;
  return tag.exec(html)?.index ?? -1;
}

/**
 * A whole HTML document's body and its head's style blocks, to place inside another document.
 * Found with indexOf-like scans, each of which stops for good when what it looks for is missing
 * (issue 28 C1: `<body\b[^>]*>([\s\S]*)<\/body>` and `<style\b[^>]*>[\s\S]*?<\/style>` rescan
 * to the end from every unclosed `<body` or `<style` of MJML's output, which holds the tenant's).
 */
export function embeddable(html: string): string {
  const bodyAt = indexOfTag(html, /<body\b/gi, 0);
  const open = bodyAt < 0 ? -1 : html.indexOf('>', bodyAt);
  let close = -1;
  const closes = /<\/body>/gi;
  for (let at = indexOfTag(html, closes, open + 1); open >= 0 && at >= 0; at = indexOfTag(html, closes, at + 1)) close = at;
  if (close < 0) return html;
  let styles = '';
  for (let at = indexOfTag(html, /<style\b/gi, 0); at >= 0 && at < bodyAt; ) {
    const gt = html.indexOf('>', at);
    const end = gt < 0 ? -1 : indexOfTag(html, /<\/style>/gi, gt + 1);
    if (end < 0 || end + 8 > bodyAt) break;
    styles += html.slice(at, end + 8);
    at = indexOfTag(html, /<style\b/gi, end + 8);
  }
  return styles + html.slice(open + 1, close);
}

function inline(html: string, field: string): string {
  try {
    return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, applyWidthAttributes: true, applyHeightAttributes: true, removeStyleTags: true });
  } catch (err) {
    throw new ValidationError(`${field}: its CSS could not be inlined (${String((err as Error).message ?? err).split('\n')[0]}); check its style attributes and <style> blocks`);
  }
}

/**
 * Issue 34: MJML content for an MJML layout's slot, which takes sections. A whole <mjml> document
 * (every gallery starter is one) gives its body's sections and its head (its attributes and styles
 * join the layout's); anything else is taken as sections already. `lineOffset`: the lines of the
 * document before its sections, so an error names the content's own line.
 */
function sectionsOf(body: string): { sections: string; head: string; lineOffset: number } {
  if (!/^\s*<mjml[\s>]/i.test(body)) return { sections: body, head: '', lineOffset: 0 };
  const open = /<mj-body\b[^>]*>/i.exec(body);
  const close = body.search(/<\/mj-body\s*>/i);
  if (!open || close < open.index) return { sections: body, head: '', lineOffset: 0 };
  const start = open.index + open[0].length;
  const head = /<mj-head\b[^>]*>([\s\S]*?)<\/mj-head\s*>/i.exec(body)?.[1] ?? '';
  return { sections: body.slice(start, close), head, lineOffset: body.slice(0, start).split('\n').length - 1 };
}

/** The layout with `head` (a content document's mj-head) at the end of its own mj-head, or in one of its own. */
function withHead(layout: string, head: string): string {
  if (!head.trim()) return layout;
  const close = layout.search(/<\/mj-head\s*>/i);
  if (close >= 0) return layout.slice(0, close) + head + layout.slice(close);
  return layout.replace(/<mjml\b[^>]*>/i, (tag) => `${tag}<mj-head>${head}</mj-head>`);
}

/**
 * D22: content compiled to the HTML the sender renders: its format compiled, wrapped in `layout`
 * at `{{ content }}` when given, and CSS inlined. Liquid in either stays as written, for the
 * render. MJML content in an MJML layout is compiled as one document (the content then holds
 * sections); other content is compiled to HTML first and placed in the layout's slot (in an MJML
 * layout the slot belongs inside `mj-text` or `mj-raw`). Throws ValidationError (400) naming the
 * field and line of an MJML error, or CSS that cannot be inlined.
 */
export async function compileContent(content: ContentSource, layout: ContentSource | null = null, field = 'html'): Promise<string> {
  const shield = new LiquidShield();
  const own: ContentSource = { format: content.format, body: shield.hide(content.body) };
  let html: string;
  if (!layout) {
    html = await toHtml(own, field);
  } else {
    // The slot is found before the layout's Liquid is hidden: it is itself a Liquid output.
    const layoutBody = layout.body.replace(CONTENT_SLOT, 'swslotcontentx');
    const shieldedLayout = shield.hide(layoutBody).replace('swslotcontentx', '{{ content }}');
    if (layout.format === 'mjml' && own.format === 'mjml') {
      const part = sectionsOf(own.body);
      const spliced = splice(withHead(shieldedLayout, part.head), part.sections);
      html = await compileMjml(spliced.body, (line) =>
        line >= spliced.contentFirstLine && line < spliced.contentFirstLine + spliced.contentLines
          ? `${field} line ${line - spliced.contentFirstLine + 1 + part.lineOffset}`
          : `the layout's line ${line > spliced.contentFirstLine ? line - spliced.contentLines + 1 : line}`,
      );
    } else if (layout.format === 'mjml') {
      html = await compileMjml(splice(shieldedLayout, await toHtml(own, field)).body, (line) => `the layout (with the content in its slot) line ${line}`);
    } else {
      const layoutHtml = await toHtml({ format: layout.format, body: shieldedLayout }, 'the layout');
      const inner = own.format === 'mjml' ? embeddable(await toHtml(own, field)) : await toHtml(own, field);
      html = splice(layoutHtml, inner).body;
    }
  }
  // Without a <style> block juice has nothing to inline, and would only parse and re-serialize the
  // whole document (seconds for one of 20,000 tags): such HTML is kept exactly as written.
  return shield.restore(/<style\b/i.test(html) ? inline(html, field) : html);
}
