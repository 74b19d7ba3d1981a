/**
 * D22: warnings about a campaign's content before it is sent. Pure: given the HTML the sender
 * renders (compiled, its layout included) and whether the campaign has a text of its own, it says
 * what is likely to hurt delivery or reading. The HTML is read once, by a tokenizer (issue 28 C1),
 * and each check after it is linear; the checks run on the compile thread, within its time limit.
 */
import { QuoteType, Tokenizer } from 'htmlparser2';
import { replaceLiquid } from './liquid-shield.ts';

/** UNKNOWN_MERGE_FIELD (D26.7) needs the account's custom fields: the caller adds it (campaign-reports.service.ts). */
export const CONTENT_WARNING_CODES = ['NO_TEXT_PART', 'IMAGE_ONLY', 'MISSING_ALT', 'HTML_OVER_102KB', 'NO_UNSUBSCRIBE_LINK', 'BROKEN_LINK_SYNTAX', 'UNKNOWN_MERGE_FIELD'] as const;
export type ContentWarningCode = (typeof CONTENT_WARNING_CODES)[number];

export interface ContentWarning {
  code: ContentWarningCode;
  message: string;
}

export interface CheckedContent {
  /** the HTML as sent (compiled), or null for a text-only campaign */
  html: string | null;
  /** the campaign's own text part, if any */
  text: string | null;
}

/** Gmail clips a message whose HTML is over 102 KB (its "[Message clipped]" link hides the rest, the unsubscribe link often included). */
export const GMAIL_CLIP_BYTES = 102 * 1024;
/** Fewer words than this beside images: the message is mostly pictures, which spam filters distrust and blocked images blank out. */
export const IMAGE_ONLY_MAX_WORDS = 20;

// Linear: it can only start at a literal `{{`, and the whitespace run after one `{{` is scanned
// from that `{{` alone.
const UNSUBSCRIBE = /\{\{-?\s*unsubscribe_url\b/;
/** Elements whose text a reader never sees. */
const HIDDEN = new Set(['style', 'script', 'head']);
/** Longer hrefs are warned about and not inspected further (issue 28 C1: what a check reads is bounded). */
export const HREF_MAX_CHARS = 2048;

/** What one pass over the HTML found: its images, how many lack alt, the hrefs of its links, and its visible text. */
interface Scan {
  images: number;
  imagesWithoutAlt: number;
  hrefs: string[];
  visible: string;
}

/**
 * Issue 28 C1: the HTML read once, by htmlparser2's tokenizer (a state machine, linear in the
 * input whatever it holds: unclosed tags, unclosed quotes, deep nesting), instead of regexes with
 * `[^>]*` whose backtracking made a 250 KB draft take minutes. The tokenizer, not the parser: the
 * parser keeps an element stack it searches on every close tag, quadratic on deep nesting, and the
 * checks need no tree. Text of style, script and head elements and comments is not visible; an
 * element left unclosed at the end hides nothing (as the old patterns, which needed the close).
 */
function scan(html: string): Scan {
  const found: Scan = { images: 0, imagesWithoutAlt: 0, hrefs: [], visible: '' };
  const visible: string[] = [];
  /** text inside hidden elements, dropped when the last of them closes */
  let held: string[] = [];
  let hiddenDepth = 0;
  let tag = '';
  let attribute = '';
  let value = '';
  let hasAlt = false;
  let href: string | null = null;
  const text = (piece: string) => (hiddenDepth > 0 ? held : visible).push(piece);
  /** A start tag is complete (`<x ...>` or `<x .../>`; one never closed by `>` is no element): an img is counted, a link's href kept, a hidden element entered. */
  const opened = () => {
    if (tag === 'img') {
      found.images++;
      if (!hasAlt) found.imagesWithoutAlt++;
    } else if (tag === 'a' && href !== null) {
      found.hrefs.push(href);
    } else if (HIDDEN.has(tag)) {
      hiddenDepth++;
    }
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
        hasAlt = false;
        href = null;
        text(' ');
      },
      onattribname(start, end) {
        attribute = html.slice(start, end).toLowerCase();
        value = '';
      },
      onattribdata(start, end) {
        value += html.slice(start, end);
      },
      onattribend(quote) {
        if (attribute === 'alt' && quote !== QuoteType.NoValue) hasAlt = true;
        // The first href counts, as in a browser; `<a href>` has an empty one.
        if (attribute === 'href' && href === null) href = value;
      },
      onopentagend: opened,
      onselfclosingtag: opened,
      onclosetag(start, end) {
        text(' ');
        if (HIDDEN.has(html.slice(start, end).toLowerCase()) && hiddenDepth > 0 && --hiddenDepth === 0) held = [];
      },
      ontext(start, end) {
        text(html.slice(start, end));
      },
      oncomment() {
        text(' ');
      },
      oncdata() {},
      ondeclaration() {
        text(' ');
      },
      onprocessinginstruction() {
        text(' ');
      },
      onattribentity() {},
      ontextentity() {},
      onend() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  found.visible = visible.join('') + (hiddenDepth > 0 ? held.join('') : '');
  return found;
}

/** How many words a reader sees: Liquid tags (`{% if %}`) and non-breaking spaces are not words. */
function visibleWords(visible: string): number {
  const text = replaceLiquid(visible, () => ' ', true).replace(/&nbsp;|&#160;|&zwnj;|&#8204;/gi, ' ');
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

const short = (value: string) => (value.length > 80 ? `${value.slice(0, 77)}...` : value);

const count = (text: string, what: string) => {
  let n = 0;
  for (let at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length)) n++;
  return n;
};

/** Why a link's href is malformed, or null when it looks right. Liquid inside it is left to the render. Each test is linear in the href, which is capped (issue 28 C1). */
export function brokenHref(href: string): string | null {
  if (href.length > HREF_MAX_CHARS) return `it is ${href.length} characters long, more than the ${HREF_MAX_CHARS} these checks read; shorten it`;
  const trimmed = href.trim();
  if (trimmed === '') return 'it is empty';
  if (count(href, '{{') !== count(href, '}}') || count(href, '{%') !== count(href, '%}')) {
    return 'its Liquid braces are unbalanced';
  }
  const plain = replaceLiquid(trimmed, () => 'x');
  if (/^javascript:/i.test(plain.replace(/\s/g, ''))) return 'javascript: links do not work in mail and look like an attack to filters';
  if (/^https?\/\//i.test(plain) || /^https?:\/?(?!\/)/i.test(plain) || /^https?:\/\/\//i.test(plain)) return 'its scheme is malformed (it should start with http:// or https://)';
  if (/\s/.test(plain)) return 'it holds spaces';
  return null;
}

export function contentWarnings(content: CheckedContent): ContentWarning[] {
  const warnings: ContentWarning[] = [];
  const add = (code: ContentWarningCode, message: string) => warnings.push({ code, message });
  const html = content.html ?? '';
  if (!content.text?.trim() && html.trim()) {
    add('NO_TEXT_PART', 'the campaign has no text of its own: a text part is generated from its HTML; write one to control what plain-text readers see');
  }
  if (html.trim()) {
    const found = scan(html);
    if (found.images > 0 && visibleWords(found.visible) < IMAGE_ONLY_MAX_WORDS) {
      add('IMAGE_ONLY', `the message is mostly images (fewer than ${IMAGE_ONLY_MAX_WORDS} words of text): spam filters distrust it and, with images blocked, readers see nothing; add text`);
    }
    const noAlt = found.imagesWithoutAlt;
    if (noAlt > 0) add('MISSING_ALT', `${noAlt} image${noAlt === 1 ? ' has' : 's have'} no alt text, which readers see when images are blocked and screen readers read out; add alt="..." (alt="" for decoration)`);
    const bytes = Buffer.byteLength(html, 'utf8');
    if (bytes > GMAIL_CLIP_BYTES) add('HTML_OVER_102KB', `the HTML is ${Math.ceil(bytes / 1024)} KB compiled: Gmail clips messages over 102 KB, hiding the rest behind a link; make it shorter`);
    if (!UNSUBSCRIBE.test(html)) {
      add('NO_UNSUBSCRIBE_LINK', 'neither the content nor its layout has {{ unsubscribe_url }}: an unsubscribe link is added automatically in a footer at the end of the message (D16); place {{ unsubscribe_url }} where you want it instead');
    }
    for (const href of found.hrefs) {
      const why = brokenHref(href);
      if (why) add('BROKEN_LINK_SYNTAX', `the link "${short(href)}" looks broken: ${why}`);
    }
  }
  return warnings;
}

/**
 * D22: a campaign's warnings over its base HTML and each variant's (null where a variant has none
 * of its own), each warning once. A lone null HTML is a text-only campaign.
 */
export function campaignWarnings(htmls: readonly (string | null)[], text: string | null): ContentWarning[] {
  const seen = new Set<string>();
  const warnings: ContentWarning[] = [];
  for (const html of htmls) {
    if (html === null && htmls.length > 1) continue;
    for (const w of contentWarnings({ html, text })) {
      if (!seen.has(w.code + w.message)) warnings.push(w);
      seen.add(w.code + w.message);
    }
  }
  return warnings;
}
