import type { Logger } from 'pino';
import type { SMTPServer } from 'smtp-server';
import { InboundSmtpServer, readWithin, smtpReply as reply, type InboundSmtpListen } from '../inbound-smtp/inbound-smtp-server.ts';
import { BOUNCE_MAX_BYTES, type BounceMailOutcome, type BounceMailService } from './bounce-mail.service.ts';

/** Connections open at once: bounces come in a trickle, and each holds at most 1 MB while it is read. */
const MAX_CONNECTIONS = 50;
/** A client silent this long is dropped. */
const SOCKET_TIMEOUT_MS = 30_000;

/** The reply at the end of DATA for what handling the message did. */
function replyTo(outcome: BounceMailOutcome): Error | null {
  switch (outcome.kind) {
    case 'recorded':
    case 'duplicate':
    case 'ignored':
      return null;
    case 'malformed':
      return reply(550, '5.6.0 Not a delivery status notification (RFC 3464) or feedback report (RFC 5965)');
    case 'unmatched':
      return reply(550, '5.1.1 No such message');
    case 'not-sent':
      // The report beat the sender's own record of the message: the reporting server retries.
      return reply(451, '4.3.0 Message not recorded as sent yet, try again later');
    case 'stopped':
      // Issue 28: its parse was ended at the limit; offered again it would be again.
      return reply(550, `5.6.0 Message ${outcome.reason} (the limit for a bounce message), not read`);
    case 'busy':
      return reply(451, `4.7.0 ${outcome.reason}, try again later`);
  }
}

export type BounceReceiverOptions = InboundSmtpListen;

/**
 * D23: the receiving SMTP server for bounce addresses (BOUNCE_SMTP_PORT). It takes one recipient
 * per message, and only a `bounce+<token>@BOUNCE_DOMAIN` whose token verifies: any other address
 * is 550 at RCPT, so it relays nothing and stores nothing. Messages are bounded (1 MB, read into
 * memory only up to that; BOUNCE_PARSE_MS to parse, on a parse thread that is ended past it
 * (issue 28); 50 connections) and answered by what they report: 250 once applied or when there
 * is nothing to apply, 550 when they are no report, name no sent message or were not parsed in
 * time, 451 when the message they name is not recorded as sent yet or when two messages of the
 * same address already wait to be parsed. Plain SMTP: no AUTH, no STARTTLS.
 */
export class BounceReceiver extends InboundSmtpServer {
  constructor(
    private readonly bounces: BounceMailService,
    options: BounceReceiverOptions,
    logger: Logger,
  ) {
    super(options, logger, 'bounce receiver');
  }

  protected async create(Server: typeof SMTPServer): Promise<SMTPServer> {
    await this.bounces.start();
    return new Server({
      secure: false,
      disabledCommands: ['AUTH', 'STARTTLS'],
      authOptional: true,
      logger: false,
      disableReverseLookup: true,
      size: BOUNCE_MAX_BYTES,
      rejectOversized: true,
      maxClients: MAX_CONNECTIONS,
      maxRecipients: 1,
      socketTimeout: SOCKET_TIMEOUT_MS,
      closeTimeout: 1000,
      onRcptTo: (address, session, callback) => {
        if (this.bounces.targetOfAddress(address.address) !== null) return callback();
        this.logger.warn({ remote: session.remoteAddress, rcpt: address.address }, 'bounce receiver: unknown recipient refused');
        callback(reply(550, '5.1.1 No such bounce address'));
      },
      onData: (stream, session, callback) => {
        readWithin(stream, BOUNCE_MAX_BYTES).then((source) => {
          if (source === null) return callback();
          const rcpt = session.envelope.rcptTo[0]?.address ?? '';
          const target = this.bounces.targetOfAddress(rcpt);
          if (target === null) return callback(reply(550, '5.1.1 No such bounce address'));
          const remote = session.remoteAddress;
          this.bounces
            .handle(source, { target, remoteAddress: remote, sender: remote })
            .then((outcome) => {
              this.bounces.log(outcome, { via: 'smtp', remote: session.remoteAddress, rcpt });
              callback(replyTo(outcome));
            })
            .catch((err: unknown) => {
              this.logger.error({ err, rcpt }, 'bounce receiver: could not apply a message');
              callback(reply(451, '4.3.0 Temporary failure, try again later'));
            });
        }, callback);
      },
    });
  }
}
