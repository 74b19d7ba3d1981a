import { describe, expect, it } from 'vitest';
import { FairQueue, FairScheduler, interleaveByAccount, type FairQueueOptions } from './fair-queue.ts';

interface Job {
  account: number;
  name: string;
  cost: number;
}

/** Pushes every job, then serves them one at a time (a single thread), each done at its cost; the order served. */
function serveAll(options: FairQueueOptions, jobs: Job[]): string[] {
  const queue = new FairQueue<Job>(options);
  for (const job of jobs) queue.push(job.account, job);
  const order: string[] = [];
  for (let job = queue.take(); job; job = queue.take()) {
    order.push(job.name);
    queue.done(job, job.cost);
  }
  return order;
}

const jobs = (account: number, prefix: string, n: number, cost: number): Job[] =>
  Array.from({ length: n }, (_, i) => ({ account, name: `${prefix}${i + 1}`, cost }));

describe('FairQueue (issue 28: one fair scheduler for every shared queue)', () => {
  const cases: Array<{ name: string; options: FairQueueOptions; jobs: Job[]; order: string[] }> = [
    {
      name: 'one account alone is served in arrival order, however costly',
      options: { quantum: 100 },
      jobs: jobs(1, 'a', 4, 5_000),
      order: ['a1', 'a2', 'a3', 'a4'],
    },
    {
      name: 'accounts of equal cost take turns, one item each',
      options: { quantum: 100 },
      jobs: [...jobs(1, 'a', 3, 10), ...jobs(2, 'b', 3, 10)],
      order: ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'],
    },
    {
      // H1: four large drafts ahead of another account's small save; the save waits for one, not four.
      name: 'a small item queued behind many large ones of another account waits for one of them',
      options: { quantum: 100 },
      jobs: [...jobs(1, 'big', 4, 3_000), { account: 2, name: 'small', cost: 20 }],
      order: ['big1', 'small', 'big2', 'big3', 'big4'],
    },
    {
      // An item costing 3 turns is paid back by sitting out turns, so the cheap account gets its
      // quantum's worth each round.
      name: 'an expensive account sits out turns in proportion to what it cost',
      options: { quantum: 100 },
      jobs: [...jobs(1, 'a', 3, 300), ...jobs(2, 'b', 8, 100)],
      order: ['a1', 'b1', 'b2', 'b3', 'a2', 'b4', 'b5', 'b6', 'a3', 'b7', 'b8'],
    },
    {
      name: 'debt is bounded by maxDebt',
      options: { quantum: 100, maxDebt: 100 },
      jobs: [...jobs(1, 'a', 2, 10_000), ...jobs(2, 'b', 5, 100)],
      order: ['a1', 'b1', 'b2', 'a2', 'b3', 'b4', 'b5'],
    },
    {
      name: 'three accounts rotate in the order they first came',
      options: { quantum: 1 },
      jobs: [...jobs(3, 'c', 2, 1), ...jobs(1, 'a', 2, 1), ...jobs(2, 'b', 1, 1)],
      order: ['c1', 'a1', 'b1', 'c2', 'a2'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(serveAll(c.options, c.jobs)).toEqual(c.order);
    });
  }

  it('refuses work past an account’s waiting cap, and only that account’s', () => {
    const queue = new FairQueue<string>({ quantum: 1, maxWaitingPerAccount: 2 });
    expect(queue.push(1, 'a1')).toBe(true);
    expect(queue.push(1, 'a2')).toBe(true);
    expect(queue.push(1, 'a3')).toBe(false);
    expect(queue.push(2, 'b1')).toBe(true);
    expect(queue.waitingCount(1)).toBe(2);
    expect(queue.waitingCount()).toBe(3);
  });

  it('caps one account’s share of a pool with several slots', () => {
    const queue = new FairQueue<string>({ quantum: 1, maxInFlightPerAccount: 2 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push(1, item);
    queue.push(2, 'b1');
    const taken = [queue.take(), queue.take(), queue.take(), queue.take()];
    // a1, b1, a2; then account 1 is at its cap and account 2 has nothing left
    expect(taken).toEqual(['a1', 'b1', 'a2', null]);
    expect(queue.inFlightCount(1)).toBe(2);
    queue.done('a1', 1);
    expect(queue.take()).toBe('a3');
  });

  it('forgives debt once the queue is idle', () => {
    const queue = new FairQueue<string>({ quantum: 100 });
    queue.push(1, 'a1');
    queue.done(queue.take()!, 900);
    // Idle now: account 1 starts the next busy period owing nothing, so it goes first.
    queue.push(1, 'a2');
    queue.push(2, 'b1');
    expect(queue.take()).toBe('a2');
  });

  it('keeps debt while another account’s work is in progress', () => {
    const queue = new FairQueue<string>({ quantum: 100 });
    queue.push(1, 'a1');
    queue.push(2, 'b1');
    const a1 = queue.take()!;
    const b1 = queue.take()!;
    queue.done(a1, 500);
    queue.push(1, 'a2');
    queue.push(2, 'b2');
    queue.push(2, 'b3');
    queue.done(b1, 10);
    expect([queue.take(), queue.take()]).toEqual(['b2', 'b3']);
  });

  it('removes a waiting item, not one in progress', () => {
    const queue = new FairQueue<string>({ quantum: 1 });
    queue.push(1, 'a1');
    queue.push(1, 'a2');
    queue.push(2, 'b1');
    expect(queue.take()).toBe('a1');
    expect(queue.remove('a1')).toBe(false);
    expect(queue.remove('a2')).toBe(true);
    expect(queue.remove('a2')).toBe(false);
    expect(queue.take()).toBe('b1');
    expect(queue.take()).toBeNull();
  });

  it('refuses the same item twice and a quantum that is not positive', () => {
    const queue = new FairQueue<string>({ quantum: 1 });
    queue.push(1, 'x');
    expect(() => queue.push(2, 'x')).toThrow(/twice/);
    expect(() => new FairQueue({ quantum: 0 })).toThrow(/quantum/);
  });
});

describe('interleaveByAccount', () => {
  const row = (account: number, id: number) => ({ account, id });
  const cases: Array<{ name: string; rows: Array<{ account: number; id: number }>; perAccount?: number; ids: number[] }> = [
    { name: 'one of each account in turn', rows: [row(1, 1), row(1, 2), row(1, 3), row(2, 4), row(3, 5), row(2, 6)], ids: [1, 4, 5, 2, 6, 3] },
    { name: 'at most perAccount of each', rows: [row(1, 1), row(1, 2), row(1, 3), row(2, 4)], perAccount: 2, ids: [1, 4, 2] },
    { name: 'nothing claimed, nothing served', rows: [], ids: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(interleaveByAccount(c.rows, (r) => r.account, c.perAccount).map((r) => r.id)).toEqual(c.ids);
    });
  }
});

describe('FairQueue.drainWaiting', () => {
  it('takes out every waiting item, also those of an account at its in-flight cap', () => {
    const queue = new FairQueue<string>({ quantum: 1, maxInFlightPerAccount: 1 });
    for (const item of ['a1', 'a2', 'a3']) queue.push(1, item);
    queue.push(2, 'b1');
    expect(queue.take()).toBe('a1');
    expect(queue.drainWaiting().sort()).toEqual(['a2', 'a3', 'b1']);
    expect(queue.waitingCount()).toBe(0);
    expect(queue.inFlightCount(1)).toBe(1);
    expect(queue.take()).toBeNull();
  });
});

describe('FairScheduler', () => {
  /** A task that settles when the test says, recording when it started. */
  function gate(log: string[], name: string) {
    let open!: (value: string) => void;
    let fail!: (err: Error) => void;
    const task = () => {
      log.push(name);
      return new Promise<string>((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
    };
    return { task, open: () => open(name), fail: (err: Error) => fail(err) };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('runs at most `slots` tasks, in the accounts\' turns, and hands back each result or error', async () => {
    const started: string[] = [];
    const scheduler = new FairScheduler({ quantum: 1, slots: 1, charge: 'turn' });
    const [a1, a2, a3, b1] = ['a1', 'a2', 'a3', 'b1'].map((name) => gate(started, name));
    // a1 starts at once; then account 1 (back in the rotation with a2) and account 2 take turns.
    const results = [scheduler.schedule(1, a1.task)!, scheduler.schedule(1, a2.task)!, scheduler.schedule(1, a3.task)!, scheduler.schedule(2, b1.task)!];
    const b1Error = results[3].catch((err: Error) => err.message);
    await tick();
    expect(started).toEqual(['a1']);
    a1.open();
    await tick();
    a2.open();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    b1.fail(new Error('b1 failed'));
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    a3.open();
    expect(await results[0]).toBe('a1');
    expect(await results[1]).toBe('a2');
    expect(await b1Error).toBe('b1 failed');
    expect(await results[2]).toBe('a3');
  });

  it('a task that throws at once fails only its own promise', async () => {
    const scheduler = new FairScheduler({ quantum: 1, slots: 1, charge: 'turn' });
    const broken = scheduler.schedule(1, () => {
      throw new Error('at once');
    })!;
    const fine = scheduler.schedule(1, async () => 'fine')!;
    await expect(broken).rejects.toThrow('at once');
    expect(await fine).toBe('fine');
  });

  it('refuses with null past the waiting cap, and drain ends what waits', async () => {
    const started: string[] = [];
    const scheduler = new FairScheduler({ quantum: 1, slots: 1, charge: 'turn', maxWaitingPerAccount: 1 });
    const running = gate(started, 'a1');
    const first = scheduler.schedule(1, running.task)!;
    const waiting = scheduler.schedule(1, async () => 'a2')!;
    expect(scheduler.schedule(1, async () => 'a3')).toBeNull();
    expect(scheduler.waiting).toBe(1);
    scheduler.drain(new Error('closing'));
    await expect(waiting).rejects.toThrow('closing');
    running.open();
    expect(await first).toBe('a1');
  });
});
