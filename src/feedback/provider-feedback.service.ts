import type { KeyObject } from 'node:crypto';
import type { EngagementService, FeedbackOutcome } from '../engagement/engagement.service.ts';
import type { MessageEngagementService } from '../engagement/message-engagement.service.ts';
import { parseMessageId } from '../sending/message.ts';
import { parseTransactionalMessageId } from '../sending/transactional-message.ts';
import type { TokenSigner } from '../domain/shared/tokens.ts';
import { loadSendgridKey } from '../config.ts';
import { checkBodySignature, safeEqual } from '../domain/shared/signature.ts';
import { feedbackSecret } from './auth.ts';
import type { FeedbackEvent, FeedbackProvider } from './events.ts';
import { GENERIC_SIGNATURE_HEADER } from './generic.ts';
import { checkSendgridSignature, SENDGRID_SIGNATURE_HEADER, SENDGRID_TIMESTAMP_HEADER } from './sendgrid.ts';

export interface FeedbackRequest {
  /** `?token=` of the URL */
  token: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

export interface ApplyResult {
  /** bounce and complaint events found in the payload */
  received: number;
  /** of those, events naming a message this install sent (signed Message-ID, sent recipient) */
  matched: number;
  /** of those, events that changed something (a replay changes nothing) */
  recorded: number;
  /** events about a message not recorded as sent yet (in flight): the provider should retry */
  pending: number;
}

export type AuthResult = { ok: true } | { ok: false; reason: string };

const header = (headers: FeedbackRequest['headers'], name: string) => {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
};

/**
 * Bounces and complaints that arrive after sending (issue item 7): authenticates each provider's
 * request and applies its events to the recipients they name, each counted once.
 */
export class ProviderFeedbackService {
  private readonly secret: string;
  private readonly sendgridKey: KeyObject | null;

  constructor(
    private readonly signer: TokenSigner,
    private readonly engagement: EngagementService,
    private readonly messageEngagement: MessageEngagementService,
    config: { secret: string; sendgridWebhookPublicKey: string | null },
  ) {
    this.secret = feedbackSecret(config.secret);
    this.sendgridKey = config.sendgridWebhookPublicKey ? loadSendgridKey(config.sendgridWebhookPublicKey) : null;
  }

  /**
   * The URL token works for every provider. Besides it: the generic format's own HMAC signature,
   * and SendGrid's ECDSA signature when SENDGRID_WEBHOOK_PUBLIC_KEY is set. SNS signs with a
   * certificate it links to, which cannot be checked offline, so SES needs the token.
   */
  authenticate(provider: FeedbackProvider, req: FeedbackRequest): AuthResult {
    if (req.token !== undefined && safeEqual(req.token, this.secret)) return { ok: true };
    if (provider === 'generic') {
      const check = checkBodySignature(this.secret, header(req.headers, GENERIC_SIGNATURE_HEADER), req.rawBody, Date.now());
      if (check === 'valid') return { ok: true };
      if (check === 'expired') return { ok: false, reason: 'the X-Sendwell-Signature timestamp is more than 5 minutes away from now' };
      if (check === 'invalid') return { ok: false, reason: 'the X-Sendwell-Signature does not match the body' };
    }
    if (provider === 'sendgrid' && this.sendgridKey) {
      const signature = header(req.headers, SENDGRID_SIGNATURE_HEADER);
      if (checkSendgridSignature(this.sendgridKey, signature, header(req.headers, SENDGRID_TIMESTAMP_HEADER), req.rawBody)) return { ok: true };
      if (signature !== undefined) return { ok: false, reason: 'the SendGrid event webhook signature does not match the body' };
    }
    return { ok: false, reason: 'a valid webhook token (?token=, see `sendwell webhooks url`) or signature is required' };
  }

  /** Applies each event on its own; forged or unknown Message-IDs are skipped (not matched). */
  async apply(events: FeedbackEvent[]): Promise<ApplyResult> {
    const result: ApplyResult = { received: events.length, matched: 0, recorded: 0, pending: 0 };
    for (const event of events) {
      const outcome = await this.applyOne(event);
      if (outcome === null) continue;
      if (outcome === 'not_sent') result.pending++;
      if (outcome === 'recorded' || outcome === 'duplicate') result.matched++;
      if (outcome === 'recorded') result.recorded++;
    }
    return result;
  }

  /** One event, to the campaign recipient or (issue 31) the transactional message its Message-ID names; null when it names neither. */
  private async applyOne(event: FeedbackEvent): Promise<FeedbackOutcome | null> {
    const ids = parseMessageId(this.signer, event.messageId);
    if (ids) {
      const opts = { campaignId: ids.campaignId, at: event.occurredAt };
      return event.kind === 'bounce' ? this.engagement.recordBounce(ids.recipientId, { ...opts, hard: event.hard ?? true }) : this.engagement.recordComplaint(ids.recipientId, opts);
    }
    const messageId = parseTransactionalMessageId(this.signer, event.messageId);
    if (messageId === null) return null;
    const hard = event.hard ?? true;
    return event.kind === 'bounce'
      ? this.messageEngagement.recordBounce(messageId, { hard, reason: `${hard ? 'hard' : 'soft'} bounce reported by the mail provider`, at: event.occurredAt })
      : this.messageEngagement.recordComplaint(messageId, { at: event.occurredAt });
  }
}
