import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';
import { emailDomain } from '../domain/shared/email-address.ts';
import type { DomainRates } from '../config-mail.ts';

/**
 * D23: each capped recipient domain may take its rate of tokens in each second of the clock,
 * shared by every sender through Redis when REDIS_URL is set (the factory then builds
 * RateLimiterRedis, as for the API's limits), else kept in this process. A domain without a cap is
 * never counted. The count is keyed by the second itself rather than a window opened by the first
 * message: such a window starts only when a message next comes, so the time between one window's
 * end and the next message was lost each second (measured: 6% under the cap over a minute).
 */
export class DomainSendLimiter {
  private readonly limiters: Map<string, RateLimiterAbstract>;

  constructor(
    readonly rates: DomainRates,
    factory: LimiterFactory = memoryLimiters,
    /** told of each message held back, by domain (the `sendwell_messages_paced_total` metric) */
    private readonly onPaced: (domain: string) => void = () => undefined,
  ) {
    // Two seconds' life: a key outlives its second whatever the clocks of Redis and the senders say.
    this.limiters = new Map([...rates].map(([domain, rate]) => [domain, factory({ keyPrefix: 'send-domain', points: rate, duration: 2 })]));
  }

  /** The cap of the address's domain, or null when it has none. */
  rateFor(email: string): number | null {
    return this.rates.get(emailDomain(email)) ?? null;
  }

  /**
   * Takes a token for a message to `email`: null when it may go now (or its domain has no cap),
   * else the milliseconds until the domain's bucket refills.
   */
  async take(email: string, now = Date.now()): Promise<number | null> {
    const domain = emailDomain(email);
    const limiter = this.limiters.get(domain);
    if (!limiter) return null;
    const second = Math.floor(now / 1000);
    try {
      await limiter.consume(`${domain}:${second}`);
      return null;
    } catch (res) {
      // Rejected with a RateLimiterRes when over the cap, with an Error when its store fails.
      if (!(res instanceof RateLimiterRes)) throw res;
      this.onPaced(domain);
      return (second + 1) * 1000 - now;
    }
  }
}
