import { performance } from 'node:perf_hooks';

/**
 * How long background work may keep the event loop before it gives HTTP (and timers, signals, I/O)
 * a turn. better-sqlite3 answers synchronously, so a loop whose every await is a database call
 * never leaves the microtask queue on its own: a backlog of 3,000 automation runs held `/health`
 * for 1.5 s (issue 14 H1). A few milliseconds keep `/health` well under its 50 ms p99 target
 * while costing one setImmediate per slice (about a microsecond) when nothing else is waiting.
 */
export const YIELD_EVERY_MS = 5;

/**
 * When the event loop last had a turn, as far as the background loops know. One per process on
 * purpose: what matters is how long the process's single event loop has been kept, whichever loop
 * (runner, dispatcher, delivery worker) kept it.
 */
let lastTurn = performance.now();

/**
 * Gives the event loop a turn if background work has kept it for YIELD_EVERY_MS or more (issue 14
 * H1). Loops that work through a backlog call it between items; it costs nothing otherwise.
 */
export async function yieldToEventLoop(): Promise<void> {
  if (performance.now() - lastTurn >= sliceMs) await giveTurn();
}

/**
 * Background work's share of the event loop while requests keep it busy (issue 28's noisy
 * neighbour: one account's automation chain took half the HTTP thread in 5 ms slices between
 * every account's requests). After a turn in which timers and I/O took `t` ms, the next slice is
 * `t x share / (1 - share)`, between 1 ms and YIELD_EVERY_MS, and a step that overran its slice is
 * paid back (giveTurn): the background keeps a third of a busy loop, and all of an idle one (a
 * turn with under a millisecond of other work leaves the slice at YIELD_EVERY_MS and pays nothing,
 * so a backlog on a quiet server goes as fast as before).
 */
export const BACKGROUND_SHARE_UNDER_LOAD = 1 / 3;

/** The slice the background may take before the next turn, set by the turn before (BACKGROUND_SHARE_UNDER_LOAD). */
let sliceMs = YIELD_EVERY_MS;

/** The next slice after a turn whose timers and I/O took `foregroundMs`. */
export function nextSliceMs(foregroundMs: number): number {
  if (foregroundMs < 1) return YIELD_EVERY_MS;
  const share = (foregroundMs * BACKGROUND_SHARE_UNDER_LOAD) / (1 - BACKGROUND_SHARE_UNDER_LOAD);
  return Math.min(YIELD_EVERY_MS, Math.max(1, share));
}

/** The turn being waited for: every caller until it comes shares it. */
let turn: Promise<void> | null = null;

/**
 * The most background time one turn pays back: after the background slept (PollingLoop's pause),
 * the time since the last turn is not work it did, and must not hold it back for long.
 */
const MAX_REPAID_MS = 4 * YIELD_EVERY_MS;

/**
 * Lets timers, I/O and signal handlers run (setImmediate runs after the poll phase), then goes
 * on. Callers waiting at the same time share one turn and go on together: with a setImmediate
 * each (the runner has SEND_CONCURRENCY workers), they would resume one per callback in the same
 * check phase, each with a fresh time slice, and hold the event loop for all of those slices
 * together (measured: 60 ms between turns with 10 workers).
 *
 * When that turn shows requests waiting (a millisecond or more of other work), the background
 * also pays back what it kept over its share (BACKGROUND_SHARE_UNDER_LOAD): a step cannot be cut,
 * so one that overran its slice would otherwise keep half the loop. It waits in rounds of a
 * millisecond until the other work has had twice the time it kept, or until a round finds the
 * loop mostly idle (event-loop utilisation: nobody is waiting any more). An idle loop pays nothing.
 */
function giveTurn(): Promise<void> {
  return (turn ??= (async () => {
    const kept = Math.min(performance.now() - lastTurn, MAX_REPAID_MS);
    const asked = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    let given = performance.now() - asked;
    sliceMs = nextSliceMs(given);
    const owed = given >= 1 ? (kept * (1 - BACKGROUND_SHARE_UNDER_LOAD)) / BACKGROUND_SHARE_UNDER_LOAD : 0;
    if (given < owed) {
      do {
        const before = performance.eventLoopUtilization();
        await new Promise<void>((resolve) => setTimeout(resolve, 1));
        const round = performance.eventLoopUtilization(before);
        given += round.active;
        if (round.idle > round.active) break;
      } while (given < owed);
      // Resume after the poll phase as after any turn, not in the timers phase where the last
      // round ended: the next turn then sees a whole loop's other work, not half of one.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    turn = null;
    lastTurn = performance.now();
  })());
}

/** The background step running or last queued: each waits for the one before it. */
let stepGate: Promise<unknown> = Promise.resolve();

/**
 * Runs `step` when the background steps queued before it have finished, and only within a slice
 * of the event loop (yieldToEventLoop first). For steps on SQLite, where several workers gain
 * nothing from running at once (one connection does every query in turn) but cost the event loop
 * a step each: a worker's yield check passes before its step waits for the connection, so when
 * the slice ran out, every other worker still had its whole step to run before the turn came.
 * With the runner's ten workers a turn came after ten steps, not one slice (issue 28's noisy
 * neighbour: one account's automation chain kept the HTTP thread 55% of the time). Through this
 * gate a turn comes after one slice and at most one step.
 */
export function inBackgroundTurn<T>(step: () => Promise<T>): Promise<T> {
  const run = stepGate.then(async () => {
    await yieldToEventLoop();
    return step();
  });
  stepGate = run.catch(() => undefined);
  return run;
}

/**
 * The loop of a background worker (the campaign dispatcher, the automation runner): runs `round`
 * again at once while it finds work, and after `pollMs` when it found none. `stop()` cuts the
 * pause short and resolves once the round in progress has finished.
 */
export class PollingLoop {
  private running = false;
  private stopRequested = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    /** one round of work; returns how much it handled (0: nothing to do, so pause) */
    private readonly round: () => Promise<number>,
    /** the pause after a round that found nothing, or a function asked for it each time (D23: shorter while paced mail is due soon) */
    private readonly pollMs: number | (() => number),
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * True from `stop()` until the next `start()`: a round in progress checks it to give back work
   * it has not started. (A round run directly, without `start()`, is not stopping.)
   */
  get stopping(): boolean {
    return this.stopRequested;
  }

  start(): void {
    this.stopRequested = false;
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.round();
      } catch (err) {
        this.onError(err);
      }
      // Between rounds the event loop always gets its turn, whatever a round awaited (issue 14 H1).
      await giveTurn();
      if (handled === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, typeof this.pollMs === 'function' ? this.pollMs() : this.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }
}
