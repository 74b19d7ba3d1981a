import { randomUUID } from 'node:crypto';
import type { CampaignRow } from '../db/schema.ts';
import type { CompiledCampaign, MergeContact, RecipientLinks } from './render.ts';
import type { BouncePayload, TokenPayload, TokenSigner } from '../domain/shared/tokens.ts';
import type { OutgoingMessage } from './transports/transport.ts';
import { emailDomain, emailKey } from '../domain/shared/email-address.ts';

export interface MessageContext {
  campaign: CampaignRow;
  compiled: CompiledCampaign;
  signer: TokenSigner;
  /** PUBLIC_URL: base of every link put in a mail */
  publicUrl: string;
  /** D23 BOUNCE_DOMAIN: when set, a campaign message's envelope sender is its VERP address there */
  bounceDomain: string | null;
}

/** Message-ID fixed per (campaign, recipient) and signed, so a bounce that names it can be trusted and matched. */
export function messageIdFor(signer: TokenSigner, campaignId: number, recipientId: number, domain: string): string {
  return `<c${campaignId}.r${recipientId}.${signer.messageIdSignature(campaignId, recipientId)}@${domain}>`;
}

/** Reads a Message-ID back to its recipient, if it is one of ours and intact. */
export function parseMessageId(signer: TokenSigner, messageId: string): { campaignId: number; recipientId: number } | null {
  const m = /^<?c(\d+)\.r(\d+)\.([A-Za-z0-9_-]+)@[^>]+>?$/.exec(messageId.trim());
  if (!m) return null;
  const campaignId = Number(m[1]);
  const recipientId = Number(m[2]);
  return signer.messageIdSignature(campaignId, recipientId) === m[3] ? { campaignId, recipientId } : null;
}

/** The local part's prefix of a VERP address, before its token. */
const BOUNCE_PREFIX = 'bounce+';

/** D23: the VERP Return-Path of a recipient row's message, or (issue 31) of a transactional message: bounces to it name it, signed. */
export function bounceAddress(signer: TokenSigner, names: BouncePayload, bounceDomain: string): string {
  return `${BOUNCE_PREFIX}${signer.signBounce(names)}@${bounceDomain}`;
}

/** The recipient row or message a VERP address names, if it is one of ours at `bounceDomain` and intact (any letter case). */
export function parseBounceAddress(signer: TokenSigner, address: string, bounceDomain: string): BouncePayload | null {
  const key = emailKey(address);
  const at = key.lastIndexOf('@');
  const local = key.slice(0, at);
  if (at < 0 || emailDomain(key) !== emailDomain(bounceDomain) || !local.startsWith(BOUNCE_PREFIX)) return null;
  return signer.verifyBounce(local.slice(BOUNCE_PREFIX.length));
}

/** Whom a message is for: a campaign recipient row, or a test send (D13 `/test`), whose links count nowhere. */
export type MessageRecipient = number | { testSendId: number };

/**
 * A test send's message also carries the link list its click tokens index into, so the test send's
 * row can keep the list as sent (issue 14 H2, L4). It is rendered on the render thread, where the
 * campaign is compiled; the main thread never compiles one for this.
 */
export interface TestMessage extends OutgoingMessage {
  links: string[];
}

/** The link list of a test send's message, or undefined for any other message. */
export function testMessageLinks(message: OutgoingMessage): string[] | undefined {
  return (message as Partial<TestMessage>).links;
}

/** What the links of a message name: its recipient row, or its test send. */
function tokenPayloads(recipient: MessageRecipient) {
  if (typeof recipient === 'number') {
    const recipientId = recipient;
    return {
      open: { kind: 'open', recipientId } as const,
      unsubscribe: { kind: 'unsubscribe', recipientId } as const,
      preferences: { kind: 'preferences', recipientId } as const,
      webviewPreferences: { kind: 'webview-preferences', recipientId } as const,
      trap: { kind: 'trap', recipientId } as const,
      webview: { kind: 'webview', recipientId } as const,
      click: (link: number): TokenPayload => ({ kind: 'click', recipientId, link }),
    };
  }
  const { testSendId } = recipient;
  return {
    open: { kind: 'test-open', testSendId } as const,
    unsubscribe: { kind: 'test-unsubscribe', testSendId } as const,
    preferences: { kind: 'test-preferences', testSendId } as const,
    webviewPreferences: { kind: 'test-preferences', testSendId } as const,
    trap: { kind: 'test-trap', testSendId } as const,
    webview: { kind: 'test-webview', testSendId } as const,
    click: (link: number): TokenPayload => ({ kind: 'test-click', testSendId, link }),
  };
}

/**
 * D22: how a message is shown. `mail`: as sent, every link signed and the open pixel in it.
 * `webview`: the recipient's message in a browser (`/w/{token}`), its links signed as in the mail
 * (a click counts, an unsubscribe works) but with no open pixel or trap link, so looking at it
 * counts no open, and a preference link that cannot export or erase the person's data (issue 28
 * L1: see tokens.ts `webview-preferences`). `neutral`: a preview or the public archive: no token at all, links as the
 * content wrote them, and unsubscribe, preference and web view links inert (`#`).
 */
export type Rendering = 'mail' | 'webview' | 'neutral';

/** The links of one message (see Rendering). */
function linksFor(ctx: MessageContext, recipient: MessageRecipient, rendering: Rendering): RecipientLinks {
  if (rendering === 'neutral') return { open: null, trap: null, click: (link) => ctx.compiled.linkAt(link), unsubscribe: '#', preferences: '#', webview: '#' };
  const { signer, publicUrl } = ctx;
  const tokens = tokenPayloads(recipient);
  const mail = rendering === 'mail';
  return {
    open: mail ? `${publicUrl}/t/o/${signer.sign(tokens.open)}` : null,
    trap: mail ? `${publicUrl}/t/t/${signer.sign(tokens.trap)}` : null,
    click: (link) => `${publicUrl}/t/c/${signer.sign(tokens.click(link))}`,
    unsubscribe: `${publicUrl}/u/${signer.sign(tokens.unsubscribe)}`,
    preferences: `${publicUrl}/p/${signer.sign(mail ? tokens.preferences : tokens.webviewPreferences)}`,
    webview: `${publicUrl}/w/${signer.sign(tokens.webview)}`,
  };
}

/** What a test message's subject starts with, so nobody takes it for the real send. */
export const TEST_SUBJECT_PREFIX = '[Test] ';

/**
 * One campaign message for one recipient (D16): signed open, click and unsubscribe links, D20's
 * preference centre link, and
 * List-Unsubscribe with its RFC 8058 one-click companion. A test send's message says so in its
 * subject and carries its link list (TestMessage).
 */
export function buildMessage(ctx: MessageContext, recipient: MessageRecipient, contact: MergeContact, rendering: Rendering = 'mail'): OutgoingMessage {
  const { campaign, signer, bounceDomain } = ctx;
  const test = typeof recipient !== 'number';
  const links = linksFor(ctx, recipient, rendering);
  const unsubscribeUrl = links.unsubscribe;
  const unsubscribeToken = unsubscribeUrl.slice(unsubscribeUrl.lastIndexOf('/') + 1);
  const rendered = ctx.compiled.render(contact, links);
  const fromEmail = campaign.from_email ?? '';
  const domain = emailDomain(fromEmail);
  const message: OutgoingMessage = {
    accountId: campaign.account_id,
    campaignId: campaign.id,
    from: { name: campaign.from_name, address: fromEmail },
    to: contact.email,
    replyTo: campaign.reply_to,
    // A test mail says so; a preview or web view shows the subject as recipients see it.
    subject: test && rendering === 'mail' ? TEST_SUBJECT_PREFIX + rendered.subject : rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId: test ? `<test.${randomUUID()}@${domain}>` : messageIdFor(signer, campaign.id, recipient, domain),
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>, <mailto:unsubscribe@${domain}?subject=unsubscribe%20${unsubscribeToken}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
  // A test send names no recipient row, so its bounces have nothing to mark: it keeps the From address.
  if (!test) return bounceDomain ? { ...message, returnPath: bounceAddress(signer, { kind: 'bounce', recipientId: recipient }, bounceDomain) } : message;
  const testMessage: TestMessage = { ...message, links: ctx.compiled.links };
  return testMessage;
}
