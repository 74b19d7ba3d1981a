import type { FastifyInstance } from 'fastify';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';
import v8 from 'node:v8';
import type { Config } from './config.ts';
import { createCore, type Core } from './core.ts';
import type { InboundSmtpServer } from './inbound-smtp/inbound-smtp-server.ts';
import { createBounceReceiver, createSenderWorkers, createSubmissionServer, type SenderWorkers } from './workers.ts';

/** api: HTTP only; sender: the background work only (sending, scheduling, automation runs, webhook deliveries); all: both (the one-machine default). */
export type Role = 'api' | 'sender' | 'all';

export interface RunningServer {
  /** null for a sender-only process, which serves no HTTP */
  app: FastifyInstance | null;
  core: Core;
  /** the background work; null for an API-only process, which builds none of it */
  sender: SenderWorkers | null;
  url: string | null;
  stop(): Promise<void>;
}

/** How long a clean stop lets kept-alive connections drain before the idle ones are closed. */
const DRAIN_MS = 2000;

/**
 * First step of a clean stop: stop listening (new connections are refused), but keep the
 * kept-alive connections for a moment. http.Server.close() destroys idle ones at once, and a
 * client that is just sending its next request on one gets a reset, not knowing whether its write
 * happened. While closing, Fastify answers each request on such a connection 503 with
 * `Connection: close`, so busy clients leave cleanly; whatever is still open after the window is
 * handled by app.close() as before (idle closed, in-flight awaited).
 */
async function drainConnections(server: HttpServer, ms: number): Promise<void> {
  NetServer.prototype.close.call(server);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await new Promise<number>((resolve) => server.getConnections((err, n) => resolve(err ? 0 : n)));
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts the service for a role: migrations, the HTTP app and/or the sender, and a clean stop
 * that finishes in-flight work, flushes usage counters and closes pools.
 */
export async function startServer(config: Config, role: Role = 'all'): Promise<RunningServer> {
  if (role === 'sender') {
    // A sender's live heap stays small (about 25 MB after each full GC, measured with
    // --trace-gc), but it allocates fast, and by default V8 lets the heap grow to about four
    // times the live size between full GCs: RSS went past 240 MB at 50 messages in flight.
    // Growing it by 30% instead keeps the sender under the sending issue's 200 MB (see
    // bench/RESULTS.md, sending). V8 reads this flag at each GC, so setting it now takes effect.
    v8.setFlagsFromString('--heap-growing-percent=30');
  }
  const core = await createCore(config);
  // Issue 29, item 3: each role builds only its own workers.
  const sender = role !== 'api' ? createSenderWorkers(core) : null;
  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (role !== 'sender') {
    // Loaded only here: a sender-only process never needs the HTTP stack, and leaving it out
    // keeps the sender's memory down (the sending issue's RSS target).
    const { buildApp } = await import('./app.ts');
    const { createRequestLimiters } = await import('./http/http-parts.ts');
    const limiters = createRequestLimiters(core);
    const http = await buildApp(core, limiters);
    http.addHook('preClose', () => drainConnections(http.server, DRAIN_MS));
    // D23: the bounce receiver is an inbound endpoint like the provider webhooks, so it runs
    // where HTTP is served; a sender-only process listens on nothing. D25.7's SMTP submission
    // likewise, its messages spending the API's rate limit. Their stop is hooked before the app
    // listens: Fastify takes no hook after that.
    const inbound: [InboundSmtpServer | null, string, { host: string; port: number } | null][] = [
      [createBounceReceiver(core), 'BOUNCE_SMTP_PORT', config.bounces.smtp],
      [createSubmissionServer(core, limiters.rateLimiter), 'SMTP_SUBMISSION_PORT', config.submission],
    ];
    http.addHook('onClose', async () => {
      for (const [endpoint] of inbound) await endpoint?.stop();
    });
    url = await http.listen({ port: config.port, host: config.host });
    app = http;
    for (const [endpoint, setting, where] of inbound) {
      try {
        await endpoint?.start();
      } catch (err) {
        await http.close();
        await core.close();
        throw new Error(`${setting}: cannot listen on ${where?.host}:${where?.port} (${(err as Error).message})`);
      }
    }
  }
  sender?.start();
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // close() stops accepting and lets in-flight requests finish (and stops the bounce
      // receiver); the sender's messages in flight finish and are recorded; then the core flushes
      // usage counters and closes pools.
      await app?.close();
      await sender?.stop();
      await core.close();
    })());
  return { app, core, sender, url, stop };
}
