/**
 * For the bounce receiver's tests: a server with its receiver started, and a plain SMTP client, where nodemailer is too coarse: it connects
 * from a chosen local address (a distinct reporting network: Linux answers on all of 127.0.0.0/8),
 * and sends a message's content without its final "." until the test says, so several messages
 * can be brought to the brink and then ended in a known order.
 */
import { connect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, tenant, type Tenant } from './send-helpers.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

export const BOUNCE_DOMAIN = 'bounces.acme.test';

export interface BounceTestServer {
  sink: SmtpSink;
  server: TestServer;
  /** the bounce receiver's port */
  port: number;
  t: Tenant;
  close(): Promise<void>;
}

/** A sink, a server sending to it with BOUNCE_DOMAIN and its bounce receiver started on 127.0.0.1, and a tenant; `env` adds to the server's. */
export async function startBounceTestServer(env: Record<string, string>): Promise<BounceTestServer> {
  const sink = await startSmtpSink();
  const server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, BOUNCE_DOMAIN, BOUNCE_SMTP_PORT: '0', BOUNCE_SMTP_HOST: '127.0.0.1', ...env });
  await server.bounceReceiver!.start();
  return {
    sink,
    server,
    port: server.bounceReceiver!.port!,
    t: await tenant(server),
    async close() {
      await server.close();
      await sink.close();
    },
  };
}

export interface SmtpReply {
  code: number;
  text: string;
}

export interface PendingMessage {
  /** Sends the final "." and resolves with the server's reply to the message. */
  end(): Promise<SmtpReply>;
  close(): void;
}

class Session {
  private buffer = '';
  private waiting: ((reply: SmtpReply) => void) | null = null;

  constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      // A reply is complete at a line "NNN text" (not "NNN-text").
      const done = /(?:^|\r\n)(\d{3}) ([^\r\n]*)\r\n$/.exec(this.buffer);
      if (!done || !this.waiting) return;
      const resolve = this.waiting;
      this.waiting = null;
      this.buffer = '';
      resolve({ code: Number(done[1]), text: done[2] });
    });
  }

  reply(): Promise<SmtpReply> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.socket.once('error', reject);
      this.socket.once('close', () => reject(new Error('the connection closed before a reply')));
      this.socket.emit('data', ''); // a reply already buffered
    });
  }

  async command(line: string, expected: number): Promise<void> {
    this.socket.write(`${line}\r\n`);
    const answer = await this.reply();
    if (answer.code !== expected) throw new Error(`${line}: expected ${expected}, got ${answer.code} ${answer.text}`);
  }
}

/**
 * Connects from `localAddress`, says who it is, names the empty envelope sender (RFC 3464) and
 * `to`, and sends `raw` up to, not including, the end of data.
 */
export async function prepareMessage(port: number, localAddress: string, to: string, raw: string): Promise<PendingMessage> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  const session = new Session(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const greeting = await session.reply();
  if (greeting.code !== 220) throw new Error(`greeting: ${greeting.code} ${greeting.text}`);
  await session.command('EHLO reporter.test', 250);
  await session.command('MAIL FROM:<>', 250);
  await session.command(`RCPT TO:<${to}>`, 250);
  await session.command('DATA', 354);
  const body = raw.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  socket.write(body.endsWith('\r\n') ? body : `${body}\r\n`);
  return {
    end() {
      const reply = session.reply();
      socket.write('.\r\n');
      return reply;
    },
    close: () => socket.destroy(),
  };
}

/** One whole message, sent and answered. */
export async function sendMessage(port: number, localAddress: string, to: string, raw: string): Promise<SmtpReply> {
  const message = await prepareMessage(port, localAddress, to, raw);
  try {
    return await message.end();
  } finally {
    message.close();
  }
}
