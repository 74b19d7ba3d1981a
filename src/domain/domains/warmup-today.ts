import type { Db } from '../../db/connect.ts';
import { fromDomainOf, warmupCapOf } from './sending-domain.ts';
import { claimedOn, findWarmingDomain } from './sending-domains.repo.ts';
import { utcDay } from './warmup.ts';

/**
 * D26.2: the warm-up of the domain a From address sends from, today: its cap and what it counted
 * (what was handed to the mail server, and what is in flight). Null when that domain is not one of
 * the account's sending domains with warm-up on.
 */
export async function warmupToday(db: Db, accountId: number, fromEmail: string | null, now: Date): Promise<{ cap: number; counted: number } | null> {
  const domain = await warmingDomainOf(db, accountId, fromEmail);
  if (!domain) return null;
  const counted = (await claimedOn(db, [domain.id], utcDay(now))).get(Number(domain.id)) ?? 0;
  return { cap: warmupCapOf(domain, now), counted };
}

/** The sending domain a From address sends from, when it is one of the account's with warm-up on (D23). */
export async function warmingDomainOf(db: Db, accountId: number, fromEmail: string | null) {
  const name = fromDomainOf(fromEmail);
  return name === null ? undefined : findWarmingDomain(db, accountId, name);
}
