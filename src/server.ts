import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createDeps, type Deps } from './deps.ts';

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  url: string;
  stop(): Promise<void>;
}

/** Starts the service: migrations, the HTTP app, and a clean stop that flushes usage counters. */
export async function startServer(config: Config): Promise<RunningServer> {
  const deps = await createDeps(config);
  const app = await buildApp(deps);
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
