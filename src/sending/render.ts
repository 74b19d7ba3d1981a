import { Liquid, type Template } from 'liquidjs';
import { LRUCache } from 'lru-cache';
import type { CampaignRow } from '../db/schema.ts';

/**
 * Merge fields are rendered by LiquidJS, sandboxed: no file system (an empty in-memory template
 * map, so `include`/`render`/`layout` find nothing), own properties only (no prototype walking),
 * no JavaScript, and limits on parse size, render time and memory so a hostile template cannot
 * stall a sender. Output in HTML is escaped; subject and text are plain.
 */
const LIMITS = { parseLimit: 2_000_000, renderLimit: 1_000, memoryLimit: 20_000_000 };
const htmlEngine = new Liquid({ templates: {}, ownPropertyOnly: true, outputEscape: 'escape', strictFilters: true, ...LIMITS });
const plainEngine = new Liquid({ templates: {}, ownPropertyOnly: true, strictFilters: true, ...LIMITS });

export interface CampaignContent {
  subject: string;
  html: string | null;
  text: string | null;
  preheader: string | null;
}

export interface MergeContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  custom_fields: Record<string, unknown>;
}

export interface RecipientLinks {
  open: string;
  unsubscribe: string;
  click(linkIndex: number): string;
}

export interface RenderedMessage {
  subject: string;
  html: string | null;
  text: string | null;
}

// Placeholders survive rendering untouched (they hold no characters escaping would change) and
// are swapped for the recipient's signed URLs afterwards.
const LINK = 'sw-link:';
const OPEN = 'sw-open:pixel';
const UNSUBSCRIBE = 'sw-unsubscribe:url';
const TRACKABLE_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"'<>\s]+)\2/gi;

function decodeAttribute(value: string): string {
  return value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/** A campaign compiled once: its templates, and the links its own content contains. */
export class CompiledCampaign {
  /** Click tokens index into this list: a tracked click can only lead to one of these. */
  readonly links: string[] = [];
  private readonly subject: Template[];
  private readonly html: Template[] | null;
  private readonly text: Template[] | null;

  constructor(content: CampaignContent) {
    this.subject = plainEngine.parse(content.subject);
    this.text = content.text === null ? null : plainEngine.parse(content.text + `\n\n--\nUnsubscribe: {{ unsubscribe_url }}\n`);
    if (content.html === null) {
      this.html = null;
      return;
    }
    // Links that hold merge fields are left alone: their target differs per recipient.
    let source = content.html.replace(TRACKABLE_HREF, (whole, start: string, quote: string, url: string) => {
      if (url.includes('{{') || url.includes('{%')) return whole;
      this.links.push(decodeAttribute(url));
      return `${start}${quote}${LINK}${this.links.length - 1}${quote}`;
    });
    if (content.preheader) {
      source = `<div style="display:none;max-height:0;overflow:hidden">${content.preheader.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</div>` + source;
    }
    const footer = /\{\{\s*unsubscribe_url\s*\}\}/.test(source) ? '' : `<p style="font-size:12px;color:#666"><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>`;
    const pixel = `<img src="${OPEN}" width="1" height="1" alt="" style="display:none">`;
    source = /<\/body>/i.test(source) ? source.replace(/<\/body>/i, `${footer}${pixel}</body>`) : source + footer + pixel;
    this.html = htmlEngine.parse(source);
  }

  render(contact: MergeContact, urls: RecipientLinks): RenderedMessage {
    const scope = {
      ...contact.custom_fields,
      custom_fields: contact.custom_fields,
      email: contact.email,
      first_name: contact.first_name ?? '',
      last_name: contact.last_name ?? '',
      phone: contact.phone ?? '',
      unsubscribe_url: UNSUBSCRIBE,
    };
    const subject = plainEngine.renderSync(this.subject, scope).replace(/[\r\n]+/g, ' ');
    const text = this.text ? plainEngine.renderSync(this.text, scope).replace(UNSUBSCRIBE, urls.unsubscribe) : null;
    let html: string | null = null;
    if (this.html) {
      html = htmlEngine
        .renderSync(this.html, scope)
        .replace(/sw-link:(\d+)/g, (_m: string, i: string) => urls.click(Number(i)))
        .replace(OPEN, urls.open)
        .replaceAll(UNSUBSCRIBE, urls.unsubscribe);
    }
    return { subject, html, text };
  }
}

/** What a campaign row holds that compiling needs. */
type CampaignSource = Pick<CampaignRow, 'id' | 'updated_at' | 'subject' | 'html' | 'text' | 'preheader'>;

/**
 * Campaigns compiled once per content version (their updated_at), for workers that render many
 * messages of each; the least recently used go first past `max`.
 */
export class CompiledCampaigns {
  private readonly cache: LRUCache<number, { updatedAt: string; compiled: CompiledCampaign }>;

  constructor(max: number) {
    this.cache = new LRUCache({ max });
  }

  of(campaign: CampaignSource): CompiledCampaign {
    const updatedAt = String(campaign.updated_at);
    const cached = this.cache.get(campaign.id);
    if (cached && cached.updatedAt === updatedAt) return cached.compiled;
    const compiled = new CompiledCampaign({ subject: campaign.subject ?? '', html: campaign.html, text: campaign.text, preheader: campaign.preheader });
    this.cache.set(campaign.id, { updatedAt, compiled });
    return compiled;
  }
}
