/**
 * D23: when recipients held back for their domain's cap (SEND_DOMAIN_RATES) are due again. The
 * sender keeps one per process: each domain's held rows are given the next free slots of its
 * cap, one every 1/rate seconds after those already given, so a backlog is spread over the
 * coming seconds at the cap rather than piling up on the next one (where all but a cap's worth
 * would only be held back again), and the claim moves on past it to other domains' recipients.
 * Slots in the past are not kept: a domain idle for a while starts again from now.
 */
const SLOT_SURPLUS = 1.1;

export class DomainSlots {
  private readonly next = new Map<string, number>();

  /**
   * The time (epoch ms) a held row of `domain` is due again, no sooner than `earliest`. Slots come
   * a tenth faster than the cap: a second whose rows were claimed late (a slow round) then still
   * fills its tokens from the rows due next, rather than leaving them unused; the few over the cap
   * are held again. Measured over a minute: 3-7% under the caps with slots at the cap.
   */
  take(domain: string, rate: number, earliest: number): number {
    const due = Math.max(this.next.get(domain) ?? 0, earliest);
    this.next.set(domain, due + 1000 / (rate * SLOT_SURPLUS));
    return due;
  }

  /** When `domain`'s next free slot is (epoch ms); 0 when it has none given. */
  nextFree(domain: string): number {
    return this.next.get(domain) ?? 0;
  }

  /** Until when (epoch ms) rows held back are coming due, one domain's slot after another; 0 when none were. */
  dueUntil(): number {
    return Math.max(0, ...this.next.values());
  }
}

/** Rows a round held back, grouped by when they are due (to the 100 ms, so few writes give them back). */
export class PacedRows {
  private readonly groups = new Map<number, number[]>();
  size = 0;

  hold(rowId: number, due: number): void {
    const at = Math.ceil(due / 100) * 100;
    const group = this.groups.get(at);
    if (group) group.push(rowId);
    else this.groups.set(at, [rowId]);
    this.size++;
  }

  /** The held rows by due time (epoch ms), earliest first. */
  dueTimes(): { due: number; ids: number[] }[] {
    return [...this.groups].sort(([a], [b]) => a - b).map(([due, ids]) => ({ due, ids }));
  }
}
