import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { inBackgroundTurn, nextSliceMs, PollingLoop, YIELD_EVERY_MS, yieldToEventLoop } from './polling-loop.ts';

/** Work that never leaves the microtask queue by itself, like a loop of better-sqlite3 calls: `ms` of CPU, then a resolved await. */
async function busyStep(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until);
  await Promise.resolve();
}

/**
 * `workers` loops of 30 runs of `step` at once: the most steps that ran between two turns of the
 * event loop, as a callback queued again on every turn sees them.
 */
async function mostStepsBetweenTurns(workers: number, step: () => Promise<void>): Promise<number> {
  let steps = 0;
  let done = false;
  const stepsAtTurn: number[] = [];
  const probe = () => {
    stepsAtTurn.push(steps);
    if (!done) setImmediate(probe);
  };
  setImmediate(probe);
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < 30; i++) {
        await step();
        steps++;
      }
    }),
  );
  done = true;
  return Math.max(...stepsAtTurn.slice(1).map((n, i) => n - stepsAtTurn[i]));
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
    const between = await mostStepsBetweenTurns(workers, async () => {
      await busyStep(1);
      await yieldToEventLoop();
    });
    // A shared turn: about YIELD_EVERY_MS steps, then each other worker finishes the step it is in.
    // A turn each would give every worker a slice of its own: about workers x YIELD_EVERY_MS.
    expect(between).toBeLessThan(2 * (YIELD_EVERY_MS + workers));
  });

  it('issue 28: steps through inBackgroundTurn give the turn after one slice and one step, however many workers wait', async () => {
    const workers = 10;
    /** A step of 1 ms of CPU in two halves with a database-like await between: workers interleave inside it. */
    const step = async () => {
      await busyStep(0.5);
      await busyStep(0.5);
    };
    // Each worker yielding for itself: every worker passes its check before the slice runs out, then runs its whole step.
    const yieldingAlone = await mostStepsBetweenTurns(workers, async () => {
      await yieldToEventLoop();
      await step();
    });
    const gated = await mostStepsBetweenTurns(workers, () => inBackgroundTurn(step));
    expect(yieldingAlone).toBeGreaterThanOrEqual(workers);
    expect(gated).toBeLessThanOrEqual(YIELD_EVERY_MS + 1);
  });

  it.each([
    [0.2, YIELD_EVERY_MS, 'an idle loop: the whole slice'],
    [0.9, YIELD_EVERY_MS, 'under a millisecond of other work: still idle'],
    [1.5, 1, 'a little work waiting: the shortest slice'],
    [4, 2, 'a third of the loop: half the other work'],
    [6, 3, 'a third of the loop'],
    [30, YIELD_EVERY_MS, 'never longer than the whole slice'],
  ])('issue 28: after a turn with %s ms of other work the background may take %s ms (%s)', (foreground, slice) => {
    expect(nextSliceMs(foreground)).toBeCloseTo(slice, 9);
  });

  it('issue 28: while other work keeps the loop busy, background steps take a third of it, not a slice of 5 ms each turn', async () => {
    let steps = 0;
    let done = false;
    const stepsAtTurn: number[] = [];
    // Other work, as requests would be: 6 ms of every turn, run before the turn's immediates as I/O is.
    const foreground = () => {
      stepsAtTurn.push(steps);
      const until = performance.now() + 6;
      while (performance.now() < until);
      if (!done) setTimeout(foreground, 0);
    };
    setTimeout(foreground, 0);
    for (let i = 0; i < 600; i++) {
      await busyStep(0.25);
      steps++;
      await yieldToEventLoop();
    }
    done = true;
    const between = stepsAtTurn.slice(2).map((n, i) => n - stepsAtTurn[i + 1]);
    // 3 ms of 0.25 ms steps between turns, and the step in progress; YIELD_EVERY_MS would allow 20
    // every turn. Judged on nineteen turns in twenty: on a throttled machine one turn in hundreds
    // was 20, when the process was held off the CPU in the middle of a step and that step's time
    // grew with it.
    const sorted = [...between].sort((x, y) => x - y);
    expect(sorted[Math.floor(sorted.length * 0.95)]).toBeLessThanOrEqual(3 / 0.25 + 2);
  });

  it('issue 28: a background step longer than its slice is paid back: requests waiting get twice its time', { timeout: 60_000 }, async () => {
    let requestMs = 0;
    const server = http.createServer((_req, res) => {
      const started = performance.now();
      while (performance.now() - started < 1);
      requestMs += performance.now() - started;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Four keep-alive connections in a process of their own, each sending its next request as soon as it has an answer.
    const clientCode = `
      const http = require('node:http');
      const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
      const once = () => new Promise((resolve) => http.get({ host: '127.0.0.1', port: ${port}, agent }, (res) => { res.resume(); res.on('end', resolve); }).on('error', resolve));
      for (let i = 0; i < 4; i++) (async () => { for (;;) await once(); })();`;
    const client = spawn(process.execPath, ['-e', clientCode], { stdio: 'ignore' });
    try {
      while (requestMs < 50) await new Promise((resolve) => setTimeout(resolve, 10));
      const before = requestMs;
      const steps = 30;
      for (let i = 0; i < steps; i++) {
        await busyStep(6); // a step that cannot be cut, longer than any slice
        await yieldToEventLoop();
      }
      // Four requests of 1 ms at most wait at each turn: without paying back, requests would get
      // at most 4 ms for each 6 ms step (measured: 0.7 x the steps); with it, twice the step (measured: 2.8 x).
      expect(requestMs - before).toBeGreaterThanOrEqual(1.5 * steps * 6);
    } finally {
      client.kill();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('issue 28: a step that fails through inBackgroundTurn fails its caller only; the next step runs', async () => {
    const failed = inBackgroundTurn(async () => {
      throw new Error('this step only');
    });
    const next = inBackgroundTurn(async () => 'ran');
    await expect(failed).rejects.toThrow('this step only');
    expect(await next).toBe('ran');
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
