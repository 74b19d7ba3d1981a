/**
 * D22 visual editor: the rules it keeps, apart from React. Content the editor cannot hold
 * without loss opens in source mode, untouched (GrapesJS-style silent rewrites broke mail for
 * Mautic's users, mautic#10769); merge tags are Liquid; the button is an e-mail-safe link.
 */
import type { Schemas } from './api.ts';

/** What content is written in, as the API names it (D22). */
export type ContentFormat = Schemas['Campaign']['format'];

/** A campaign's format (D22); absent (a server before formats) is HTML. */
export function formatOf(campaign: object): ContentFormat {
  const format = (campaign as { format?: unknown }).format;
  return format === 'mjml' || format === 'markdown' ? format : 'html';
}

export interface MergeTag {
  label: string;
  /** the Liquid expression inside {{ }} */
  expression: string;
  group: 'Contact' | 'Custom fields' | 'Event' | 'Links';
  /** a URL: inserted as a link's href, not as text */
  link?: boolean;
}

/** Liquid for a custom field: dotted when the key is an identifier, bracketed (quotes escaped) otherwise. */
export function customFieldExpression(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `custom_fields.${key}` : `custom_fields["${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
}

/** What the picker offers: the contact's fields, the account's custom fields, and the message's own links. */
export function mergeTags(customKeys: string[], eventKeys: string[] = []): MergeTag[] {
  return [
    ...(['email', 'first_name', 'last_name', 'phone'] as const).map((f) => ({ label: f.replace('_', ' '), expression: f, group: 'Contact' as const })),
    ...customKeys.map((key) => ({ label: key, expression: customFieldExpression(key), group: 'Custom fields' as const })),
    // D26.7: a workflow's message reads its triggering event's data (issue 34 item 11).
    ...eventKeys.map((key) => ({ label: key, expression: eventExpression(key), group: 'Event' as const })),
    { label: 'Unsubscribe link', expression: 'unsubscribe_url', group: 'Links', link: true },
    { label: 'Preferences link', expression: 'preferences_url', group: 'Links', link: true },
    { label: 'View in browser link', expression: 'webview_url', group: 'Links', link: true },
  ];
}

/** Liquid for a key of the triggering event's data: dotted when an identifier, bracketed otherwise. */
export function eventExpression(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `event.${key}` : `event["${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
}

export const liquid = (expression: string) => `{{ ${expression} }}`;

/** A link target that cannot run script: javascript:, vbscript: and data: URLs become empty (browsers ignore whitespace and controls in the scheme). */
export function safeHref(href: string): string {
  return /^(javascript|vbscript|data):/i.test(href.replace(/[\u0000-\u0020]/g, '')) ? '' : href;
}

/** The button block's look, inline (mail clients drop <style>), on a plain link every client shows. */
export const BUTTON_STYLE = 'display:inline-block;padding:12px 24px;background-color:#2563eb;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold';
export const BUTTON_WRAPPER_STYLE = 'margin:24px 0;text-align:center';
/** An image inserted by the editor scales down on narrow screens. */
export const IMAGE_STYLE = 'max-width:100%;height:auto';

/** The tags that are the same mark to the editor (it writes the second). */
const SAME_TAG: Record<string, string> = { b: 'strong', i: 'em', strike: 's', del: 's' };
const BLOCKS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'hr', 'pre', 'body', 'div']);

/**
 * A node's content in a canonical form: tag names (with SAME_TAG's equivalents), attributes
 * sorted, text with whitespace runs collapsed, whitespace between blocks dropped. Two HTML texts
 * with equal canonical forms show the same in mail.
 */
export function canonical(node: Node): string {
  if (node.nodeType === 3) return (node.nodeValue ?? '').replace(/\s+/g, ' ');
  if (node.nodeType !== 1) return node.nodeType === 8 ? `<!--${node.nodeValue}-->` : '';
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  const name = SAME_TAG[tag] ?? tag;
  const attributes = Array.from(el.attributes)
    .map((a) => `${a.name}="${a.value.trim()}"`)
    .sort()
    .join(' ');
  const children = Array.from(el.childNodes);
  let inner = children
    .filter((child) => !(child.nodeType === 3 && !/\S/.test(child.nodeValue ?? '') && BLOCKS.has(name)))
    .map(canonical)
    .join('');
  if (BLOCKS.has(name)) inner = inner.trim();
  return `<${name}${attributes ? ' ' + attributes : ''}>${inner}</${name}>`;
}

/** The whole text's canonical form; anything outside <body> (a full document's head and styles) counts. */
export function canonicalDocument(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const head = doc.head.childNodes.length > 0 || /<(html|head|body)\b|<!doctype/i.test(html) ? `head:${canonical(doc.head)}|` : '';
  return head + canonical(doc.body);
}

/**
 * True when the editor holds `html` without loss: it was read into the editor and written back as
 * `serialized`, and both show the same. Empty content is always representable.
 */
export function isLossless(html: string, serialized: string): boolean {
  if (html.trim() === '') return true;
  return canonicalDocument(html) === canonicalDocument(serialized);
}
