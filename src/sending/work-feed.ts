/**
 * Hands out work items one at a time to concurrent workers, and fetches the next batch before the
 * current one runs out: once no more than `lowWater` items are left, one fetch starts in the
 * background. Items may weigh more than one (`weigh`): then it is their weight that must fall to
 * `lowWater`, so a few large items hold back the next fetch as many small ones do. The sender uses it so its SMTP connections stay busy across batch boundaries
 * instead of draining while the next batch is claimed, loaded and rendered.
 *
 * `fetch` returns the next batch, or null when there is no more (for now); after that, or after a
 * fetch fails, the feed fetches nothing more. Workers take what was fetched until none is left,
 * so every item fetched is taken exactly once.
 */
export class WorkFeed<T> {
  private items: (T | undefined)[] = [];
  private next = 0;
  private fetching: Promise<void> | null = null;
  private ended = false;
  private failure: unknown = undefined;
  /** the weight of the items fetched and not yet taken */
  private left = 0;

  constructor(
    private readonly fetch: () => Promise<T[] | null>,
    private readonly lowWater: number,
    private readonly weigh: (item: T) => number = () => 1,
  ) {}

  /** The next item, or undefined once the feed has ended and every item was taken. */
  async take(): Promise<T | undefined> {
    for (;;) {
      if (this.next < this.items.length) {
        const item = this.items[this.next] as T;
        this.items[this.next++] = undefined; // a taken item is not kept alive by the feed
        this.left -= this.weigh(item);
        if (this.left <= this.lowWater) this.startFetch();
        return item;
      }
      this.startFetch();
      if (this.fetching === null) return undefined;
      await this.fetching;
    }
  }

  /** What made a fetch fail, if one did (undefined otherwise). */
  get error(): unknown {
    return this.failure;
  }

  private startFetch(): void {
    if (this.fetching !== null || this.ended) return;
    this.fetching = this.fetch()
      .then(
        (batch) => {
          if (batch === null) {
            this.ended = true;
            return;
          }
          this.items = this.items.slice(this.next).concat(batch);
          this.next = 0;
          for (const item of batch) this.left += this.weigh(item);
        },
        (err: unknown) => {
          this.failure = err;
          this.ended = true;
        },
      )
      .finally(() => {
        this.fetching = null;
      });
  }
}
