import { describe, expect, it } from 'vitest';
import { WorkFeed } from './work-feed.ts';

/** A fetch that hands out the given batches in order, then null, and logs when each fetch starts. */
function batches(...all: number[][]) {
  const started: number[] = [];
  let i = 0;
  const fetch = async () => {
    started.push(i);
    await new Promise((r) => setImmediate(r));
    return i < all.length ? all[i++] : null;
  };
  return { fetch, started };
}

describe('WorkFeed', () => {
  it('hands out every item of every batch exactly once, in order, then undefined', async () => {
    const { fetch } = batches([1, 2, 3], [4, 5], [6]);
    const feed = new WorkFeed(fetch, 1);
    const taken: number[] = [];
    for (let x = await feed.take(); x !== undefined; x = await feed.take()) taken.push(x);
    expect(taken).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await feed.take()).toBeUndefined();
    expect(feed.error).toBeUndefined();
  });

  it('fetches the next batch once no more than lowWater items are left, not before', async () => {
    const { fetch, started } = batches([1, 2, 3, 4], [5, 6, 7, 8]);
    const feed = new WorkFeed(fetch, 2);
    expect(await feed.take()).toBe(1); // the first fetch
    expect(started).toEqual([0]);
    expect(await feed.take()).toBe(2); // 2 left now: the second fetch starts
    expect(started).toEqual([0, 1]);
    await new Promise((r) => setImmediate(r));
    expect(await feed.take()).toBe(3);
    expect(started).toEqual([0, 1]); // one fetch at a time
  });

  it('with weights, fetches once the weight left falls to lowWater: a large item holds back the next fetch (issue 14 H5)', async () => {
    const { fetch, started } = batches([1, 100, 1, 1], [1]);
    const feed = new WorkFeed(fetch, 50, (x) => x);
    expect(await feed.take()).toBe(1); // 102 left
    expect(started).toEqual([0]);
    expect(await feed.take()).toBe(100); // 2 left: the second fetch starts
    expect(started).toEqual([0, 1]);
  });

  it('concurrent takers share the items: none twice, none lost', async () => {
    const { fetch } = batches([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12]);
    const feed = new WorkFeed(fetch, 3);
    const taken: number[] = [];
    const worker = async () => {
      for (let x = await feed.take(); x !== undefined; x = await feed.take()) {
        taken.push(x);
        await new Promise((r) => setImmediate(r));
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(taken.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('a failed fetch ends the feed after what was fetched, and tells why', async () => {
    let calls = 0;
    const feed = new WorkFeed(async () => {
      if (calls++ === 0) return [1, 2];
      throw new Error('database gone');
    }, 0);
    expect(await feed.take()).toBe(1);
    expect(await feed.take()).toBe(2);
    expect(await feed.take()).toBeUndefined();
    expect((feed.error as Error).message).toBe('database gone');
    expect(await feed.take()).toBeUndefined();
    expect(calls).toBe(2);
  });
});
