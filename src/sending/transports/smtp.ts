import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { toNodemailer } from './nodemailer-message.ts';
import { outcomeOfError, type MailTransport, type OutgoingMessage, type SendOutcome } from './transport.ts';

export interface SmtpOptions {
  /** smtp:// or smtps://, credentials in the URL */
  url: string;
  /** open connections to the server */
  maxConnections: number;
  /** messages per second across the pool; 0 = unlimited */
  messagesPerSecond: number;
}

/** Sends through nodemailer's pooled SMTP transport. */
export class SmtpTransport implements MailTransport {
  readonly name = 'smtp';
  private readonly transporter: Transporter;

  constructor(opts: SmtpOptions, logger: Logger) {
    const url = new URL(opts.url);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('SMTP_URL must start with smtp:// or smtps://');
    this.transporter = nodemailer.createTransport({
      pool: true,
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      maxConnections: opts.maxConnections,
      maxMessages: Infinity,
      ...(opts.messagesPerSecond > 0 ? { rateDelta: 1000, rateLimit: opts.messagesPerSecond } : {}),
      // A local or test server may present a self-signed certificate; STARTTLS is still used when offered.
      tls: { rejectUnauthorized: url.searchParams.get('tls_reject_unauthorized') !== 'false' },
      logger: false,
    });
    this.transporter.on('error', (err: Error) => logger.warn({ err: err.message }, 'smtp pool error'));
  }

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    try {
      await this.transporter.sendMail(toNodemailer(message));
      return { kind: 'sent' };
    } catch (err) {
      return outcomeOfError(err);
    }
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}
