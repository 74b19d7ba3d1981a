import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';

/** Work for after the commit (transaction.ts AfterCommit; declared here too, as that module imports this one). */
type AfterCommit = () => unknown;

/**
 * D25.6: a request sent with an Idempotency-Key is ONE transaction, so that the key's row commits
 * with the request's effects or not at all (a SIGKILL between them cannot leave one without the
 * other). Services keep opening their own transactions; while a request's scope is active, this
 * driver turns them into savepoints of one outer transaction:
 * - the outer transaction begins lazily, at the request's first transaction (on SQLite it holds
 *   the write lock and the one connection, so the window stays as short as the request's writes);
 * - the first `transaction().execute(fn)` opens it; each later one becomes a SAVEPOINT, rolled
 *   back to if `fn` throws, so a failed step undoes what it did and nothing else, as its own
 *   transaction did (the first one failing rolls the outer transaction back: nothing else is in
 *   it yet, and the next transaction opens it again);
 * - a plain query of the request, once the outer transaction is open, runs on its connection
 *   (SQLite has one connection: anything else would wait for the request forever); on PostgreSQL
 *   inside a savepoint of its own, since a failed statement would otherwise abort the whole
 *   transaction where it used to fail alone;
 * - after-commit work (transaction.ts `onCommit`) waits for the outer commit.
 * The HTTP layer (http/idempotency.ts) ends the scope: it commits, with the key's row for a 2xx,
 * before the answer is sent. A scope that has ended is ignored, so a timer or callback that
 * inherited it from the request runs on its own afterwards.
 */
export class RequestScope {
  /** the outer transaction's connection, once opened */
  private pinned: DatabaseConnection | null = null;
  private opening: Promise<DatabaseConnection> | null = null;
  private ended = false;
  /** counted among the scopes in use (runInRequestScope) until it ends */
  counted = false;
  /** logical transactions of the request run one after another (savepoints nest, they do not interleave) */
  private turn: Promise<void> = Promise.resolve();
  /** PostgreSQL: a plain query's savepoint is opened, used and released before the next one's */
  private plainTurn: Promise<void> = Promise.resolve();
  private readonly afterCommit: AfterCommit[] = [];

  constructor(readonly driver: RequestScopedDriver) {}

  get active(): boolean {
    return !this.ended;
  }

  get opened(): boolean {
    return this.pinned !== null;
  }

  /** Work for after the outer commit; dropped by a rollback. */
  defer(work: AfterCommit): void {
    this.afterCommit.push(work);
  }

  /** Waits for the request's running transaction, then holds the turn until `release` is called. */
  async takeTurn(): Promise<() => void> {
    const previous = this.turn;
    let release!: () => void;
    this.turn = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  }

  /**
   * The same for plain queries on PostgreSQL, apart from the transactions' turn: a plain query
   * inside a transaction's function (not through its `trx`) must not wait for that transaction.
   */
  async takePlainTurn(): Promise<() => void> {
    const previous = this.plainTurn;
    let release!: () => void;
    this.plainTurn = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  }

  /** The outer transaction's connection, opening it first if needed (once, however many ask at once). */
  outer(settings: TransactionSettings = {}): Promise<DatabaseConnection> {
    if (this.ended) return Promise.reject(new Error('the request transaction has ended'));
    if (this.pinned) return Promise.resolve(this.pinned);
    return (this.opening ??= this.open(settings).finally(() => (this.opening = null)));
  }

  private async open(settings: TransactionSettings): Promise<DatabaseConnection> {
    const connection = await this.driver.inner.acquireConnection();
    try {
      await this.driver.inner.beginTransaction(connection, settings);
    } catch (err) {
      await this.driver.inner.releaseConnection(connection);
      throw err;
    }
    this.pinned = connection;
    return connection;
  }

  /**
   * Rolls the outer transaction back while nothing but its first transaction was in it (that
   * one failed): the scope is as if nothing had been opened.
   */
  async discardOuter(): Promise<void> {
    const connection = this.pinned;
    this.pinned = null;
    this.afterCommit.length = 0;
    if (!connection) return;
    try {
      await this.driver.inner.rollbackTransaction(connection);
    } finally {
      await this.driver.inner.releaseConnection(connection);
    }
  }

  /**
   * Commits (or rolls back) the outer transaction, if one opened, and ends the scope: later queries
   * take their own connection. Returns the after-commit work to run (none after a rollback).
   */
  async end(outcome: 'commit' | 'rollback'): Promise<AfterCommit[]> {
    const release = await this.takeTurn();
    try {
      if (this.ended) return [];
      this.ended = true;
      if (this.counted) scopeLeft();
      const work = this.afterCommit.splice(0);
      const connection = this.pinned;
      this.pinned = null;
      if (connection) {
        try {
          if (outcome === 'commit') await this.driver.inner.commitTransaction(connection);
          else await this.driver.inner.rollbackTransaction(connection);
        } catch (err) {
          if (outcome === 'commit') await this.driver.inner.rollbackTransaction(connection).catch(() => undefined);
          throw err;
        } finally {
          await this.driver.inner.releaseConnection(connection);
        }
      }
      return outcome === 'commit' ? work : [];
    } finally {
      release();
    }
  }
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * Scopes entered and not yet ended. On Node 20 an AsyncLocalStorage in use makes every promise of
 * the process pay for carrying it (bench/RESULTS.md, the Idempotency-Key section): once no scope
 * is left, the storage is disabled, so requests without a key pay nothing; the next scope
 * enables it again.
 */
let scopesInUse = 0;

/** Runs `fn` (the rest of a request: its handler) inside `scope`. */
export function runInRequestScope<R>(scope: RequestScope, fn: () => R): R {
  if (scope.active && !scope.counted) {
    scope.counted = true;
    scopesInUse += 1;
  }
  return scopes.run(scope, fn);
}

function scopeLeft(): void {
  scopesInUse -= 1;
  if (scopesInUse === 0) scopes.disable();
}

/**
 * The scope of the current request over `driver`, if it is still active. Work registered for
 * after the commit of a transaction of the request goes to the scope (transaction.ts).
 */
export function activeScope(driver?: RequestScopedDriver): RequestScope | null {
  const scope = scopes.getStore();
  if (!scope?.active || (driver && scope.driver !== driver)) return null;
  return scope;
}

const raw = (text: string) => CompiledQuery.raw(text);

/**
 * A connection as the request's code sees it. Inside a transaction (a savepoint) or once the outer
 * transaction is open, it runs on the outer connection; before that, a plain query takes a
 * connection of its own, as it would without a scope.
 */
class ScopedConnection implements DatabaseConnection {
  private own: DatabaseConnection | null = null;
  /** inside a transaction of the request: its first (the outer transaction itself) or a savepoint */
  role: 'outer' | 'savepoint' | null = null;
  releaseTurn: (() => void) | null = null;

  constructor(
    readonly scope: RequestScope,
    private readonly driver: RequestScopedDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.role !== null) return (await this.scope.outer()).executeQuery<R>(query);
    if (!this.scope.opened || !this.scope.active) return (await this.ownConnection()).executeQuery<R>(query);
    const outer = await this.scope.outer();
    if (this.driver.dialect !== 'postgres') return outer.executeQuery<R>(query);
    // PostgreSQL: a statement that fails aborts the transaction; alone in a savepoint it fails alone.
    const release = await this.scope.takePlainTurn();
    try {
      await outer.executeQuery(raw(`savepoint ${STATEMENT_SAVEPOINT}`));
      try {
        const result = await outer.executeQuery<R>(query);
        await outer.executeQuery(raw(`release savepoint ${STATEMENT_SAVEPOINT}`));
        return result;
      } catch (err) {
        await outer.executeQuery(raw(`rollback to savepoint ${STATEMENT_SAVEPOINT}`));
        await outer.executeQuery(raw(`release savepoint ${STATEMENT_SAVEPOINT}`));
        throw err;
      }
    } finally {
      release();
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const connection = this.role !== null || (this.scope.opened && this.scope.active) ? await this.scope.outer() : await this.ownConnection();
    yield* connection.streamQuery<R>(query, chunkSize);
  }

  private async ownConnection(): Promise<DatabaseConnection> {
    return (this.own ??= await this.driver.inner.acquireConnection());
  }

  async releaseOwn(): Promise<void> {
    if (this.own) await this.driver.inner.releaseConnection(this.own);
    this.own = null;
  }
}

/**
 * Savepoint names are fixed: a name used again refers to the latest savepoint of that name, and
 * the request's transactions run one at a time (strictly nested at most), so names never clash.
 * Fixed text also keeps the prepared-statement cache (connect.ts) from filling with variants.
 */
const TRANSACTION_SAVEPOINT = 'request_transaction';
const STATEMENT_SAVEPOINT = 'request_statement';

/** Wraps a dialect's driver so that requests with a scope share one transaction (see RequestScope). */
export class RequestScopedDriver implements Driver {
  constructor(
    readonly inner: Driver,
    readonly dialect: 'sqlite' | 'postgres',
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const scope = activeScope(this);
    return scope ? new ScopedConnection(scope, this) : this.inner.acquireConnection();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.beginTransaction(connection, settings);
    const release = await connection.scope.takeTurn();
    try {
      if (!connection.scope.opened) {
        await connection.scope.outer(settings);
        connection.role = 'outer';
      } else {
        await (await connection.scope.outer()).executeQuery(raw(`savepoint ${TRANSACTION_SAVEPOINT}`));
        connection.role = 'savepoint';
      }
      connection.releaseTurn = release;
    } catch (err) {
      release();
      throw err;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.commitTransaction(connection);
    // Into the outer transaction, which the request commits; a failure makes Kysely roll back, which ends the turn.
    if (connection.role === 'savepoint') await (await connection.scope.outer()).executeQuery(raw(`release savepoint ${TRANSACTION_SAVEPOINT}`));
    this.endTransaction(connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.rollbackTransaction(connection);
    try {
      if (connection.role === 'outer') {
        await connection.scope.discardOuter();
      } else {
        const outer = await connection.scope.outer();
        await outer.executeQuery(raw(`rollback to savepoint ${TRANSACTION_SAVEPOINT}`));
        await outer.executeQuery(raw(`release savepoint ${TRANSACTION_SAVEPOINT}`));
      }
    } finally {
      this.endTransaction(connection);
    }
  }

  private endTransaction(connection: ScopedConnection): void {
    connection.role = null;
    const release = connection.releaseTurn;
    connection.releaseTurn = null;
    release?.();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ScopedConnection) return connection.releaseOwn();
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
