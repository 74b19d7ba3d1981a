/**
 * D23: which of several mail servers takes the next message, and which are left out after failing.
 * Pure bookkeeping (the caller says what happened and when), so it is tested without sockets.
 *
 * Selection is least-busy: the server with the fewest messages in flight, ties taken in turn from
 * the one after the last pick. Round-robin would give a slow server as many messages as a fast one,
 * so its queue grows and the send goes at the slowest server's pace; counting messages in flight
 * gives the fast one more as soon as the slow one falls behind, and equal servers (the ties) still
 * take turns, which is round-robin. It costs a pass over a handful of servers per message.
 *
 * The circuit breaker: after `failuresToLeaveOut` consecutive transport failures a server is left
 * out for `cooldownMs`. Then it is tried again, on probation: one more transport failure leaves it
 * out again at once, a success takes it back in.
 */
export interface BreakerSettings {
  failuresToLeaveOut: number;
  cooldownMs: number;
}

interface ServerState {
  inFlight: number;
  consecutiveFailures: number;
  /** left out until this time (ms); 0 = in use */
  outUntil: number;
  /** back from a cool-down and not yet answered: the next transport failure leaves it out again */
  onProbation: boolean;
}

/** What became of a transport failure: the server is now left out (until `until`), or still in use. */
export type FailureVerdict = { leftOut: false } | { leftOut: true; until: number };

export class ServerSelection {
  private readonly servers: ServerState[];
  /** where the next tie-break starts */
  private turn = 0;

  constructor(
    count: number,
    private readonly settings: BreakerSettings,
  ) {
    this.servers = Array.from({ length: count }, () => ({ inFlight: 0, consecutiveFailures: 0, outUntil: 0, onProbation: false }));
  }

  /** The index of the server to use now, not one of `excluded`; null when every other one is left out. */
  pick(now: number, excluded: ReadonlySet<number> = new Set()): number | null {
    const n = this.servers.length;
    let best: number | null = null;
    for (let k = 0; k < n; k++) {
      const i = (this.turn + k) % n;
      if (excluded.has(i) || !this.inUse(i, now)) continue;
      if (best === null || this.servers[i].inFlight < this.servers[best].inFlight) best = i;
    }
    if (best !== null) this.turn = (best + 1) % n;
    return best;
  }

  /** A message goes to server `i`. */
  started(i: number): void {
    this.servers[i].inFlight++;
  }

  /** Server `i` answered (whatever it said of the recipient: it is up). */
  answered(i: number): void {
    const s = this.servers[i];
    s.inFlight--;
    s.consecutiveFailures = 0;
    s.onProbation = false;
  }

  /** Server `i` failed at the transport level (no answer, connection refused, a 421 greeting). */
  failed(i: number, now: number): FailureVerdict {
    const s = this.servers[i];
    s.inFlight--;
    // A failure of a message that went out before the server was left out says nothing new.
    if (s.outUntil > now) return { leftOut: true, until: s.outUntil };
    s.consecutiveFailures++;
    if (!s.onProbation && s.consecutiveFailures < this.settings.failuresToLeaveOut) return { leftOut: false };
    s.outUntil = now + this.settings.cooldownMs;
    s.consecutiveFailures = 0;
    s.onProbation = true;
    return { leftOut: true, until: s.outUntil };
  }

  /** Whether server `i` takes messages at `now` (not left out, or its cool-down is over). */
  inUse(i: number, now: number): boolean {
    return this.servers[i].outUntil <= now;
  }
}
