import { randomUUID } from 'node:crypto';
import type { CampaignRow } from '../db/schema.ts';
import type { CompiledCampaign, MergeContact } from './render.ts';
import type { TokenSigner } from './tokens.ts';
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

/**
 * One campaign message for one recipient (D16): signed open, click and unsubscribe links, and
 * List-Unsubscribe with its RFC 8058 one-click companion.
 */
export function buildMessage(ctx: MessageContext, recipientId: number | 'test', contact: MergeContact): OutgoingMessage {
  const { campaign, signer, publicUrl } = ctx;
  const test = recipientId === 'test';
  const campaignId = campaign.id;
  const unsubscribeToken = signer.sign(test ? { kind: 'test-unsubscribe', campaignId } : { kind: 'unsubscribe', recipientId });
  const unsubscribeUrl = `${publicUrl}/u/${unsubscribeToken}`;
  const rendered = ctx.compiled.render(contact, {
    open: `${publicUrl}/t/o/${signer.sign(test ? { kind: 'test-open', campaignId } : { kind: 'open', recipientId })}`,
    click: (link) => `${publicUrl}/t/c/${signer.sign(test ? { kind: 'test-click', campaignId, link } : { kind: 'click', recipientId, link })}`,
    unsubscribe: unsubscribeUrl,
  });
  const fromEmail = campaign.from_email ?? '';
  const domain = domainOf(fromEmail);
  return {
    accountId: campaign.account_id,
    campaignId: campaign.id,
    from: { name: campaign.from_name, address: fromEmail },
    to: contact.email,
    replyTo: campaign.reply_to,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId: test ? `<test.${randomUUID()}@${domain}>` : messageIdFor(signer, campaign.id, recipientId, domain),
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>, <mailto:unsubscribe@${domain}?subject=unsubscribe%20${unsubscribeToken}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
