import type { Logger } from 'pino';
import type { SMTPServer, SMTPServerAuthentication, SMTPServerSession } from 'smtp-server';
import type { SubmissionConfig } from '../config-submission.ts';
import type { ApiKeyService } from '../domain/api-keys/api-keys.service.ts';
import type { AuthenticatedKey } from '../domain/api-keys/key-cache.ts';
import { grants } from '../domain/api-keys/permissions.ts';
import type { UsageRecorder } from '../domain/api-keys/usage-recorder.ts';
import { MESSAGE_LIMITS } from '../domain/messages/message.ts';
import type { MessageService } from '../domain/messages/messages.service.ts';
import { normaliseEmail } from '../domain/shared/email-address.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import { InboundSmtpServer, readWithin, smtpReply as reply } from '../inbound-smtp/inbound-smtp-server.ts';
import type { AccountRateLimiter } from '../rate-limit/account-rate-limiter.ts';
import { envelopeFactsOf, HeaderBlockTooLarge } from './submitted-envelope.ts';
import { HEADER_BLOCK_BYTES_MAX, insecureAuthRefusal } from './submission-rules.ts';

/** Connections open at once: each holds at most one message (10 MB) in memory while it is read. */
const MAX_CONNECTIONS = 100;
/** A client silent this long is dropped. */
const SOCKET_TIMEOUT_MS = 60_000;
/** What a submitted message counts as in the key's usage (D9's top endpoints). */
const USAGE_METHOD = 'SMTP';
const USAGE_ROUTE = 'submission';

/** What a session holds once AUTH succeeded: the key itself, to look it up again at each MAIL FROM (a key revoked meanwhile stops there). */
interface SubmissionUser {
  rawKey: string;
  key: AuthenticatedKey;
}

export interface SubmissionDeps {
  apiKeys: ApiKeyService;
  usage: UsageRecorder;
  messages: MessageService;
  /** D10: the same budget the account's API requests spend (shared with the HTTP app in a process) */
  rateLimiter: AccountRateLimiter;
}

/**
 * D25.7: SMTP submission (RFC 6409) on SMTP_SUBMISSION_PORT. AUTH PLAIN or LOGIN, any user name,
 * an API key with `campaigns.send` as the password, checked by the same service as the API's keys
 * (a revoked, expired or unknown key, or one without the permission: 535). MAIL FROM before AUTH:
 * 530. Each RCPT spends one request of the account's rate limit (451 when spent); at most 50 (452,
 * RFC 5321's too many recipients). A message over 10 MB: 552 while it is read, and nothing kept.
 * An accepted message becomes one transactional message per recipient (MessageService.submit),
 * its source sent as submitted.
 */
export class SubmissionServer extends InboundSmtpServer {
  constructor(
    private readonly deps: SubmissionDeps,
    private readonly options: SubmissionConfig,
    logger: Logger,
  ) {
    super(options, logger, 'smtp submission');
  }

  protected listeningFields(): Record<string, unknown> {
    return { starttls: this.options.tls !== null };
  }

  protected async create(Server: typeof SMTPServer): Promise<SMTPServer> {
    const tls = this.options.tls;
    return new Server({
      secure: false,
      ...(tls ? { key: tls.key, cert: tls.cert } : {}),
      disabledCommands: tls ? [] : ['STARTTLS'],
      authMethods: ['PLAIN', 'LOGIN'],
      // smtp-server's own 538 would refuse loopback clients too; D25.7's rule is applied in onAuth.
      allowInsecureAuth: true,
      authOptional: false,
      authRequiredMessage: '5.7.0 Authentication required: AUTH with an API key as the password first',
      logger: false,
      disableReverseLookup: true,
      size: MESSAGE_LIMITS.smtpMessageBytesMax,
      rejectOversized: true,
      maxRecipients: MESSAGE_LIMITS.smtpRecipientsMax,
      maxClients: MAX_CONNECTIONS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      closeTimeout: 1000,
      onAuth: (auth, session, callback) => {
        this.authenticate(auth, session).then(
          (user) => callback(null, { user }),
          (err: Error) => callback(err),
        );
      },
      onMailFrom: (_address, session, callback) => {
        this.currentKey(session).then(
          () => callback(),
          (err: Error) => callback(err),
        );
      },
      onRcptTo: (address, session, callback) => {
        this.admitRecipient(address.address, session).then(
          () => callback(),
          (err: Error) => callback(err),
        );
      },
      onData: (stream, session, callback) => {
        readWithin(stream, MESSAGE_LIMITS.smtpMessageBytesMax)
          .then((source) => (source === null ? undefined : this.accept(source, session)))
          .then(
            (answer) => callback(null, answer),
            (err: Error) => callback(err),
          );
      },
    });
  }

  /** The password is an API key; the user name is not looked at. Neither is ever logged. */
  private async authenticate(auth: SMTPServerAuthentication, session: SMTPServerSession): Promise<SubmissionUser> {
    const refusal = insecureAuthRefusal({ secure: session.secure, remoteAddress: session.remoteAddress }, this.options.allowInsecure, this.options.tls !== null);
    if (refusal) throw reply(538, refusal);
    const rawKey = auth.password ?? '';
    const key = await this.keyOf(rawKey);
    return { rawKey, key };
  }

  private async keyOf(rawKey: string): Promise<AuthenticatedKey> {
    const key = rawKey ? await this.deps.apiKeys.authenticate(rawKey) : null;
    if (!key) throw reply(535, '5.7.8 Authentication failed: the password must be an active API key');
    if (!grants(key.permissions, ['campaigns.send'])) throw reply(535, '5.7.8 Authentication failed: this API key lacks the permission campaigns.send');
    return key;
  }

  /** The session's key as it is now: revoked or expired since AUTH, the transaction is refused. */
  private async currentKey(session: SMTPServerSession): Promise<AuthenticatedKey> {
    const user = session.user as unknown as SubmissionUser | undefined;
    if (!user) throw reply(530, '5.7.0 Authentication required');
    try {
      return await this.keyOf(user.rawKey);
    } catch {
      throw reply(530, '5.7.0 Authentication required: the API key of this session is no longer valid');
    }
  }

  /** A recipient: a valid address, and one request of the account's rate limit (D10), so each message it becomes is counted. */
  private async admitRecipient(address: string, session: SMTPServerSession): Promise<void> {
    try {
      normaliseEmail(address, 'recipient');
    } catch (err) {
      if (err instanceof ValidationError) throw reply(553, `5.1.3 ${err.message}`);
      throw err;
    }
    const key = await this.currentKey(session);
    const decision = await this.deps.rateLimiter.check(key.accountId, key.plan);
    if (decision && !decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.exceeded.resetMs / 1000));
      throw reply(451, `4.7.1 Rate limit exceeded (${decision.exceeded.limit} messages and requests per window of the plan): try this recipient again in ${seconds} s`);
    }
  }

  /** The message, whole and within its size: stored as one transactional message per recipient. */
  private async accept(source: Buffer, session: SMTPServerSession): Promise<string> {
    const key = await this.currentKey(session);
    try {
      const facts = await envelopeFactsOf(source);
      const mailFrom = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
      const fromEmail = normaliseEmail(facts.fromEmail ?? mailFrom, 'the From address');
      const replyTo = facts.replyTo ? safeAddress(facts.replyTo) : null;
      const recipients = session.envelope.rcptTo.map((r) => r.address);
      const stored = await this.deps.messages.submit(key.accountId, {
        from_email: fromEmail,
        from_name: facts.fromName,
        reply_to: replyTo,
        subject: facts.subject,
        recipients,
        mime: source,
      });
      this.deps.usage.record(key.keyId, USAGE_METHOD, USAGE_ROUTE);
      return `2.0.0 Accepted: ${stored.length} message${stored.length === 1 ? '' : 's'} (${stored.map((m) => `${m.id} ${m.status}`).join(', ')})`;
    } catch (err) {
      if (err instanceof HeaderBlockTooLarge) throw reply(552, `5.3.4 The header block is over ${HEADER_BLOCK_BYTES_MAX} bytes`);
      if (err instanceof ValidationError) throw reply(550, `5.6.0 ${err.message}`);
      this.logger.error({ err, accountId: key.accountId }, 'smtp submission: could not store a message');
      throw reply(451, '4.3.0 Temporary failure, try again later');
    }
  }
}

/** Reply-To is kept for the message list only when it is a valid address; the source carries it either way. */
function safeAddress(raw: string): string | null {
  try {
    return normaliseEmail(raw, 'reply_to');
  } catch {
    return null;
  }
}
