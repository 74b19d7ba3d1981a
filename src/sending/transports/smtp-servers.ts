import { emailDomain } from '../../domain/shared/email-address.ts';
import type { Logger } from 'pino';
import { smtpUrlForDisplay, type SmtpServers } from '../../config-mail.ts';
import { ServerSelection } from './server-selection.ts';
import { SmtpTransport } from './smtp.ts';
import type { MailTransport, OutgoingMessage, SendOutcome } from './transport.ts';

/** One server as this transport uses it. */
interface Server {
  /** for log lines: the URL without its password */
  label: string;
  transport: MailTransport;
}

/**
 * Servers that share the mail of their From domains (D23): least-busy, failing ones left out for a
 * while (server-selection.ts). A message whose server failed at the transport level (no answer,
 * connection refused, a 421 greeting: `transportFailure`) is tried on the next server in use before
 * a transport failure is reported upward. An answer to RCPT or DATA, 4xx or 5xx, is the recipient's
 * and is returned as it is: sent elsewhere, a 5xx would hide a bounce and a 4xx after DATA could
 * mail twice. (A connection lost after DATA but before its answer is a transport failure and may
 * arrive twice; a single server has the same risk, since the dispatcher retries it later too.)
 */
export class ServerGroup implements MailTransport {
  readonly name = 'smtp';
  private readonly selection: ServerSelection;

  constructor(
    private readonly servers: Server[],
    settings: Pick<SmtpServers, 'failuresToLeaveOut' | 'cooldownMs'>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.selection = new ServerSelection(servers.length, settings);
  }

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    const tried = new Set<number>();
    let last: SendOutcome | null = null;
    for (let i = this.selection.pick(this.now()); i !== null; i = this.selection.pick(this.now(), tried)) {
      tried.add(i);
      this.selection.started(i);
      const outcome = await this.servers[i].transport.send(message);
      if (outcome.kind !== 'deferred' || !outcome.transportFailure) {
        this.selection.answered(i);
        return outcome;
      }
      const verdict = this.selection.failed(i, this.now());
      if (verdict.leftOut) this.logger.warn({ server: this.servers[i].label, until: new Date(verdict.until).toISOString(), err: outcome.error }, 'mail server left out after failures (D23)');
      last = outcome;
    }
    return last ?? { kind: 'deferred', error: 'every mail server is left out after failing; they are tried again after their cool-down', transportFailure: true };
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.transport.close()));
  }
}

/** SMTP_URL with several servers and/or SMTP_ROUTES (D23): each From domain's mail goes to its routed server, the rest to the spread. */
export class SmtpServersTransport implements MailTransport {
  readonly name = 'smtp';

  constructor(
    /** SMTP_URL's servers: a ServerGroup, or the one server */
    private readonly spread: MailTransport,
    /** From domain (lowercase) -> its routed server */
    private readonly routes: ReadonlyMap<string, MailTransport>,
  ) {}

  send(message: OutgoingMessage): Promise<SendOutcome> {
    const routed = this.routes.get(emailDomain(message.from.address));
    return (routed ?? this.spread).send(message);
  }

  async close(): Promise<void> {
    await Promise.all([this.spread, ...new Set(this.routes.values())].map((t) => t.close()));
  }
}

/** Pool settings each server gets. */
export interface SmtpPoolSettings {
  maxConnections: number;
  /** SEND_RATE, for the whole process; 0 = unlimited */
  messagesPerSecond: number;
}

/**
 * The transport for SMTP_URL and SMTP_ROUTES. One URL and no routes is a plain SmtpTransport, as
 * before D23: nothing is added to the path of each message. Otherwise each distinct server gets
 * its own pool of `maxConnections`, and SEND_RATE is shared out evenly over the servers (rounded
 * up), so the process stays near the rate it was given. A routed server is used alone: with no
 * other server to turn to, leaving it out would only fail its mail sooner, so the dispatcher's
 * retries (SEND_RETRY_BASE_MS) handle its failures as they handle a single server's.
 */
export function smtpTransportFor(smtp: SmtpServers, pool: SmtpPoolSettings, logger: Logger): MailTransport {
  const distinctUrls = [...new Set([...smtp.urls, ...smtp.routes.map((r) => r.url)])];
  const messagesPerSecond = pool.messagesPerSecond > 0 ? Math.ceil(pool.messagesPerSecond / distinctUrls.length) : 0;
  const server = (url: string): Server => ({ label: smtpUrlForDisplay(url), transport: new SmtpTransport({ url, maxConnections: pool.maxConnections, messagesPerSecond }, logger) });
  const spread = smtp.urls.length === 1 ? server(smtp.urls[0]).transport : new ServerGroup(smtp.urls.map(server), smtp, logger);
  if (smtp.routes.length === 0) return spread;
  const routed = new Map([...new Set(smtp.routes.map((r) => r.url))].map((url) => [url, server(url).transport]));
  return new SmtpServersTransport(spread, new Map(smtp.routes.map((r) => [r.domain, routed.get(r.url)!])));
}
