import { describe, expect, it } from 'vitest';
import { FairQueue, interleaveByAccount, type FairQueueOptions } from './fair-queue.ts';

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
