import type { Template } from 'liquidjs';
import { LRUCache } from 'lru-cache';
import type { CampaignRow } from '../db/schema.ts';
import { variantContent, variantsOf } from '../domain/campaigns/ab-test.ts';
import { LiquidShield } from '../domain/content/liquid-shield.ts';
import { EVENT_MERGE_FIELD, type CONTACT_MERGE_FIELDS, type LINK_MERGE_FIELDS } from '../domain/content/merge-fields.ts';
import { readJson } from '../domain/shared/json.ts';
import { htmlEngine, htmlToText, MessageRender, overTextSourceTags, plainEngine, RenderLimitError } from './liquid-sandbox.ts';

// RenderLimits and DEFAULT_RENDER_LIMITS live with the configuration that sets them (config.ts).
export { DEFAULT_RENDER_LIMITS, type RenderLimits } from '../config.ts';
import { DEFAULT_RENDER_LIMITS, type RenderLimits } from '../config.ts';

/** RFC 5322's line limit: a subject longer than a header line may be is an error, never cut short. */
export const MAX_SUBJECT_BYTES = 998;

// Placeholders survive rendering untouched (they hold no characters escaping would change) and
// are swapped for the recipient's signed URLs afterwards.
const LINK = 'sw-link:';
const OPEN = 'sw-open:pixel';
const UNSUBSCRIBE = 'sw-unsubscribe:url';
const TRAP = 'sw-trap:url';
const PREFERENCES = 'sw-preferences:url';
/** `{{ preferences_url }}` written by the content or its layout (D26.4). */
const PREFERENCES_FIELD = /\{\{\s*preferences_url\s*\}\}/;
/** D22: the message's web view (`/w/{token}`) */
const WEBVIEW = 'sw-webview:url';

/**
 * D23's hidden trap link, first in every HTML message: hidden from sight and from screen readers,
 * out of the tab order and without text, so no person follows it, while link scanners, which
 * fetch every link a message holds, do. A hit on it is a machine (EngagementService.recordTrapHit).
 */
const TRAP_LINK = `<a class="sw-trap" href="${TRAP}" aria-hidden="true" tabindex="-1" style="display:none;font-size:0;line-height:0;max-height:0;overflow:hidden"></a>`;
/** The open pixel, last in every HTML message. */
const PIXEL = `<img src="${OPEN}" width="1" height="1" alt="" style="display:none">`;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * Every placeholder; the one group is a link's index. The pixel and the trap are matched as whole
 * tags first, so a rendering without them (RecipientLinks' null) leaves no empty tag behind.
 */
const PLACEHOLDERS = new RegExp(`${escapeRegExp(PIXEL)}|${escapeRegExp(TRAP_LINK)}|sw-link:(\\d+)|sw-open:pixel|sw-unsubscribe:url|sw-trap:url|sw-preferences:url|sw-webview:url`, 'g');
const BODY_START = /<body\b[^>]*>/i;
/** A size as a reason shows it: 2 MB, 9.8 KB. */
function sizeText(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / 1024 / 1024, 'MB'] : [bytes / 1024, 'KB'];
  return `${Math.round(value * 10) / 10} ${unit}`;
}

/**
 * Swaps each placeholder (PLACEHOLDERS) for its URL, refusing (RenderLimitError) once the result
 * would pass `maxChars`: a placeholder in a loop would otherwise grow a capped output several
 * times over.
 */
function substitute(source: string, urlOf: (placeholder: string, link: string | undefined) => string, maxChars: number, tooLarge: string): string {
  let length = source.length;
  return source.replace(PLACEHOLDERS, (placeholder: string, link: string | undefined) => {
    const url = urlOf(placeholder, link);
    length += url.length - placeholder.length;
    if (length > maxChars) throw new RenderLimitError(tooLarge);
    return url;
  });
}

function checkBytes(value: string, maxBytes: number, tooLarge: string): string {
  if (Buffer.byteLength(value) > maxBytes) throw new RenderLimitError(tooLarge);
  return value;
}

export interface CampaignContent {
  subject: string;
  html: string | null;
  text: string | null;
  preheader: string | null;
  /**
   * D23: where this content's links start in the campaign's one link list. An A/B campaign's list
   * holds each variant's links in turn, so a click token's index names one URL whichever variant
   * its message was.
   */
  linkOffset?: number;
  /**
   * D25.1: a transactional message's tracking. It gets no unsubscribe or preference footer; its
   * links are rewritten (and the trap link added) only with `clicks`, the open pixel only with
   * `opens`. Absent for campaign and automation messages, which always have all of them.
   */
  transactional?: { opens: boolean; clicks: boolean };
}

export interface MergeContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  custom_fields: Record<string, unknown>;
  /**
   * D26.7: a workflow's message only: its run's triggering event's data, `{{ event.<key> }}` (an
   * empty object when the run has no event, so `event.*` renders empty). Absent for campaigns.
   */
  event?: Record<string, unknown>;
  /** D25.1: a transactional message's `data`, `{{ data.x }}`. Absent for every other message. */
  data?: Record<string, unknown>;
}

export interface RecipientLinks {
  /** the open pixel's URL; null: no pixel (D22: a web view, a preview or the archive counts no open) */
  open: string | null;
  unsubscribe: string;
  /** D20's preference centre (`/p/{token}`) */
  preferences: string;
  /** D23's hidden trap link; null: no trap link (a page for people, not a mail scanners fetch) */
  trap: string | null;
  /** D22: `{{ webview_url }}`, the message in a browser (`/w/{token}`) */
  webview: string;
  /** The URL of link `linkIndex` (an index into the campaign's link list: see CompiledCampaign.linkAt). */
  click(linkIndex: number): string;
}

export interface RenderedMessage {
  subject: string;
  html: string | null;
  text: string | null;
}

// Matched against one `<a ...` tag at a time (up to its first `>`): run over the whole content,
// the lazy `[^>]*?` rescanned to the end from every `<a` that has no `>` after it, so a 256 KB
// draft of `<a ` took seconds to compile (issue 14 H2).
const TRACKABLE_HREF = /^(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"'<>\s]+)\2/i;
const ANCHOR_START = /<a\b/gi;

/** `html` with each `<a ... href="http(s)://...">` given to `rewrite`, in one linear pass. */
export function replaceTrackableHrefs(html: string, rewrite: (whole: string, start: string, quote: string, url: string) => string): string {
  let out = '';
  let copied = 0;
  ANCHOR_START.lastIndex = 0;
  for (let found = ANCHOR_START.exec(html); found; found = ANCHOR_START.exec(html)) {
    const end = html.indexOf('>', found.index);
    if (end === -1) break; // no later tag can close either
    const match = TRACKABLE_HREF.exec(html.slice(found.index, end));
    if (match) {
      out += html.slice(copied, found.index) + rewrite(match[0], match[1], match[2], match[3]);
      copied = found.index + match[0].length;
    }
    ANCHOR_START.lastIndex = end + 1;
  }
  return out + html.slice(copied);
}

const ATTRIBUTE_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The inverse of ATTRIBUTE_ESCAPES (and what content usually writes): a link as it was meant. */
function decodeAttribute(value: string): string {
  return value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/** A campaign compiled once: its templates, and the links its own content contains. */
export class CompiledCampaign {
  /** Click tokens index into this list: a tracked click can only lead to one of these. */
  readonly links: string[] = [];
  /** where `links` start in the campaign's one link list (CampaignContent.linkOffset) */
  private readonly linkOffset: number;
  private readonly subject: Template[];
  private readonly html: Template[] | null;
  /** The HTML template's source, for the text part made from it (textTemplate). */
  private readonly htmlSource: string | null = null;
  /**
   * D17.2's text part as a template, made once from the HTML template (in a render thread, with the
   * campaign: prepareText; else when the first message needs it), null when it cannot be made so (each message's text is then made from its
   * rendered HTML, as before). Converting 28 KB of HTML to text cost 770 µs a message, nine
   * tenths of rendering one; converted once per campaign, a message only renders the template.
   */
  private textFromHtml: Template[] | null | undefined;
  private readonly text: Template[] | null;

  constructor(
    content: CampaignContent,
    private readonly limits: RenderLimits = DEFAULT_RENDER_LIMITS,
  ) {
    this.linkOffset = content.linkOffset ?? 0;
    this.subject = plainEngine.parse(content.subject);
    // D26.4: one link to the preference centre; none is added where the text has its own.
    const textPreferences = content.text !== null && PREFERENCES_FIELD.test(content.text) ? '' : 'Manage your subscriptions: {{ preferences_url }}\n';
    const tracking = content.transactional;
    const textFooter = tracking ? '' : `\n\n--\nUnsubscribe: {{ unsubscribe_url }}\n${textPreferences}`;
    this.text = content.text === null ? null : plainEngine.parse(content.text + textFooter);
    if (content.html === null) {
      this.html = null;
      return;
    }
    // Links that hold merge fields are left alone: their target differs per recipient.
    let source = replaceTrackableHrefs(content.html, (whole, start, quote, url) => {
      if (url.includes('{{') || url.includes('{%') || (tracking && !tracking.clicks)) return whole;
      this.links.push(decodeAttribute(url));
      return `${start}${quote}${LINK}${this.linkOffset + this.links.length - 1}${quote}`;
    });
    if (content.preheader) {
      source = `<div class="sw-preheader" style="display:none;max-height:0;overflow:hidden">${content.preheader.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</div>` + source;
    }
    // D16: the unsubscribe link unless the content places it; D20 and D26.4: the preference
    // centre's link unless the content or its layout places it (one link, not a second, unstyled
    // one after the layout's own footer).
    const links = tracking
      ? []
      : [
          ...(/\{\{\s*unsubscribe_url\s*\}\}/.test(source) ? [] : [`<a href="{{ unsubscribe_url }}">Unsubscribe</a>`]),
          ...(PREFERENCES_FIELD.test(source) ? [] : [`<a href="{{ preferences_url }}">Manage your subscriptions</a>`]),
        ];
    const footer = links.length === 0 ? '' : `<p style="font-size:12px;color:#666">${links.join(' · ')}</p>`;
    const pixel = tracking && !tracking.opens ? '' : PIXEL;
    source = /<\/body>/i.test(source) ? source.replace(/<\/body>/i, `${footer}${pixel}</body>`) : source + footer + pixel;
    // The trap goes first, so a scanner that follows only a message's first few links still finds it.
    if (!tracking || tracking.clicks) {
      const body = BODY_START.exec(source);
      source = body ? source.slice(0, body.index + body[0].length) + TRAP_LINK + source.slice(body.index + body[0].length) : TRAP_LINK + source;
    }
    this.html = htmlEngine.parse(source);
    this.htmlSource = source;
  }

  /**
   * Issue 34: the text part's template made now, with the campaign, not inside its first message's
   * render budget. On a busy machine a cold conversion of a gallery starter took 60-320 ms of wall
   * time (a few ms of CPU), which with the render itself put a first preview over the 300 ms
   * budget (bench/RESULTS.md, first preview on a busy machine). Only the render threads call it
   * (CompiledCampaigns, the transactional cache): there the HTML's size and tags are bounded and
   * the thread is off the HTTP thread. Compiling for the links alone (contentLinks, on the HTTP
   * thread) never converts, and a render without it counts the conversion in its budget.
   */
  prepareText(): void {
    if (this.text === null) this.textTemplate();
  }

  /**
   * D22: link `linkIndex` (an index into the campaign's link list, as click tokens carry) as the
   * content wrote it, escaped for an attribute: what a preview or the archive links to, untracked.
   */
  linkAt(linkIndex: number): string {
    return (this.links[linkIndex - this.linkOffset] ?? '#').replace(/[&<>"']/g, (c) => ATTRIBUTE_ESCAPES[c]);
  }

  private textTemplate(): Template[] | null {
    if (this.textFromHtml === undefined) this.textFromHtml = this.htmlSource === null ? null : textTemplateOf(this.htmlSource);
    return this.textFromHtml;
  }

  /**
   * The recipient's message. Throws RenderLimitError when it is over a limit (RenderLimits, and
   * MAX_SUBJECT_BYTES), or the template's own error when it cannot be rendered for this contact.
   */
  render(contact: MergeContact, urls: RecipientLinks): RenderedMessage {
    const { maxPartBytes } = this.limits;
    const render = new MessageRender(
      {
        ...contact.custom_fields,
        custom_fields: contact.custom_fields,
        email: contact.email,
        first_name: contact.first_name ?? '',
        last_name: contact.last_name ?? '',
        phone: contact.phone ?? '',
        unsubscribe_url: UNSUBSCRIBE,
        preferences_url: PREFERENCES,
        webview_url: WEBVIEW,
        ...(contact.event === undefined ? {} : { [EVENT_MERGE_FIELD]: contact.event }),
        ...(contact.data === undefined ? {} : { data: contact.data }),
      } satisfies Record<(typeof CONTACT_MERGE_FIELDS)[number] | (typeof LINK_MERGE_FIELDS)[number], unknown>,
      this.limits,
    );
    // Each link is signed once per message, however often a loop repeats it.
    const clicks = new Map<number, string>();
    const urlOf = (placeholder: string, link: string | undefined) => {
      if (link !== undefined) {
        let url = clicks.get(Number(link));
        if (url === undefined) clicks.set(Number(link), (url = urls.click(Number(link))));
        return url;
      }
      switch (placeholder) {
        case PIXEL:
          return urls.open === null ? '' : PIXEL.replace(OPEN, urls.open);
        case TRAP_LINK:
          return urls.trap === null ? '' : TRAP_LINK.replace(TRAP, urls.trap);
        case OPEN:
          return urls.open ?? '#';
        case TRAP:
          return urls.trap ?? '#';
        case PREFERENCES:
          return urls.preferences;
        case WEBVIEW:
          return urls.webview;
        default:
          return urls.unsubscribe;
      }
    };
    const subjectTooLong = `the rendered subject is longer than ${MAX_SUBJECT_BYTES} bytes`;
    const subject = checkBytes(render.part(plainEngine, this.subject, MAX_SUBJECT_BYTES, subjectTooLong).replace(/[\r\n]+/g, ' '), MAX_SUBJECT_BYTES, subjectTooLong);
    let text: string | null = null;
    if (this.text) {
      const tooLarge = `the rendered text is larger than ${sizeText(maxPartBytes)}`;
      text = checkBytes(substitute(render.part(plainEngine, this.text, maxPartBytes, tooLarge), urlOf, maxPartBytes, tooLarge), maxPartBytes, tooLarge);
    }
    let html: string | null = null;
    if (this.html) {
      const tooLarge = `the rendered HTML is larger than ${sizeText(maxPartBytes)}`;
      html = checkBytes(substitute(render.part(htmlEngine, this.html, maxPartBytes, tooLarge), urlOf, maxPartBytes, tooLarge), maxPartBytes, tooLarge);
      if (text === null) {
        const tooLargeText = `the text made from the HTML is larger than ${sizeText(maxPartBytes)}`;
        const template = this.textTemplate();
        // Its links are the HTML's placeholders, signed alike, so the text carries the same tracked URLs as the HTML (D17.2).
        text = template
          ? checkBytes(substitute(render.part(plainEngine, template, maxPartBytes, tooLargeText), urlOf, maxPartBytes, tooLargeText), maxPartBytes, tooLargeText)
          : checkBytes(render.textFrom(html), maxPartBytes, tooLargeText);
      }
    }
    return { subject, html, text };
  }
}

/**
 * D17.2's text part as a Liquid template made from the HTML template: its merge fields and link
 * placeholders hidden from html-to-text (LiquidShield) and put back, so rendering it gives the
 * text that converting each rendered message would. Null when the HTML is over the text source's
 * tag limit, or a tag did not come through the conversion intact (see restoreInOrder): then each
 * message's text is made from its rendered HTML.
 */
function textTemplateOf(source: string): Template[] | null {
  if (overTextSourceTags(source)) return null;
  const shield = new LiquidShield();
  const text = shield.restoreInOrder(htmlToText(shield.hide(source)));
  if (text === null) return null;
  try {
    return plainEngine.parse(text);
  } catch {
    return null;
  }
}

/** What a campaign row holds that compiling needs. */
type CampaignSource = Pick<CampaignRow, 'id' | 'updated_at' | 'subject' | 'from_name' | 'html' | 'text' | 'preheader' | 'variants'> &
  Partial<Pick<CampaignRow, 'compiled_html' | 'compiled_variants'>>;

/**
 * A campaign's content compiled: one per variant (D23: each variant over the base, its links
 * after the previous variants' in the campaign's link list), or the base alone without variants.
 * The link list is their links in that order (contentLinks).
 *
 * D22: the one place the sender reads a campaign's content. The HTML is the content compiled when
 * it was saved or sending started (compiled_html, and compiled_variants[i] for variant i: its
 * format compiled, its layout around it, CSS inlined); a row saved before D22 has none, and its
 * `html` is used as it is.
 */
export function compileCampaign(c: Omit<CampaignSource, 'id' | 'updated_at'>, limits: RenderLimits = DEFAULT_RENDER_LIMITS): CompiledCampaign[] {
  const compiledVariants = readJson<(string | null)[] | null>(c.compiled_variants ?? null, null);
  const base = { ...c, html: c.compiled_html ?? c.html };
  const variants = variantsOf(c)?.map((v, i) => ({ ...v, html: compiledVariants?.[i] ?? v.html })) ?? [undefined];
  const compiled: CompiledCampaign[] = [];
  let linkOffset = 0;
  for (const variant of variants) {
    const content = variantContent(base, variant);
    const one = new CompiledCampaign({ subject: content.subject ?? '', html: content.html, text: content.text, preheader: c.preheader, linkOffset }, limits);
    linkOffset += one.links.length;
    compiled.push(one);
  }
  return compiled;
}

/**
 * Campaigns compiled once per content version (their updated_at), all variants together, for
 * workers that render many messages of each; the least recently used go first past `max`.
 */
export class CompiledCampaigns {
  private readonly cache: LRUCache<number, { updatedAt: string; compiled: CompiledCampaign[] }>;

  constructor(
    max: number,
    private readonly limits: RenderLimits = DEFAULT_RENDER_LIMITS,
  ) {
    this.cache = new LRUCache({ max });
  }

  /** The campaign compiled for `variant` (D23: a recipient's variant index), or its base content when null. */
  of(campaign: CampaignSource, variant: number | null = null): CompiledCampaign {
    const updatedAt = String(campaign.updated_at);
    let cached = this.cache.get(campaign.id);
    if (!cached || cached.updatedAt !== updatedAt) {
      cached = { updatedAt, compiled: compileCampaign(campaign, this.limits) };
      for (const one of cached.compiled) one.prepareText();
      this.cache.set(campaign.id, cached);
    }
    return cached.compiled[variant ?? 0] ?? cached.compiled[0];
  }
}
