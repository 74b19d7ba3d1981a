/**
 * D22: warnings about a campaign's content before it is sent. Pure: given the HTML the sender
 * renders (compiled, its layout included) and whether the campaign has a text of its own, it says
 * what is likely to hurt delivery or reading. Each check is one linear pass (bounded input: the
 * compiled HTML is at most a message part's size).
 */
export const CONTENT_WARNING_CODES = ['NO_TEXT_PART', 'IMAGE_ONLY', 'MISSING_ALT', 'HTML_OVER_102KB', 'NO_UNSUBSCRIBE_LINK', 'BROKEN_LINK_SYNTAX'] as const;
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

const UNSUBSCRIBE = /\{\{-?\s*unsubscribe_url\b/;
const IMG = /<img\b[^>]*>/gi;
// An empty href may have no value at all once compiled (`<a href>`): the value is optional.
const HREF = /<a\b[^>]*?\shref(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?(?=[\s>/=]|$)/gi;
const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/** What a reader sees of the HTML: tags, styles, scripts, comments and Liquid tags taken out. */
function visibleWords(html: string): number {
  const text = html
    .replace(/<(style|script|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\{%[\s\S]*?%\}/g, ' ')
    .replace(/&nbsp;|&#160;|&zwnj;|&#8204;/gi, ' ');
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

const short = (value: string) => (value.length > 80 ? `${value.slice(0, 77)}...` : value);

/** Why a link's href is malformed, or null when it looks right. Liquid inside it is left to the render. */
export function brokenHref(href: string): string | null {
  const trimmed = href.trim();
  if (trimmed === '') return 'it is empty';
  if ((href.match(/\{\{/g)?.length ?? 0) !== (href.match(/\}\}/g)?.length ?? 0) || (href.match(/\{%/g)?.length ?? 0) !== (href.match(/%\}/g)?.length ?? 0)) {
    return 'its Liquid braces are unbalanced';
  }
  const plain = trimmed.replace(LIQUID, 'x');
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
    const images = html.match(IMG) ?? [];
    if (images.length > 0 && visibleWords(html) < IMAGE_ONLY_MAX_WORDS) {
      add('IMAGE_ONLY', `the message is mostly images (fewer than ${IMAGE_ONLY_MAX_WORDS} words of text): spam filters distrust it and, with images blocked, readers see nothing; add text`);
    }
    const noAlt = images.filter((img) => !/\balt\s*=/i.test(img)).length;
    if (noAlt > 0) add('MISSING_ALT', `${noAlt} image${noAlt === 1 ? ' has' : 's have'} no alt text, which readers see when images are blocked and screen readers read out; add alt="..." (alt="" for decoration)`);
    const bytes = Buffer.byteLength(html, 'utf8');
    if (bytes > GMAIL_CLIP_BYTES) add('HTML_OVER_102KB', `the HTML is ${Math.ceil(bytes / 1024)} KB compiled: Gmail clips messages over 102 KB, hiding the rest behind a link; make it shorter`);
    if (!UNSUBSCRIBE.test(html)) {
      add('NO_UNSUBSCRIBE_LINK', 'neither the content nor its layout has {{ unsubscribe_url }}: an unsubscribe link is added automatically in a footer at the end of the message (D16); place {{ unsubscribe_url }} where you want it instead');
    }
    for (const m of html.matchAll(HREF)) {
      const href = m[1] ?? m[2] ?? m[3] ?? '';
      const why = brokenHref(href);
      if (why) add('BROKEN_LINK_SYNTAX', `the link "${short(href)}" looks broken: ${why}`);
    }
  }
  return warnings;
}
