import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgres:// URL switches the store to PostgreSQL; unset means embedded SQLite in dataDir. */
  databaseUrl: string | null;
  redisUrl: string | null;
  /** Namespace of every Redis key and channel, so installations (or test runs) can share a server. */
  redisPrefix: string;
  smtpUrl: string | null;
  publicUrl: string;
  secret: string;
  logLevel: string;
  /** How often batched key-usage counters are written (D9 allows at most 5 s of lag). */
  usageFlushMs: number;
}

export class ConfigError extends Error {}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0-65535, got "${raw}"`);
  return port;
}

/** SECRET signs tokens; when unset it is generated once and kept in DATA_DIR so restarts keep links valid. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT);
  const host = env.HOST || '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (unset it to use embedded SQLite)');
  }
  const usageFlushMs = env.USAGE_FLUSH_MS ? Number(env.USAGE_FLUSH_MS) : 2000;
  if (!Number.isFinite(usageFlushMs) || usageFlushMs <= 0 || usageFlushMs > 5000) {
    throw new ConfigError('USAGE_FLUSH_MS must be between 1 and 5000');
  }
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'sendwell:',
    smtpUrl: env.SMTP_URL || null,
    publicUrl: (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    secret: env.SECRET || loadOrCreateSecret(dataDir),
    logLevel: env.LOG_LEVEL || 'info',
    usageFlushMs,
  };
}
