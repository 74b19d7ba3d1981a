/**
 * The one fairness policy for every queue that accounts share (issue 28): compile and render
 * threads, web views, automation runs, webhook deliveries, domain key generation. Pure: no timers,
 * no I/O; the caller says what an item cost when it is done.
 *
 * Deficit round robin, charged after the fact (the cost of a compile or a render is known only
 * once it ran):
 * - accounts with waiting work take turns, one item a turn, each account's items in the order
 *   they came;
 * - `done(item, cost)` takes the cost from the account's credit; an account whose credit is
 *   spent (a large draft took 3 s against a 100 ms turn) sits out turns, regaining `quantum` per
 *   turn it sits out, until its credit is positive again. So every account gets about `quantum`
 *   of work per round however large its items, and one cheap item of another account waits for
 *   at most one item of each account ahead of it;
 * - debt is bounded (`maxDebt`) and forgiven once the whole queue is idle: fairness is between
 *   accounts that contend, not a memory of yesterday;
 * - `maxInFlightPerAccount` bounds an account's share of a pool with several slots (webhook
 *   deliveries), `maxWaitingPerAccount` the work it may queue (past it `push` refuses, and the
 *   caller says so: the work is never dropped silently).
 * Anonymous public requests (a web-view flood) are pushed under the account whose content they
 * render, so they spend that account's turns and nobody else's.
 */
export type AccountKey = number | string;

export interface FairQueueOptions {
  /** what an account may use per turn, in the unit `done` charges (ms of work, or 1 per item) */
  quantum: number;
  /** the most an account may owe past its turn; default 10 turns */
  maxDebt?: number;
  /** items of one account in progress at once; default no cap */
  maxInFlightPerAccount?: number;
  /** items of one account waiting at once; default no cap */
  maxWaitingPerAccount?: number;
}

interface AccountState<T> {
  waiting: T[];
  credit: number;
  inFlight: number;
}

export class FairQueue<T> {
  private readonly accounts = new Map<AccountKey, AccountState<T>>();
  /** accounts with waiting items, in turn order */
  private readonly rotation: AccountKey[] = [];
  private readonly owner = new Map<T, AccountKey>();
  private readonly quantum: number;
  private readonly maxDebt: number;
  private readonly maxInFlight: number;
  private readonly maxWaiting: number;

  constructor(options: FairQueueOptions) {
    if (!(options.quantum > 0)) throw new Error('FairQueue: quantum must be positive');
    this.quantum = options.quantum;
    this.maxDebt = options.maxDebt ?? options.quantum * 10;
    this.maxInFlight = options.maxInFlightPerAccount ?? Infinity;
    this.maxWaiting = options.maxWaitingPerAccount ?? Infinity;
  }

  /** Queues `item` for `account`; false (nothing queued) when the account already has `maxWaitingPerAccount` waiting. */
  push(account: AccountKey, item: T): boolean {
    const state = this.stateOf(account);
    if (state.waiting.length >= this.maxWaiting) return false;
    if (this.owner.has(item)) throw new Error('FairQueue: item queued twice');
    state.waiting.push(item);
    this.owner.set(item, account);
    if (state.waiting.length === 1) this.rotation.push(account);
    return true;
  }

  /**
   * The next item by the policy, now counted in progress until `done`; null when nothing is
   * waiting or every waiting account is at its in-flight cap.
   */
  take(): T | null {
    let blocked = 0;
    while (this.rotation.length > 0 && blocked < this.rotation.length) {
      const account = this.rotation.shift()!;
      const state = this.accounts.get(account)!;
      if (state.inFlight >= this.maxInFlight) {
        this.rotation.push(account);
        blocked++;
        continue;
      }
      // Each turn that finds the account spent grants it a quantum; while that still leaves it in
      // debt it sits the turn out, paying back what its last items cost past their turns.
      if (state.credit <= 0) state.credit = Math.min(this.quantum, state.credit + this.quantum);
      if (state.credit <= 0) {
        this.rotation.push(account);
        blocked = 0;
        continue;
      }
      const item = state.waiting.shift()!;
      state.inFlight++;
      if (state.waiting.length > 0) this.rotation.push(account);
      return item;
    }
    return null;
  }

  /** `item` (from `take`) is finished; `cost` is charged to its account's credit. */
  done(item: T, cost: number): void {
    const account = this.owner.get(item);
    if (account === undefined) return;
    this.owner.delete(item);
    const state = this.accounts.get(account)!;
    state.inFlight--;
    state.credit = Math.max(-this.maxDebt, state.credit - Math.max(0, cost));
    this.forget(account, state);
    if (this.owner.size === 0) this.accounts.clear(); // idle: every debt is forgiven
  }

  /** Takes a waiting item out (its caller gave up on it); false when it is not waiting. */
  remove(item: T): boolean {
    const account = this.owner.get(item);
    if (account === undefined) return false;
    const state = this.accounts.get(account)!;
    const at = state.waiting.indexOf(item);
    if (at < 0) return false; // in progress: `done` ends it
    state.waiting.splice(at, 1);
    this.owner.delete(item);
    if (state.waiting.length === 0) this.rotation.splice(this.rotation.indexOf(account), 1);
    this.forget(account, state);
    return true;
  }

  /**
   * Takes every waiting item out, whatever the caps (a queue that closes ends them with the
   * reason). Items in progress stay until their `done`.
   */
  drainWaiting(): T[] {
    const drained: T[] = [];
    for (const account of this.rotation.splice(0)) {
      const state = this.accounts.get(account)!;
      for (const item of state.waiting.splice(0)) {
        this.owner.delete(item);
        drained.push(item);
      }
      this.forget(account, state);
    }
    if (this.owner.size === 0) this.accounts.clear();
    return drained;
  }

  /** Items waiting, of one account or of all. */
  waitingCount(account?: AccountKey): number {
    if (account !== undefined) return this.accounts.get(account)?.waiting.length ?? 0;
    let n = 0;
    for (const state of this.accounts.values()) n += state.waiting.length;
    return n;
  }

  /** Items in progress, of one account or of all. */
  inFlightCount(account?: AccountKey): number {
    if (account !== undefined) return this.accounts.get(account)?.inFlight ?? 0;
    let n = 0;
    for (const state of this.accounts.values()) n += state.inFlight;
    return n;
  }

  private stateOf(account: AccountKey): AccountState<T> {
    let state = this.accounts.get(account);
    if (!state) this.accounts.set(account, (state = { waiting: [], credit: this.quantum, inFlight: 0 }));
    return state;
  }

  /** An account with nothing waiting or in progress and no debt needs no state. */
  private forget(account: AccountKey, state: AccountState<T>): void {
    if (state.waiting.length === 0 && state.inFlight === 0 && state.credit >= this.quantum) this.accounts.delete(account);
  }
}

export interface FairSchedulerOptions extends FairQueueOptions {
  /** tasks running at once */
  slots: number;
  /** what a task is charged: the milliseconds it ran (work on a thread or a process), or 1 (a turn each) */
  charge: 'ms' | 'turn';
}

interface ScheduledTask {
  run(): Promise<void>;
  fail(reason: unknown): void;
}

/**
 * A FairQueue that runs what it queues: asynchronous tasks (a compile, a render, a read, a key),
 * at most `slots` at once, each started in its account's turn and charged when it settles. The
 * queues that accounts share are this one loop; each says only what a task is and what a refusal
 * means to its callers.
 */
export class FairScheduler {
  private readonly queue: FairQueue<ScheduledTask>;
  private running = 0;

  constructor(private readonly options: FairSchedulerOptions) {
    this.queue = new FairQueue(options);
  }

  /**
   * `task`'s result once it has run in `account`'s turn; null, with nothing queued, when the
   * account already has `maxWaitingPerAccount` waiting (the caller refuses, saying why).
   */
  schedule<R>(account: AccountKey, task: () => Promise<R>): Promise<R> | null {
    let queued!: ScheduledTask;
    const result = new Promise<R>((resolve, reject) => {
      queued = { run: () => new Promise<R>((started) => started(task())).then(resolve, reject), fail: reject };
    });
    if (!this.queue.push(account, queued)) return null;
    this.pump();
    return result;
  }

  /** Tasks waiting their turn (all accounts), for an estimate of the wait. */
  get waiting(): number {
    return this.queue.waitingCount();
  }

  /** Ends every task still waiting with `reason`; tasks already running finish. */
  drain(reason: Error): void {
    for (const task of this.queue.drainWaiting()) task.fail(reason);
  }

  private pump(): void {
    while (this.running < this.options.slots) {
      const task = this.queue.take();
      if (!task) return;
      this.running++;
      const started = performance.now();
      void task.run().finally(() => {
        this.running--;
        this.queue.done(task, this.options.charge === 'ms' ? performance.now() - started : 1);
        this.pump();
      });
    }
  }
}

/**
 * For work claimed from the database in batches (automation runs, webhook deliveries): the
 * claimed rows in turn order, one of each account in turn, each account's rows in the order
 * given, and at most `perAccount` of any account. What is left out stays for the next claim.
 */
export function interleaveByAccount<T>(rows: readonly T[], accountOf: (row: T) => AccountKey, perAccount = Infinity): T[] {
  const queues = new Map<AccountKey, T[]>();
  for (const row of rows) {
    const key = accountOf(row);
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = []));
    if (queue.length < perAccount) queue.push(row);
  }
  const out: T[] = [];
  for (let round = 0; out.length < rows.length; round++) {
    let any = false;
    for (const queue of queues.values()) {
      if (round < queue.length) {
        out.push(queue[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}
