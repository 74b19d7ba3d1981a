import type { ServerResponse } from 'node:http';

/** Requests of one account that may wait for their turn; past it they are refused (429, or the busy page of a public view). */
export const REQUESTS_WAITING_PER_ACCOUNT = 256;

export interface AccountShareLimits {
  /** an account's requests in progress at once (REQUESTS_PER_ACCOUNT, config.ts) */
  inProgress: number;
  /** an account's requests started in one turn of the event loop; Infinity: no such cap */
  perTurn: number;
  waitingPerAccount?: number;
}

interface Request {
  started: boolean;
  /** answered or gone: counted out once */
  left: boolean;
  /** starts a waiting request: its handler goes on */
  admit(): void;
}

interface AccountState {
  inProgress: number;
  startedThisTurn: number;
  waiting: Request[];
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
 * this turn and has fewer than `inProgress` in progress (those wait on a compile or a
 * read, or on PostgreSQL). The others wait, in order, costing nothing but their place, and start
 * in later turns. Between two looks at the sockets the thread then runs at most `perTurn` handlers
 * of any one account, so B's request is read a few of A's handlers later, not forty.
 *
 * Accounts never wait for each other here, only for themselves. A request leaves when its answer
 * is written or its client goes away, never later: a client that reads slowly (anyone may ask for
 * a web view) cannot hold an account's places.
 */
export class AccountShare {
  private readonly accounts = new Map<number, AccountState>();
  private turnScheduled = false;

  readonly waitingPerAccount: number;

  constructor(private readonly limits: AccountShareLimits) {
    this.waitingPerAccount = limits.waitingPerAccount ?? REQUESTS_WAITING_PER_ACCOUNT;
  }

  /**
   * Admits the request that `res` answers under `account`: null when it may go on now, a promise
   * when it must wait its turn, 'refused' when its account already has as many waiting as it may.
   */
  enter(account: number, res: ServerResponse): Promise<void> | null | 'refused' {
    const state = this.stateOf(account);
    const startsNow = state.waiting.length === 0 && this.mayStart(state);
    if (!startsNow && state.waiting.length >= this.waitingPerAccount) return 'refused';
    const request: Request = { started: false, left: false, admit: () => undefined };
    // A request leaves once its answer is written (`prefinish`: the thread's work on it is done,
    // even if the client reads it slowly or never, which would otherwise hold its account's place
    // for as long as it liked), or when its client goes away first (`close`).
    const leave = () => this.leave(state, request);
    res.once('prefinish', leave);
    res.once('close', leave);
    if (startsNow) {
      this.start(state, request);
      return null;
    }
    return new Promise<void>((resolve) => {
      request.admit = () => {
        this.start(state, request);
        resolve();
      };
      state.waiting.push(request);
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

  private start(state: AccountState, request: Request): void {
    request.started = true;
    state.inProgress++;
    state.startedThisTurn++;
    this.nextTurn();
  }

  /** Answered, or the client went away: a request in progress frees its place, a waiting one leaves the line. */
  private leave(state: AccountState, request: Request): void {
    if (request.left) return;
    request.left = true;
    if (request.started) {
      state.inProgress--;
      // With no cap per turn (PostgreSQL) the next one may start at once; the turn is not bounded there.
      if (this.limits.perTurn === Infinity) this.startWaiting(state);
    } else {
      state.waiting.splice(state.waiting.indexOf(request), 1);
    }
    this.nextTurn();
  }

  private mayStart(state: AccountState): boolean {
    return state.startedThisTurn < this.limits.perTurn && state.inProgress < this.limits.inProgress;
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
    while (state.waiting.length > 0 && this.mayStart(state)) state.waiting.shift()!.admit();
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
