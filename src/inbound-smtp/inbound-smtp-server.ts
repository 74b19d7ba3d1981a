import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { SMTPServer, SMTPServerDataStream } from 'smtp-server';

/** An SMTP reply to a command: smtp-server answers the error's responseCode with its message. */
export function smtpReply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * A message's DATA, kept in memory only up to `maxBytes`: null when it went past them (then
 * smtp-server answers 552 itself, with its `size` and `rejectOversized` options set to the same).
 */
export function readWithin(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(stream.sizeExceeded ? null : Buffer.concat(chunks)));
  });
}

export interface InboundSmtpListen {
  port: number;
  host: string;
}

/**
 * What the service's own SMTP servers share (D23's bounce receiver, D25.7's submission endpoint):
 * smtp-server loaded only by a process that starts one, listening on a port (0 picks a free one),
 * connection errors kept out of the error log, and a stop that waits for the server to close.
 * A subclass makes the server with its own rules.
 */
export abstract class InboundSmtpServer {
  private server: SMTPServer | null = null;
  private boundPort: number | null = null;

  constructor(
    private readonly listenOn: InboundSmtpListen,
    protected readonly logger: Logger,
    /** names it in its log lines */
    private readonly label: string,
  ) {}

  /** The port it listens on; null before start. */
  get port(): number | null {
    return this.boundPort;
  }

  /** The server with the subclass's options and handlers; `Server` is smtp-server's class, loaded by start. */
  protected abstract create(Server: typeof SMTPServer): Promise<SMTPServer>;

  /** What the "listening" log line says besides host and port. */
  protected listeningFields(): Record<string, unknown> {
    return {};
  }

  async start(): Promise<void> {
    if (this.server) return;
    // Loaded only by a process that starts it: smtp-server, mailparser and imapflow together
    // added 39 MB to a process's RSS, which every process (the sender's 200 MB included) would
    // otherwise carry whether it handles inbound mail or not.
    const { SMTPServer } = await import('smtp-server');
    const server = await this.create(SMTPServer);
    // A client that resets its connection is no concern of the service's.
    server.on('error', (err) => this.logger.debug({ err: err.message }, `${this.label}: connection error`));
    const { port, host } = this.listenOn;
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server.server.address() as AddressInfo).port;
    this.logger.info({ host, port: this.boundPort, ...this.listeningFields() }, `${this.label} listening`);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
