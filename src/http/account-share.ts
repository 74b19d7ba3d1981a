import type { ServerResponse } from 'node:http';

/** Requests of one account that start in one turn of the event loop. */
export const REQUESTS_STARTED_PER_TURN = 4;
/** Requests of one account that may wait for their turn; past it they are refused (429, or the busy page of a public view). */
export const REQUESTS_WAITING_PER_ACCOUNT = 256;

interface AccountState {
  inProgress: number;
  startedThisTurn: number;
  waiting: Array<() => void>;
}

/**
 * Issue 28: an account's share of the HTTP thread. Every queue that accounts share is fair (the
 * compile and render threads, the read processes, the runner), but the thread that answers
 * requests served them as they came. Requests that arrive together are read in one turn of the
 * event loop, and on SQLite each runs to its answer right there (its statements are synchronous):
 * with forty requests of account A ready, a request of account B was read only after all forty
 * had run.
 *
 * So a request, once its account is known (the key or session, or the account whose content a
 * public view shows), starts only while its account has started fewer than `perTurn` requests in
 * this turn and has fewer than `inProgressPerAccount` in progress (those wait on a compile or a
 * read, or on PostgreSQL). The others wait, in order, costing nothing but their place, and start
 * in later turns. Between two looks at the sockets the thread then runs at most `perTurn` handlers
 * of any one account, so B's request is read a few of A's handlers later, not forty.
 *
 * Accounts never wait for each other here, only for themselves. A request leaves when its
 * response closes (answered, or the client went away).
 */
export class AccountShare {
  private readonly accounts = new Map<number, AccountState>();
  private turnScheduled = false;

  readonly waitingPerAccount: number;
  readonly perTurn: number;

  constructor(
    /** REQUESTS_PER_ACCOUNT (config.ts) */
    readonly inProgressPerAccount: number,
    limits: { perTurn?: number; waitingPerAccount?: number } = {},
  ) {
    this.perTurn = limits.perTurn ?? REQUESTS_STARTED_PER_TURN;
    this.waitingPerAccount = limits.waitingPerAccount ?? REQUESTS_WAITING_PER_ACCOUNT;
  }

  /**
   * Admits the request that `res` answers under `account`: null when it may go on now, a promise
   * when it must wait its turn, 'refused' when its account already has as many waiting as it may.
   */
  enter(account: number, res: ServerResponse): Promise<void> | null | 'refused' {
    const state = this.stateOf(account);
    if (state.waiting.length === 0 && this.mayStart(state)) {
      this.start(state, res);
      return null;
    }
    if (state.waiting.length >= this.waitingPerAccount) return 'refused';
    return new Promise<void>((resolve) => {
      const admit = () => {
        this.start(state, res);
        resolve();
      };
      state.waiting.push(admit);
      // A client that gave up while its request waited frees its place.
      res.once('close', () => {
        const at = state.waiting.indexOf(admit);
        if (at >= 0) state.waiting.splice(at, 1);
        this.forget(account, state);
      });
      this.nextTurn();
    });
  }

  /** Requests of `account` in progress (started and not yet answered). */
  inProgress(account: number): number {
    return this.accounts.get(account)?.inProgress ?? 0;
  }

  /** Requests of `account` waiting for their turn. */
  waiting(account: number): number {
    return this.accounts.get(account)?.waiting.length ?? 0;
  }

  private mayStart(state: AccountState): boolean {
    return state.startedThisTurn < this.perTurn && state.inProgress < this.inProgressPerAccount;
  }

  private start(state: AccountState, res: ServerResponse): void {
    state.inProgress++;
    state.startedThisTurn++;
    this.nextTurn();
    res.once('close', () => {
      state.inProgress--;
      // With no cap per turn (PostgreSQL) the next one may start at once; the turn is not bounded there.
      if (this.perTurn === Infinity) this.startWaiting(state);
      this.nextTurn();
    });
  }

  /**
   * The turn ends in the check phase, after this turn's I/O: counts start again and waiting
   * requests start, up to each account's share. Their handlers run there, and the next look at
   * the sockets comes after them. (Starting a waiter as soon as a response closes would chain the
   * whole backlog into one turn: a response closes in the turn it was written.)
   */
  private nextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      for (const [account, state] of this.accounts) {
        state.startedThisTurn = 0;
        this.startWaiting(state);
        this.forget(account, state);
      }
    });
  }

  private startWaiting(state: AccountState): void {
    while (state.waiting.length > 0 && this.mayStart(state)) state.waiting.shift()!();
  }

  private stateOf(account: number): AccountState {
    let state = this.accounts.get(account);
    if (!state) this.accounts.set(account, (state = { inProgress: 0, startedThisTurn: 0, waiting: [] }));
    return state;
  }

  /** An account with nothing in progress or waiting, whose turn is over, needs no state. */
  private forget(account: number, state: AccountState): void {
    if (state.inProgress === 0 && state.waiting.length === 0 && state.startedThisTurn === 0) this.accounts.delete(account);
  }
}
