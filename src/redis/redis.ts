import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { KeyCache } from '../domain/api-keys/key-cache.ts';
import type { LimiterFactory } from '../rate-limit/account-rate-limiter.ts';


export interface RedisLink {
  client: Redis;
  limiters: LimiterFactory;
  close(): Promise<void>;
}

/**
 * With REDIS_URL, every process shares one rate-limit budget per account (D10) and hears when a
 * key changes elsewhere, so a deactivated, revoked, regenerated or deleted key fails everywhere
 * at once. The key cache entry is dropped on every process through pub/sub.
 */
export async function connectRedis(url: string, prefix: string, keyCache: KeyCache, logger: Logger): Promise<RedisLink> {
  const channel = `${prefix}api-key-invalidated`;
  const client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
  const subscriber = new Redis(url, { lazyConnect: true });
  for (const c of [client, subscriber]) c.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  await client.connect();
  await subscriber.connect();

  await subscriber.subscribe(channel);
  subscriber.on('message', (_channel, hash) => keyCache.forget(hash));
  keyCache.onInvalidate((hash) => {
    client.publish(channel, hash).catch((err) => logger.error({ err }, 'could not announce a key change'));
  });

  const limiters: LimiterFactory = (opts) =>
    new RateLimiterRedis({
      storeClient: client,
      ...opts,
      keyPrefix: prefix + opts.keyPrefix,
      // If Redis stops answering, each process falls back to its own budget rather than failing requests.
      insuranceLimiter: new RateLimiterMemory(opts),
    });

  return {
    client,
    limiters,
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
      await client.quit().catch(() => client.disconnect());
    },
  };
}
