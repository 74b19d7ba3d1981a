import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { connect, type DbHandle } from './db/connect.ts';
import { migrateToLatest } from './db/migrator.ts';
import { ApiKeyService } from './domain/api-keys/api-keys.service.ts';
import { KeyCache } from './domain/api-keys/key-cache.ts';
import { UsageRecorder } from './domain/api-keys/usage-recorder.ts';
import { CampaignService } from './domain/campaigns/campaigns.service.ts';
import { ContactService } from './domain/contacts/contacts.service.ts';
import { ListService } from './domain/lists/lists.service.ts';
import { AccountRateLimiter } from './rate-limit/account-rate-limiter.ts';
import { connectRedis } from './redis/redis.ts';

/** Everything the app and the CLI need, built once and passed in; no module-level singletons. */
export interface Deps {
  config: Config;
  logger: Logger;
  handle: DbHandle;
  keyCache: KeyCache;
  usage: UsageRecorder;
  rateLimiter: AccountRateLimiter;
  apiKeys: ApiKeyService;
  contacts: ContactService;
  lists: ListService;
  campaigns: CampaignService;
  close(): Promise<void>;
}

export interface DepsOptions {
  logger?: Logger;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    // Keys and passwords never reach the logs, whatever a log call is handed.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key', 'password', '*.password'], censor: '[redacted]' },
  });
}

export async function createDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  const logger = opts.logger ?? createLogger(config);
  const handle = connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(handle);
  const keyCache = new KeyCache();
  const usage = new UsageRecorder(handle, logger, config.usageFlushMs);
  usage.start();
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisPrefix, keyCache, logger) : null;
  const rateLimiter = new AccountRateLimiter(redis?.limiters);
  return {
    config,
    logger,
    handle,
    keyCache,
    usage,
    rateLimiter,
    apiKeys: new ApiKeyService(handle, keyCache, usage),
    contacts: new ContactService(handle),
    lists: new ListService(handle),
    campaigns: new CampaignService(handle),
    async close() {
      await usage.stop();
      await redis?.close();
      await handle.close();
    },
  };
}
