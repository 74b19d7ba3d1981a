import type { FastifyInstance } from 'fastify';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createDeps, type Deps } from './deps.ts';

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  url: string;
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

/** Starts the service: migrations, the HTTP app, and a clean stop that flushes usage counters. */
export async function startServer(config: Config): Promise<RunningServer> {
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  app.addHook('preClose', () => drainConnections(app.server, DRAIN_MS));
  const url = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // close() stops accepting, lets in-flight requests finish, then the deps flush and close pools.
      await app.close();
      await deps.close();
    })());
  return { app, deps, url, stop };
}
