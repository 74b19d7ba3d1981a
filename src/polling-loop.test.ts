import { describe, expect, it } from 'vitest';
import { PollingLoop, YIELD_EVERY_MS, yieldToEventLoop } from './polling-loop.ts';

/** Work that never leaves the microtask queue by itself, like a loop of better-sqlite3 calls: `ms` of CPU, then a resolved await. */
async function busyStep(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until);
  await Promise.resolve();
}

describe('issue 14 H1: background loops give the event loop its turn', () => {
  it('yieldToEventLoop lets a pending callback run in the middle of microtask-only work', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    // Without the yield, the callback could run only after all 400 steps.
    let stepsBefore = 0;
    for (let i = 0; i < 400 && !ran; i++) {
      await busyStep(1);
      await yieldToEventLoop();
      stepsBefore = i + 1;
    }
    expect(ran).toBe(true);
    expect(stepsBefore).toBeLessThan(400);
  });

  it('yields only once enough time has passed: back-to-back calls after a turn return without one', async () => {
    await yieldToEventLoop();
    await new Promise<void>((resolve) => setImmediate(resolve));
    let ran = false;
    setImmediate(() => (ran = true));
    // A turn was just had and no time was spent: this call must not give another one.
    await yieldToEventLoop();
    const ranDuringCall = ran;
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
    expect(ranDuringCall).toBe(false);
  });

  it('workers waiting at the same time share one turn, so they hold the event loop for one slice, not one each', async () => {
    const workers = 10;
    let steps = 0;
    let done = false;
    // Steps run between two turns of the event loop, as a callback queued again on every turn sees them.
    const stepsAtTurn: number[] = [];
    const probe = () => {
      stepsAtTurn.push(steps);
      if (!done) setImmediate(probe);
    };
    setImmediate(probe);
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let i = 0; i < 30; i++) {
          await busyStep(1);
          steps++;
          await yieldToEventLoop();
        }
      }),
    );
    done = true;
    const between = stepsAtTurn.slice(1).map((n, i) => n - stepsAtTurn[i]);
    // A shared turn: about YIELD_EVERY_MS steps, then each other worker finishes the step it is in.
    // A turn each would give every worker a slice of its own: about workers x YIELD_EVERY_MS.
    expect(Math.max(...between)).toBeLessThan(2 * (YIELD_EVERY_MS + workers));
  });

  it('PollingLoop gives a turn between rounds, even to rounds that never await anything real', async () => {
    let rounds = 0;
    let roundsWhenTimerRan = -1;
    const loop = new PollingLoop(
      async () => {
        // "Found work" for 10,000 rounds: the loop does not pause for that long on its own.
        rounds++;
        return rounds < 10_000 ? 1 : 0;
      },
      1000,
      () => undefined,
    );
    const timerRan = new Promise<void>((resolve) =>
      setTimeout(() => {
        roundsWhenTimerRan = rounds;
        resolve();
      }, 0),
    );
    loop.start();
    await timerRan;
    await loop.stop();
    expect(roundsWhenTimerRan).toBeGreaterThan(0);
    expect(roundsWhenTimerRan).toBeLessThan(10_000);
  });
});
