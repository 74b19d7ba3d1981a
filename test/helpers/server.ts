import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createCore, LOG_REDACT, type Core } from '../../src/core.ts';
import type { BounceReceiver } from '../../src/feedback/bounce-smtp-server.ts';
import { createBounceReceiver, createSenderWorkers, createSubmissionServer, type SenderWorkers } from '../../src/workers.ts';
import { createRequestLimiters } from '../../src/http/http-parts.ts';
import type { SubmissionServer } from '../../src/submission/smtp-submission-server.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import type { Plan } from '../../src/domain/accounts/plans.ts';
import { testDatabase } from './database.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** sent as X-API-Key unless `auth` says otherwise */
  key?: string;
  auth?: 'x-api-key' | 'bearer';
  body?: unknown;
  /** a raw body string sent as is (for malformed JSON) */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  app: FastifyInstance;
  core: Core;
  /** built and not started: a test starts the sender or runs its turns by hand */
  sender: SenderWorkers;
  /** D23's receiving SMTP server when BOUNCE_SMTP_PORT is set; not started */
  bounceReceiver: BounceReceiver | null;
  /** D25.7's SMTP submission endpoint when SMTP_SUBMISSION_PORT is set, sharing the app's rate limiter; not started */
  submission: SubmissionServer | null;
  /** DATA_DIR and (on PostgreSQL) DATABASE_URL: give these to a CLI process to reach the same data */
  env: Record<string, string>;
  /** Kysely over the same database the server uses, for reading rows back */
  db: Core['handle']['db'];
  createAccount(opts?: { name?: string; plan?: Plan }): Promise<{ id: number; plan: Plan }>;
  /** A key through the same service the API and CLI use. */
  createKey(accountId: number, permissions: string[], opts?: { name?: string; expires_at?: string }): Promise<{ id: number; key: string }>;
  /** An enterprise (unlimited) account with a `*` key: the usual starting point of a test. */
  createAccountWithKey(permissions?: string[], plan?: Plan): Promise<{ accountId: number; keyId: number; key: string }>;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** `keepData` leaves the data dir and database in place for a restart on `env`. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * A port free now, and PUBLIC_URL on it: for a test whose browser loads what PUBLIC_URL names
 * (D26.4: the built-in templates' pictures), the server then answers at its own PUBLIC_URL.
 * Without it a test server listens on a random port and PUBLIC_URL names port 0.
 */
export async function ownPublicUrl(): Promise<{ PORT: string; PUBLIC_URL: string }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
}

/**
 * Starts the real app on a random port (or env.PORT) over a fresh database: SQLite in a temporary folder, or
 * (when the PostgreSQL run is active) a schema of its own. Tests talk HTTP to it.
 * To restart on the same data: `a.close({ keepData: true })`, then `startTestServer(a.env)`.
 */
export interface TestServerOptions {
  /** where the server's log lines go (at LOG_LEVEL), for a test that reads them; by default stdout */
  logStream?: DestinationStream;
}

export async function startTestServer(env: Record<string, string> = {}, opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sendwell-test-'));
  const database = await testDatabase(env.DATABASE_URL);
  // In the scale-out run, rate limits and key invalidations go through Redis under a prefix of this server's own.
  const redis: Record<string, string> = process.env.TEST_REDIS_URL
    ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: env.REDIS_PREFIX ?? `t:${randomBytes(6).toString('hex')}:` }
    : {};
  const sharedEnv: Record<string, string> = { DATA_DIR: env.DATA_DIR ?? dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}), ...redis };
  const config: Config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SECRET: 'test-secret',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The send loop, the automation runner and webhook delivery look for work every 50 ms rather
    // than every second: a test waits on what they do, not on their idle wait.
    SEND_POLL_MS: '50',
    WEBHOOK_POLL_MS: '50',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...redis,
    ...env,
  });
  // Redacted as the production logger is (src/core.ts createLogger), so what a test reads is what an operator would.
  const logger = opts.logStream ? pino({ level: config.logLevel, redact: LOG_REDACT }, opts.logStream) : pino({ level: config.logLevel, redact: LOG_REDACT });
  const core = await createCore(config, { logger });
  const sender = createSenderWorkers(core);
  const bounceReceiver = createBounceReceiver(core);
  const limiters = createRequestLimiters(core);
  const submission = createSubmissionServer(core, limiters.rateLimiter);
  const app = await buildApp(core, limiters);
  const address = await app.listen({ port: config.port, host: '127.0.0.1' });

  const server: TestServer = {
    url: address,
    app,
    core,
    sender,
    bounceReceiver,
    submission,
    env: sharedEnv,
    db: core.handle.db,
    async createAccount(opts = {}) {
      const account = await createAccount(core.handle.db, { name: opts.name ?? 'Test account', plan: opts.plan ?? 'enterprise' });
      return { id: account.id, plan: account.plan };
    },
    async createKey(accountId, permissions, opts = {}) {
      const created = await core.apiKeys.create(SYSTEM_ACTING, accountId, { name: opts.name ?? 'test key', permissions, expires_at: opts.expires_at ?? null });
      return { id: created.id, key: created.key };
    },
    async createAccountWithKey(permissions = ['*'], plan = 'enterprise') {
      const account = await server.createAccount({ plan });
      const key = await server.createKey(account.id, permissions);
      return { accountId: account.id, keyId: key.id, key: key.key };
    },
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      // D25.6: TEST_KEY_EVERY_POST=1 runs any suite with a fresh Idempotency-Key on each POST that
      // has none, so each of those requests runs as one transaction: what it answers must not change.
      if (process.env.TEST_KEY_EVERY_POST === '1' && method === 'POST' && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
        headers['idempotency-key'] = `every-post-${randomBytes(8).toString('hex')}`;
      }
      if (opts.key !== undefined) {
        if (opts.auth === 'bearer') headers.authorization = `Bearer ${opts.key}`;
        else headers['x-api-key'] = opts.key;
      }
      let body: string | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      const res = await fetch(address + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: leave the text
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async close(opts = {}) {
      await app.close();
      await bounceReceiver?.stop();
      await submission?.stop();
      await sender.stop();
      await core.close();
      if (opts.keepData) return;
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
