/**
 * D23: claimed recipients held back in a round because their domain's cap (SEND_DOMAIN_RATES) was
 * used up. They are not waited for in a concurrency slot, so a capped domain never holds up mail
 * to others: at the end of the round they go back to PENDING, due again when there will be tokens
 * for them. The k-th held row of a domain capped at r per second is due `floor(k / r)` seconds
 * after the bucket refills, so each second brings back about what the cap lets through rather
 * than the whole pile, which would only be held back again.
 */
export class PacedRows {
  private readonly byDomain = new Map<string, { rate: number; firstDue: number; ids: number[] }>();

  get size(): number {
    let n = 0;
    for (const d of this.byDomain.values()) n += d.ids.length;
    return n;
  }

  /** `waitMs`: until the domain's bucket refills, as the limiter said. */
  hold(rowId: number, domain: string, rate: number, waitMs: number, now = Date.now()): void {
    let held = this.byDomain.get(domain);
    if (!held) this.byDomain.set(domain, (held = { rate, firstDue: now + waitMs, ids: [] }));
    held.ids.push(rowId);
  }

  /** The held rows grouped by when each is due again (epoch ms), earliest first. */
  dueTimes(): { due: number; ids: number[] }[] {
    const groups = new Map<number, number[]>();
    for (const { rate, firstDue, ids } of this.byDomain.values()) {
      ids.forEach((id, k) => {
        const due = firstDue + Math.floor(k / rate) * 1000;
        const group = groups.get(due);
        if (group) group.push(id);
        else groups.set(due, [id]);
      });
    }
    return [...groups].sort(([a], [b]) => a - b).map(([due, ids]) => ({ due, ids }));
  }
}
