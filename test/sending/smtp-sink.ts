import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server for tests, in this process on 127.0.0.1: it accepts everything unless a
 * `respond` hook says otherwise, parses each accepted message with mailparser and keeps it with
 * its raw source. Plain SMTP (no STARTTLS); optional AUTH (PLAIN/LOGIN) with given credentials.
 *
 *   const sink = await startSmtpSink();                       // or { auth: { user, pass } }
 *   const server = await startTestServer({ SMTP_URL: sink.url });
 *   sink.respond(({ stage, address }) => (stage === 'rcpt' && address === 'x@b.test' ? { code: 550 } : undefined));
 *   const [m] = await sink.waitFor(1);
 *   await sink.close();
 */

/** Where a hook is asked: a new connection, MAIL FROM, each RCPT TO, or the end of DATA. */
export type SinkStage = 'connect' | 'mail' | 'rcpt' | 'data';

export interface SinkContext {
  stage: SinkStage;
  /** rcpt: the recipient; mail: the sender; data: the first recipient of the transaction; connect: '' */
  address: string;
  /** data: every accepted recipient of the transaction; rcpt: those accepted so far */
  recipients: string[];
  /** how often this (stage, address) has been asked, this call included (1 on the first try) */
  attempt: number;
  /** data: the raw message (already received in full); otherwise undefined */
  raw?: string;
}

/** An answer from a hook: an SMTP reply code (4xx or 5xx) and optional text. */
export interface SinkAnswer {
  code: number;
  message?: string;
}

export type SinkResponder = (ctx: SinkContext) => SinkAnswer | undefined | void;

export interface ReceivedMessage extends ParsedMail {
  /** the message exactly as it came over DATA (header lines unfolded only by you) */
  raw: string;
  /** the SMTP envelope (lowercased addresses) */
  envelope: { from: string; to: string[] };
}

/** Every decision the sink took, in order: handy to see retries and rejections. */
export interface SinkEvent {
  stage: SinkStage | 'auth';
  address: string;
  /** the code answered: 250 / 235 for accepted, else the hook's (or 535 for a failed login) */
  code: number;
}

export interface SmtpSinkOptions {
  /** require AUTH with these credentials; `url` then carries them */
  auth?: { user: string; pass: string };
  /** listen on this port (e.g. to bring a sink back where a closed one was); default: any free port */
  port?: number;
  /** answers per stage/address; can be replaced later with `respond` */
  respond?: SinkResponder;
  /** hold each accepted message this long before answering 250 to DATA (a slow server) */
  dataDelayMs?: number;
}

export interface SmtpSink {
  port: number;
  /** smtp://user:pass@127.0.0.1:port (with auth) or smtp://127.0.0.1:port */
  url: string;
  /** accepted messages, in the order their DATA completed */
  messages: ReceivedMessage[];
  events: SinkEvent[];
  /** resolves with `messages` once at least `n` are in; rejects after `timeoutMs` (default 10 s) */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  /** replaces the hook (undefined: accept everything) */
  respond(fn: SinkResponder | undefined): void;
  /** messages whose envelope includes `address` (case-insensitive) */
  to(address: string): ReceivedMessage[];
  /** forget received messages, events and attempt counts */
  clear(): void;
  /** stops listening and drops open connections */
  close(): Promise<void>;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = [];
  const events: SinkEvent[] = [];
  const attempts = new Map<string, number>();
  const waiters = new Set<() => void>();
  let responder: SinkResponder | undefined = opts.respond;
  /** set by close(): a message whose parsing ends after it was never accepted (no 250 reached the sender) */
  let closed = false;

  const ask = (stage: SinkStage, address: string, recipients: string[], raw?: string): Error | null => {
    const counterKey = `${stage}\u0000${address}`;
    const attempt = (attempts.get(counterKey) ?? 0) + 1;
    attempts.set(counterKey, attempt);
    const answer = responder?.({ stage, address, recipients, attempt, raw }) ?? undefined;
    if (!answer) {
      events.push({ stage, address, code: 250 });
      return null;
    }
    events.push({ stage, address, code: answer.code });
    const err = new Error(answer.message ?? `${answer.code >= 500 ? 'Rejected' : 'Try again later'} by test sink`) as Error & { responseCode: number };
    err.responseCode = answer.code;
    return err;
  };

  const envelopeTo = (session: SMTPServerSession) => session.envelope.rcptTo.map((r) => r.address.toLowerCase());

  const server = new SMTPServer({
    secure: false,
    logger: false,
    disabledCommands: opts.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    size: 50 * 1024 * 1024,
    closeTimeout: 100,
    onConnect(_session, callback) {
      callback(ask('connect', '', []) ?? undefined);
    },
    onAuth(auth, _session, callback) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) {
        events.push({ stage: 'auth', address: auth.username ?? '', code: 235 });
        return callback(null, { user: auth.username });
      }
      events.push({ stage: 'auth', address: auth.username ?? '', code: 535 });
      const err = new Error('Invalid username or password') as Error & { responseCode: number };
      err.responseCode = 535;
      return callback(err);
    },
    onMailFrom(address, _session, callback) {
      callback(ask('mail', address.address.toLowerCase(), []) ?? undefined);
    },
    onRcptTo(address, session, callback) {
      callback(ask('rcpt', address.address.toLowerCase(), envelopeTo(session)) ?? undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = envelopeTo(session);
        const refusal = ask('data', to[0] ?? '', to, raw);
        if (refusal) return callback(refusal);
        simpleParser(raw)
          .then((parsed) => {
            if (closed) return callback(new Error('closing'));
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address.toLowerCase() : '';
            messages.push(Object.assign(parsed, { raw, envelope: { from, to } }));
            for (const wake of [...waiters]) wake();
            // 250 only once the message is recorded: whatever the sender saw accepted is here
            if (opts.dataDelayMs) setTimeout(callback, opts.dataDelayMs);
            else callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  server.on('error', () => undefined); // client resets during tests are expected

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once('error', onError);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  const credentials = opts.auth ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@` : '';

  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    messages,
    events,
    waitFor(n, timeoutMs = 10_000) {
      if (messages.length >= n) return Promise.resolve(messages);
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (messages.length < n) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`SMTP sink: expected ${n} message(s) within ${timeoutMs} ms, got ${messages.length}`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    respond(fn) {
      responder = fn;
    },
    to(address) {
      const wanted = address.toLowerCase();
      return messages.filter((m) => m.envelope.to.includes(wanted));
    },
    clear() {
      messages.length = 0;
      events.length = 0;
      attempts.clear();
    },
    close() {
      closed = true;
      return new Promise<void>((resolve) => {
        for (const connection of (server as unknown as { connections: Set<{ close(): void }> }).connections) connection.close();
        server.close(() => resolve());
      });
    },
  };
}
