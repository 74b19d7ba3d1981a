import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { BounceMailboxConfig } from '../config-mail.ts';
import { PollingLoop, yieldToEventLoop } from '../polling-loop.ts';
import { BOUNCE_MAX_BYTES, type BounceMailOutcome, type BounceMailService } from './bounce-mail.service.ts';

/** Messages handled per round; a fuller mailbox is worked through in rounds that follow at once. */
const ROUND_MESSAGES = 100;
/** Connecting, the greeting and each command must finish within these, so a dead server only costs a round. */
const CONNECT_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/**
 * D23: bounces and complaints read from a mailbox (BOUNCE_IMAP_URL), for operators whose bounce
 * address is a mailbox rather than this service's SMTP receiver. Every BOUNCE_IMAP_POLL_MS it
 * logs in, reads each unseen message (at most 1 MB of it) and applies it as the receiver would,
 * naming its message by a bounce address in X-Original-To, Delivered-To or To, else by the
 * signed Message-ID of the returned original (BounceMailService.handle); then it flags the
 * message \Seen, so it is never handled twice and stays for the operator to read. A message
 * whose sending is not recorded yet stays unseen for the next round. A server that is down or
 * refuses the login costs one round: logged (never the password), tried again after the wait.
 */
export class BounceMailboxPoller {
  private readonly loop: PollingLoop;

  constructor(
    private readonly bounces: BounceMailService,
    private readonly mailbox: BounceMailboxConfig,
    private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(
      () => this.runOnce(),
      mailbox.pollMs,
      (err) => this.logger.warn({ ...this.where(), err: errorText(err) }, 'bounce mailbox: could not poll, trying again later'),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One look at the mailbox; returns how many messages it handled (flagged \Seen). */
  async runOnce(): Promise<number> {
    // Loaded by the process that polls, as BounceReceiver.start loads its own library.
    const { ImapFlow } = await import('imapflow');
    const client = new ImapFlow({
      host: this.mailbox.host,
      port: this.mailbox.port,
      secure: this.mailbox.secure,
      auth: { user: this.mailbox.user, pass: this.mailbox.password },
      tls: { rejectUnauthorized: this.mailbox.rejectUnauthorized },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      greetingTimeout: CONNECT_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
    });
    // A dropped connection is also emitted as an event; the command waiting on it fails the round.
    client.on('error', () => undefined);
    await client.connect();
    try {
      const lock = await client.getMailboxLock(this.mailbox.mailbox);
      try {
        return await this.handleUnseen(client);
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  private async handleUnseen(client: ImapFlow): Promise<number> {
    const uids = (await client.search({ seen: false }, { uid: true })) || [];
    let handled = 0;
    for (const uid of uids) {
      if (handled >= ROUND_MESSAGES) break;
      // The source is read with BODY.PEEK, so reading it does not flag it: only handling does.
      const message = await client.fetchOne(String(uid), { uid: true, size: true, source: { maxLength: BOUNCE_MAX_BYTES } }, { uid: true });
      if (!message) continue;
      const outcome: BounceMailOutcome =
        (message.size ?? 0) > BOUNCE_MAX_BYTES || !message.source
          ? { kind: 'malformed', reason: `larger than ${BOUNCE_MAX_BYTES} bytes` }
          : await this.bounces.handle(message.source, { target: null, remoteAddress: null, sender: `imap:${this.mailbox.mailbox}` });
      this.bounces.log(outcome, { via: 'imap', mailbox: this.mailbox.mailbox, uid });
      if (outcome.kind === 'not-sent' || outcome.kind === 'busy') continue;
      await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
      handled++;
      await yieldToEventLoop();
    }
    return handled;
  }

  /** The mailbox, for logs: never the password. */
  private where() {
    return { host: this.mailbox.host, port: this.mailbox.port, user: this.mailbox.user, mailbox: this.mailbox.mailbox };
  }
}

function errorText(err: unknown): string {
  const e = err as { message?: string; responseText?: string; code?: string };
  return [e.message ?? String(err), e.responseText, e.code].filter(Boolean).join(': ');
}
