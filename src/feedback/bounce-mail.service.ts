import type { Logger } from 'pino';
import type { BounceConfig } from '../config-mail.ts';
import type { EngagementService, FeedbackOutcome } from '../engagement/engagement.service.ts';
import type { MessageEngagementService } from '../engagement/message-engagement.service.ts';
import { parseBounceAddress, parseMessageId } from '../sending/message.ts';
import { parseTransactionalMessageId } from '../sending/transactional-message.ts';
import type { BouncePayload, TokenSigner } from '../domain/shared/tokens.ts';
import { BounceParser } from './bounce-parser.ts';
import type { BounceMessage } from './bounce-report.ts';
import { reporterOfConnection, reporterOfMailbox } from './reporter.ts';

/** The most a message that comes back may hold (D23): a DSN or ARF report with the original's headers is a few KB. */
export const BOUNCE_MAX_BYTES = 1024 * 1024;

/** Where a received message came from. */
export interface MessageOrigin {
  /** what the SMTP envelope's bounce address names; null for a mailbox's copy, named by its headers */
  target: BounceTarget | null;
  /** the connecting address (SMTP); null for a mailbox's copy */
  remoteAddress: string | null;
  /** whose turn it takes in the parse queue: the connecting address, or the mailbox */
  sender: string;
}

/**
 * Which message a report is about: a campaign recipient row (with its campaign when a Message-ID
 * named it), or a transactional message (issue 31), by its VERP address or its Message-ID.
 */
export type BounceTarget = BouncePayload & { campaignId?: number };

/**
 * What handling one message did. `recorded`/`duplicate`: a hard bounce or complaint applied now,
 * or before (a replay); `ignored`: a report of no failure (4.x.x, 2.x.x, not-spam); `malformed`:
 * no report this install reads; `unmatched`: it names no message this install sent; `not-sent`:
 * it names a message whose sending is not recorded yet, so it should be offered again later;
 * `stopped`: its parse passed the time limit and was ended (issue 28); `busy`: its sender already
 * has as many messages waiting to be read as it may, so it should be offered again later.
 */
export type BounceMailOutcome =
  | { kind: 'recorded' | 'duplicate'; report: 'hard-bounce' | 'complaint'; target: BounceTarget }
  | { kind: 'ignored'; status: string; target: BounceTarget }
  | { kind: 'malformed'; reason: string }
  | { kind: 'unmatched'; reason: string }
  | { kind: 'not-sent'; target: BounceTarget }
  | { kind: 'stopped' | 'busy'; reason: string };

/**
 * D23: bounces and complaints that come back by mail, to the VERP Return-Path of each campaign
 * message (`bounce+<token>@BOUNCE_DOMAIN`). They are applied through the same EngagementService
 * calls as the providers' webhooks (feedback/provider-feedback.service.ts): a hard bounce marks
 * the row and the contact BOUNCED as D17.5 allows, suppresses the address (D19) and sends
 * email.bounced; a complaint likewise. Issue 31: a transactional message's bounce address or
 * Message-ID names the message, and MessageEngagementService applies it by the same rules
 * (message.bounced; a complaint gives no event).
 */
export class BounceMailService {
  /** BOUNCE_DOMAIN; without it no address is a bounce address, and only a returned Message-ID names a message */
  private readonly bounceDomain: string | null;
  private readonly parser: BounceParser;

  constructor(
    private readonly signer: TokenSigner,
    private readonly engagement: EngagementService,
    private readonly messageEngagement: MessageEngagementService,
    bounces: Pick<BounceConfig, 'domain' | 'parseMs'>,
    private readonly logger: Logger,
  ) {
    this.bounceDomain = bounces.domain;
    this.parser = new BounceParser(bounces.parseMs, logger);
  }

  /** Starts the parse threads (BounceParser.start); the receiver waits for them before it listens. */
  async start(): Promise<void> {
    await this.parser.start();
  }

  /** Ends the parse threads. */
  close(): Promise<void> {
    return this.parser.close();
  }

  /** The recipient row or message a bounce address names, or null for any other address or a tampered token. */
  targetOfAddress(address: string): BounceTarget | null {
    return this.bounceDomain === null ? null : parseBounceAddress(this.signer, address, this.bounceDomain);
  }

  /**
   * Handles a message received for `origin.recipientId` (the SMTP envelope's bounce address named
   * it), or, from a mailbox (`null`), for the message its headers name: a bounce address in
   * X-Original-To, Delivered-To or To, else the signed Message-ID of the returned original. It is
   * parsed on a parse thread, within BOUNCE_PARSE_MS (issue 28).
   */
  async handle(source: Buffer, origin: MessageOrigin): Promise<BounceMailOutcome> {
    const parsed = await this.parser.parse(source, origin.sender);
    if (parsed.kind !== 'parsed') return parsed;
    const { message } = parsed;
    const { report } = message;
    if (report.kind === 'malformed') return report;
    const target = origin.target ?? this.targetOf(message);
    if (!target) return { kind: 'unmatched', reason: 'names no bounce address and no Message-ID of a message sent from here' };
    if (report.kind === 'no-failure') return { kind: 'ignored', status: report.status, target };
    const outcome = await this.apply(target, report, origin, message);
    if (outcome === 'unmatched') return { kind: 'unmatched', reason: `${target.kind === 'bounce' ? `recipient ${target.recipientId}` : `message ${target.messageId}`} has no sent message` };
    if (outcome === 'not_sent') return { kind: 'not-sent', target };
    return { kind: outcome, report: report.kind, target };
  }

  /** A hard bounce or complaint, applied to a campaign recipient or (issue 31) a transactional message by the same rules. */
  private apply(target: BounceTarget, report: { kind: 'hard-bounce'; status: string } | { kind: 'complaint' }, origin: MessageOrigin, message: BounceMessage): Promise<FeedbackOutcome> {
    if (target.kind === 'message-bounce') {
      return report.kind === 'hard-bounce'
        ? this.messageEngagement.recordBounce(target.messageId, { hard: true, reason: `${report.status} reported by a delivery status notification` })
        : this.messageEngagement.recordComplaint(target.messageId, { deliveredOnly: true });
    }
    return report.kind === 'hard-bounce'
      ? this.engagement.recordBounce(target.recipientId, { campaignId: target.campaignId, hard: true })
      : this.engagement.recordComplaint(target.recipientId, {
          campaignId: target.campaignId,
          reporter: origin.remoteAddress !== null ? reporterOfConnection(origin.remoteAddress) : reporterOfMailbox(message.sender),
          deliveredOnly: true,
        });
  }

  /** Logs what handling a message did, never its content; `source` says where it came from. */
  log(outcome: BounceMailOutcome, source: Record<string, unknown>): void {
    if (outcome.kind === 'malformed' || outcome.kind === 'unmatched' || outcome.kind === 'stopped' || outcome.kind === 'busy') this.logger.warn({ ...source, outcome: outcome.kind, reason: outcome.reason }, 'bounce message not applied');
    else this.logger.info({ ...source, ...outcome, outcome: outcome.kind }, 'bounce message handled');
  }

  private targetOf(message: BounceMessage): BounceTarget | null {
    for (const address of message.addressedTo) {
      const target = this.targetOfAddress(address);
      if (target !== null) return target;
    }
    if (message.originalMessageId === null) return null;
    const ids = parseMessageId(this.signer, message.originalMessageId);
    if (ids) return { kind: 'bounce', recipientId: ids.recipientId, campaignId: ids.campaignId };
    const messageId = parseTransactionalMessageId(this.signer, message.originalMessageId);
    return messageId === null ? null : { kind: 'message-bounce', messageId };
  }
}
