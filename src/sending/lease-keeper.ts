import type { Logger } from 'pino';
import type { SendingStore } from './sending-ports.ts';

/**
 * Keeps a claimed batch's lease alive while it is being sent. Without it, a batch that takes
 * longer than the lease (a slow SMTP server, a large batch) would let another sender claim rows
 * this one is still sending: a duplicate with no crash at all. Every third of the lease it
 * extends the rows not yet recorded. Should renewing fail (the database unreachable), rows not
 * yet started are given back before the lease it last secured runs out.
 */
export class LeaseKeeper {
  private readonly held: Set<number>;
  private securedUntil: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<SendingStore, 'renewLease'>,
    rows: readonly { id: number }[],
    claimedAt: number,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.held = new Set(rows.map((r) => r.id));
    this.securedUntil = claimedAt + leaseMs;
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  /** A row may be started only while a good part of the lease remains, so its send ends inside it. */
  canStart(): boolean {
    return Date.now() < this.securedUntil - this.leaseMs * 0.2;
  }

  done(rowId: number): void {
    this.held.delete(rowId);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const until = Date.now() + this.leaseMs;
    try {
      await this.store.renewLease([...this.held], new Date(until).toISOString());
      this.securedUntil = until;
    } catch (err) {
      this.logger.warn({ err }, 'could not renew the lease on claimed recipients; unstarted ones will be given back');
    }
  }
}
