import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { CompiledCampaign, type MergeContact, type RecipientLinks, type RenderLimits } from './render.ts';
import type { TokenSigner } from '../domain/shared/tokens.ts';
import type { OutgoingMessage } from './transports/transport.ts';
import { emailDomain } from '../domain/shared/email-address.ts';
import { bounceAddress } from './message.ts';
import type { TransactionalSource } from '../domain/messages/message.ts';

export type { TransactionalSource };

/** A transactional message made for the mail server, with the link list its click tokens index into. */
export interface TransactionalOutgoing extends OutgoingMessage {
  links: string[];
}

/** D25: Message-ID of a transactional message, signed, so a bounce that names it can be trusted. */
export function transactionalMessageId(signer: TokenSigner, id: number, domain: string): string {
  return `<t${id}.${signer.transactionalIdSignature(id)}@${domain}>`;
}

/** The message a Message-ID names, if it is one of ours and intact. */
export function parseTransactionalMessageId(signer: TokenSigner, messageId: string): number | null {
  const m = /^<?t(\d+)\.([A-Za-z0-9_-]+)@[^>]+>?$/.exec(messageId.trim());
  if (!m) return null;
  const id = Number(m[1]);
  return Number.isSafeInteger(id) && signer.transactionalIdSignature(id) === m[2] ? id : null;
}

/**
 * D25.1: the message's links. Its opens and clicks are tracked only when asked for; it has no
 * unsubscribe, preference or web view link: those merge fields render empty.
 */
function linksOf(source: TransactionalSource, signer: TokenSigner, publicUrl: string, compiled: CompiledCampaign): RecipientLinks {
  const messageId = source.id;
  return {
    open: source.track_opens ? `${publicUrl}/t/o/${signer.sign({ kind: 'message-open', messageId })}` : null,
    trap: source.track_clicks ? `${publicUrl}/t/t/${signer.sign({ kind: 'message-trap', messageId })}` : null,
    click: (link) => (source.track_clicks ? `${publicUrl}/t/c/${signer.sign({ kind: 'message-click', messageId, link })}` : compiled.linkAt(link)),
    unsubscribe: '',
    preferences: '',
    webview: '',
  };
}

/** Lines of a MIME header block that start the named fields (any case), with their folded continuations. */
function withoutHeaders(head: string, names: string[]): string {
  const lines = head.split('\r\n');
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      if (!dropping) kept.push(line);
      continue;
    }
    const name = line.slice(0, line.indexOf(':')).trim().toLowerCase();
    dropping = names.includes(name);
    if (!dropping) kept.push(line);
  }
  return kept.join('\r\n');
}

/**
 * D25.7: the submitted source as it goes out: its body and headers as submitted, but for the
 * Message-ID, which the platform sets (its bounces must name the message). Line ends are made
 * CRLF, as SMTP carries them.
 */
export function submittedMime(mime: Uint8Array, messageId: string): Uint8Array {
  const source = Buffer.from(mime.buffer, mime.byteOffset, mime.byteLength).toString('latin1').replace(/\r?\n/g, '\r\n');
  const end = source.indexOf('\r\n\r\n');
  const head = end < 0 ? source : source.slice(0, end);
  const body = end < 0 ? '' : source.slice(end);
  return new Uint8Array(Buffer.from(`Message-ID: ${messageId}\r\n${withoutHeaders(head, ['message-id', 'bcc'])}${body}`, 'latin1'));
}

/**
 * Compiled content by what it compiles from. An application sends the same receipt to many people
 * with other `data`: compiling it once (Liquid parse, and the text part made from the HTML, about
 * a millisecond for a 30 KB message) and rendering each message from it is what makes the lane
 * keep up with the bare mail loop. Kept per render thread.
 */
const compiledContents = new LRUCache<string, CompiledCampaign>({ max: 200 });

function compiledFor(source: TransactionalSource, limits?: RenderLimits): CompiledCampaign {
  const key = createHash('sha256')
    .update(JSON.stringify([source.subject, source.html, source.text, source.track_opens, source.track_clicks]))
    .digest('base64');
  let compiled = compiledContents.get(key);
  if (!compiled) {
    compiled = new CompiledCampaign({ subject: source.subject, html: source.html, text: source.text, preheader: null, transactional: { opens: source.track_opens, clicks: source.track_clicks } }, limits);
    compiled.prepareText();
    compiledContents.set(key, compiled);
  }
  return compiled;
}

/**
 * One transactional message (D25.1) for the mail server: its content rendered with `data` and the
 * contact's fields, tracked as asked, its X- headers and attachments; never a List-Unsubscribe
 * header or an unsubscribe footer. A submitted one (D25.7) is its source with the Message-ID set.
 * With BOUNCE_DOMAIN (D23), its envelope sender is the message's own VERP address (issue 31), so
 * a bounce that quotes nothing of the original still names it.
 */
export function buildTransactional(source: TransactionalSource, signer: TokenSigner, publicUrl: string, bounceDomain: string | null, limits?: RenderLimits): TransactionalOutgoing {
  const domain = emailDomain(source.from_email);
  const messageId = transactionalMessageId(signer, source.id, domain);
  const base = {
    ...(bounceDomain ? { returnPath: bounceAddress(signer, { kind: 'message-bounce', messageId: source.id }, bounceDomain) } : {}),
    accountId: source.account_id,
    campaignId: null,
    from: { name: source.from_name, address: source.from_email },
    to: source.to_email,
    replyTo: source.reply_to,
    messageId,
    headers: source.headers,
  };
  if (source.mime) return { ...base, subject: source.subject, html: null, text: null, mime: submittedMime(source.mime, messageId), links: [] };
  const compiled = compiledFor(source, limits);
  const contact: MergeContact = { ...(source.contact ?? { email: source.to_email, first_name: null, last_name: null, phone: null, custom_fields: {} }), email: source.to_email, data: source.data };
  const rendered = compiled.render(contact, linksOf(source, signer, publicUrl, compiled));
  return {
    ...base,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    attachments: source.attachments ?? undefined,
    links: source.track_clicks ? compiled.links : [],
  };
}
