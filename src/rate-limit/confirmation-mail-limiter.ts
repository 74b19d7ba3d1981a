import { createHash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { memoryLimiters, type LimiterFactory } from './account-rate-limiter.ts';
import { emailKey } from '../domain/shared/email-address.ts';

/**
 * D20: confirmation mails one address may get from one account, however many forms, clients or
 * API calls ask: a sign-up form is public, so without this anyone could mail-bomb an address with
 * "please confirm" mails from many client addresses. A person asking again because a mail was
 * lost is well within it.
 */
export const CONFIRMATION_MAIL_LIMITS = { perAddress: 3, windowSeconds: 60 * 60 } as const;

/** Shared across processes through Redis when REDIS_URL is set; keyed by a hash, so no address is stored there. */
export class ConfirmationMailLimiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(factory: LimiterFactory = memoryLimiters) {
    this.limiter = factory({ keyPrefix: 'confirm-mail', points: CONFIRMATION_MAIL_LIMITS.perAddress, duration: CONFIRMATION_MAIL_LIMITS.windowSeconds });
  }

  /** Counts one mail to the address; false when the address has had its share for now. */
  async allow(accountId: number, email: string): Promise<boolean> {
    const key = `${accountId}:${createHash('sha256').update(emailKey(email)).digest('hex').slice(0, 32)}`;
    try {
      await this.limiter.consume(key);
      return true;
    } catch (res) {
      // Rejected with a RateLimiterRes when over the limit, with an Error when its store fails.
      if (res instanceof RateLimiterRes) return false;
      throw res;
    }
  }
}
