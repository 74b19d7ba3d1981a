/**
 * Issue 33: what the visual MJML editor is given and what it gives back, apart from the editor.
 *
 * The stored source stays MJML and the server stays its only compiler (D22). The block editor
 * (GrapesJS with grapesjs-mjml) only understands a whole `<mjml>` document, so two shapes of
 * source are adapted on the way in and restored on the way out:
 * - a fragment (sections only, for a layout whose slot sits between sections) is wrapped in a
 *   document and unwrapped again;
 * - a layout's `{{ content }}` slot between sections (not valid MJML on its own) travels as an
 *   `<mj-raw>` holding the slot, so the editor shows it as a block, and is bare again on export.
 * The editor writes its MJML on one line; `formatMjml` indents it so source mode stays readable
 * and MJML errors keep meaningful line numbers.
 */
import { decodeHTML } from 'entities';
import { Parser } from 'htmlparser2';

/** How a source differs from a plain document, so the editor's export can be turned back into it. */
export interface SourceShape {
  fragment: boolean;
  slot: boolean;
}

const SLOT = /\{\{-?\s*content\s*-?\}\}/;
const SLOT_BLOCK = '<mj-raw>{{ content }}</mj-raw>';
const SLOT_BLOCK_PATTERN = /<mj-raw>\s*\{\{ content \}\}\s*<\/mj-raw>/g;
/** Elements whose children may be sections, where a layout's slot can stand on its own. */
const SECTION_PARENTS = new Set(['mj-body', 'mj-wrapper']);

/** The places where `{{ content }}` stands between sections, as [start, end) offsets in the source. */
function slotsBetweenSections(source: string): Array<[number, number]> {
  const open: string[] = [];
  const found: Array<[number, number]> = [];
  const parser = new Parser(
    {
      onopentagname: (name) => open.push(name),
      onclosetag: () => void open.pop(),
      ontext: (text) => {
        const match = SLOT.exec(text);
        if (match && SECTION_PARENTS.has(open[open.length - 1] ?? '')) {
          const start = parser.startIndex + match.index;
          found.push([start, start + match[0].length]);
        }
      },
    },
    { xmlMode: false, recognizeSelfClosing: true, lowerCaseTags: true },
  );
  parser.end(source);
  return found;
}

/**
 * The document the editor opens, and the shape to restore. `null` when the source cannot be
 * carried there and back faithfully: it already holds the slot block the editor would add.
 */
export function toEditorDocument(source: string): { document: string; shape: SourceShape } | null {
  if (/<mj-raw>\s*\{\{-?\s*content\s*-?\}\}\s*<\/mj-raw>/i.test(source)) return null;
  const fragment = !/^\s*(<!--[\s\S]*?-->\s*)*<mjml[\s>]/i.test(source);
  let document = fragment ? `<mjml><mj-body>${source}</mj-body></mjml>` : source;
  const slots = slotsBetweenSections(document);
  for (const [start, end] of slots.reverse()) document = document.slice(0, start) + SLOT_BLOCK + document.slice(end);
  return { document, shape: { fragment, slot: slots.length > 0 } };
}

const XML_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);
const VOID_HTML = /<(br|hr|img|input|meta|link|col|area|wbr|source)\b((?:[^>"']|"[^"]*"|'[^']*')*?)\s*\/?>/gi;

/** MJML elements whose content is HTML, which the editor parses into its own text and inline blocks. */
const HTML_CONTENT = /<(mj-text|mj-button|mj-raw|mj-table|mj-navbar-link|mj-social-element|mj-accordion-title|mj-accordion-text)\b((?:[^>"']|"[^"]*"|'[^']*')*?)(?<!\/)>([\s\S]*?)<\/\1>/gi;
/** Whitespace alone between two tags, a line break among it (no-break spaces count as whitespace here). */
const SPACE_BETWEEN_TAGS = />((?:[ \t\r\n]|&#160;|\u00a0)*[\r\n](?:[ \t\r\n]|&#160;|\u00a0)*)</g;

/**
 * The editor reads MJML as XML (grapesjs-mjml's XML parser: the HTML one lets `<mj-image />`
 * swallow its siblings). What HTML allows and XML does not is spelled the XML way, with the same
 * meaning: named entities as numbers (`&nbsp;` is `&#160;`), a bare `&` as `&amp;`, and void
 * elements (`<br>`) closed.
 *
 * GrapesJS also drops a text of whitespace alone that holds a line break, taking no-break spaces
 * for whitespace (`String.prototype.trim`): between two links (`Shop</a> &nbsp;⏎<a>New`) the
 * words would run together. Inside HTML content such a run keeps its meaning spelled on one
 * line, each run of ordinary whitespace as one space, which GrapesJS keeps.
 */
export function forXmlParser(document: string): string {
  return document
    .replace(/&(?!#\d+;|#x[0-9a-f]+;)([a-z][a-z0-9]*;)?/gi, (whole, name?: string) => {
      if (!name) return '&amp;';
      if (XML_ENTITIES.has(name.slice(0, -1))) return whole;
      const decoded = decodeHTML(whole);
      return decoded === whole ? `&amp;${name}` : [...decoded].map((ch) => `&#${ch.codePointAt(0)};`).join('');
    })
    .replace(VOID_HTML, '<$1$2/>')
    .replace(HTML_CONTENT, (_whole, name: string, attributes: string, inside: string) => {
      const kept = inside.replace(SPACE_BETWEEN_TAGS, (_run, space: string) => `>${space.replace(/[ \t\r\n]+/g, ' ')}<`);
      return `<${name}${attributes}>${kept}</${name}>`;
    });
}

/** The editor's export turned back into the shape its source had, indented. */
export function fromEditorDocument(exported: string, shape: SourceShape): string {
  let source = formatMjml(exported.trim());
  if (shape.slot) source = source.replace(SLOT_BLOCK_PATTERN, '{{ content }}');
  if (shape.fragment) {
    const body = /<mj-body[^>]*>([\s\S]*)<\/mj-body>/.exec(source);
    source = body ? dedent(body[1]!) : source;
  }
  return source;
}

/**
 * Elements whose content is HTML or CSS that MJML keeps as written: their inside is copied
 * verbatim, never re-indented, since whitespace there can matter (a `<pre>`, inline text).
 */
const VERBATIM = new Set(['mj-text', 'mj-button', 'mj-raw', 'mj-table', 'mj-style', 'mj-title', 'mj-preview', 'mj-navbar-link', 'mj-social-element', 'mj-accordion-title', 'mj-accordion-text']);

/**
 * MJML indented one element per line, two spaces a level. Only whitespace between MJML
 * elements changes, which MJML ignores; the inside of VERBATIM elements is untouched.
 */
export function formatMjml(source: string): string {
  const lines: string[] = [];
  let depth = 0;
  let at = 0;
  const tag = /<!--[\s\S]*?-->|<(\/?)(mj[a-z-]*)\b((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/gi;
  while (at < source.length) {
    tag.lastIndex = at;
    const m = tag.exec(source);
    if (!m) {
      pushText(lines, source.slice(at), depth);
      break;
    }
    pushText(lines, source.slice(at, m.index), depth);
    at = m.index + m[0].length;
    if (m[0].startsWith('<!--')) {
      lines.push('  '.repeat(depth) + m[0]);
      continue;
    }
    const [, closing, name, , selfClosing] = m;
    const lower = name!.toLowerCase();
    if (closing) {
      depth = Math.max(0, depth - 1);
      lines.push('  '.repeat(depth) + m[0]);
    } else if (selfClosing) {
      lines.push('  '.repeat(depth) + m[0]);
    } else if (VERBATIM.has(lower)) {
      const end = source.toLowerCase().indexOf(`</${lower}>`, at);
      const stop = end < 0 ? source.length : end + lower.length + 3;
      lines.push('  '.repeat(depth) + m[0] + source.slice(at, stop));
      at = stop;
    } else {
      lines.push('  '.repeat(depth) + m[0]);
      depth += 1;
    }
  }
  return lines.join('\n') + '\n';
}

function pushText(lines: string[], text: string, depth: number): void {
  const trimmed = text.trim();
  if (trimmed) lines.push('  '.repeat(depth) + trimmed);
}

/** Lines shifted left by their common indentation (a fragment taken out of its body). */
function dedent(text: string): string {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n') + '\n';
}
