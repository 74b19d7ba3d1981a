import { randomUUID } from 'node:crypto';
import type { CampaignRow } from '../db/schema.ts';
import type { CompiledCampaign, MergeContact } from './render.ts';
import type { TokenPayload, TokenSigner } from './tokens.ts';
import type { OutgoingMessage } from './transports/transport.ts';

export interface MessageContext {
  campaign: CampaignRow;
  compiled: CompiledCampaign;
  signer: TokenSigner;
  /** PUBLIC_URL: base of every link put in a mail */
  publicUrl: string;
}

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
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
      trap: { kind: 'trap', recipientId } as const,
      click: (link: number): TokenPayload => ({ kind: 'click', recipientId, link }),
    };
  }
  const { testSendId } = recipient;
  return {
    open: { kind: 'test-open', testSendId } as const,
    unsubscribe: { kind: 'test-unsubscribe', testSendId } as const,
    trap: { kind: 'test-trap', testSendId } as const,
    click: (link: number): TokenPayload => ({ kind: 'test-click', testSendId, link }),
  };
}

/** What a test message's subject starts with, so nobody takes it for the real send. */
export const TEST_SUBJECT_PREFIX = '[Test] ';

/**
 * One campaign message for one recipient (D16): signed open, click and unsubscribe links, and
 * List-Unsubscribe with its RFC 8058 one-click companion. A test send's message says so in its
 * subject and carries its link list (TestMessage).
 */
export function buildMessage(ctx: MessageContext, recipient: MessageRecipient, contact: MergeContact): OutgoingMessage {
  const { campaign, signer, publicUrl } = ctx;
  const test = typeof recipient !== 'number';
  const tokens = tokenPayloads(recipient);
  const unsubscribeToken = signer.sign(tokens.unsubscribe);
  const unsubscribeUrl = `${publicUrl}/u/${unsubscribeToken}`;
  const rendered = ctx.compiled.render(contact, {
    open: `${publicUrl}/t/o/${signer.sign(tokens.open)}`,
    trap: `${publicUrl}/t/t/${signer.sign(tokens.trap)}`,
    click: (link) => `${publicUrl}/t/c/${signer.sign(tokens.click(link))}`,
    unsubscribe: unsubscribeUrl,
  });
  const fromEmail = campaign.from_email ?? '';
  const domain = domainOf(fromEmail);
  const message: OutgoingMessage = {
    accountId: campaign.account_id,
    campaignId: campaign.id,
    from: { name: campaign.from_name, address: fromEmail },
    to: contact.email,
    replyTo: campaign.reply_to,
    subject: test ? TEST_SUBJECT_PREFIX + rendered.subject : rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId: test ? `<test.${randomUUID()}@${domain}>` : messageIdFor(signer, campaign.id, recipient, domain),
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>, <mailto:unsubscribe@${domain}?subject=unsubscribe%20${unsubscribeToken}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
  if (!test) return message;
  const testMessage: TestMessage = { ...message, links: ctx.compiled.links };
  return testMessage;
}
