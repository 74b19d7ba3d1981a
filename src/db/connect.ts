import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Dialect as KyselyDialect, type SqliteDialectConfig, type Transaction } from 'kysely';
import { GroupCommitSqliteDriver } from './group-commit.ts';
import { runPreparedTextsByName } from './named-statements.ts';
import pg from 'pg';
import { SchemaScopedPostgresDialect } from './current-schema-introspector.ts';
import type { Database } from './schema.ts';
import { registerSqliteFunctions } from './sql-helpers.ts';
import { activeScope, RequestScope, RequestScopedDriver } from './request-transaction.ts';
import type { Dialect } from './dialect.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

export type { Dialect } from './dialect.ts';
/** Repos take either the database or an open transaction; the caller owns the transaction. */
export type Db = Kysely<Database> | Transaction<Database>;

export interface DbHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// PostgreSQL returns int8 (COUNT, SUM, bigserial ids) as strings; every such value here fits a JS number.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface ConnectOptions {
  databaseUrl: string | null;
  dataDir: string;
  pgPoolSize?: number;
  /**
   * SQLite: checkpoint the WAL on a thread of its own (WalCheckpointer) instead of inside the
   * COMMIT that fills it, on this thread. The long-running server asks for it; the CLI's short
   * commands keep SQLite's automatic checkpoints. `onError` hears why a checkpoint failed.
   */
  checkpointThread?: { onError(message: string): void };
}

/**
 * Kysely's SQLite driver prepares every query anew, and preparing costs more than running a keyed
 * lookup (see bench/RESULTS.md). Statements are reused by SQL text; SQLite re-prepares a statement
 * itself after a schema change. A statement still being iterated (a stream) is never handed out twice.
 */
function reusePreparedStatements(sqlite: SQLite.Database, max = 500): void {
  const statements = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let stmt = statements.get(source);
    if (stmt === undefined || stmt.busy) {
      stmt = prepare(source);
      // Queries built with a variable number of parameters make many texts; keep the set bounded.
      if (statements.size >= max) statements.clear();
      statements.set(source, stmt);
    }
    return stmt;
  }) as typeof sqlite.prepare;
}

/**
 * Transactions take SQLite's write lock as they begin (BEGIN IMMEDIATE). With a plain BEGIN, a
 * transaction that reads and then writes fails at once with SQLITE_BUSY_SNAPSHOT ("database is
 * locked") when another process, e.g. the CLI beside the server, committed in between; busy_timeout
 * does not cover that case. Taken up front, the lock makes the two processes wait for each other.
 * Transactions of one turn of the event loop share one BEGIN and one COMMIT (group-commit.ts).
 */
function groupCommitSqliteDialect(config: SqliteDialectConfig, sqlite: SQLite.Database): SqliteDialect {
  const dialect = new SqliteDialect(config);
  dialect.createDriver = () => new GroupCommitSqliteDriver(config, () => sqlite.inTransaction, realpathSync(sqlite.name));
  return dialect;
}

/**
 * The connection URL with `jit=off` among the session's startup options (beside any the operator
 * set, such as a search_path). The queries here are short, and the planner's guesses about JSON
 * tests made it compile ones it believed long, adding 40-290 ms to a segment count that otherwise
 * takes about 500 (bench/RESULTS.md). A URL that does not parse as one is left as it is.
 */
export function withoutJit(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return databaseUrl;
  }
  const options = url.searchParams.get('options');
  if (options?.includes('jit=')) return databaseUrl;
  url.searchParams.set('options', [options, '-c jit=off'].filter(Boolean).join(' '));
  return url.toString();
}

/** Kysely over `dialect`, its driver wrapped so that a request's scope makes it one transaction (request-transaction.ts). */
function requestScoped(dialect: KyselyDialect, name: Dialect): Kysely<Database> {
  const createDriver = dialect.createDriver.bind(dialect);
  let driver: RequestScopedDriver | null = null;
  dialect.createDriver = () => (driver = new RequestScopedDriver(createDriver(), name));
  const db = new Kysely<Database>({ dialect });
  scopedDriverBehind.set(db, driver!);
  return db;
}

const scopedDriverBehind = new WeakMap<Kysely<Database>, RequestScopedDriver>();

/**
 * D25.6: a scope in which every transaction and query on `handle` joins one transaction, opened
 * at the first of them and ended by the caller (RequestScope.end). Run the work inside it with
 * runInRequestScope.
 */
export function openRequestScope(handle: DbHandle): RequestScope {
  const driver = scopedDriverBehind.get(handle.db);
  if (!driver) throw new Error('this database handle was not made by connect()');
  return new RequestScope(driver);
}

/** Closing twice is harmless (a failed start and a shutdown may both try). */
function closeOnce(db: Kysely<Database>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => (closing ??= db.destroy());
}

/** The embedded database's file in DATA_DIR (also opened read-only by the read processes, read-pool.ts). */
export const sqliteFile = (dataDir: string) => join(dataDir, 'sendwell.db');

export function connect(opts: ConnectOptions): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: withoutJit(opts.databaseUrl),
      max: opts.pgPoolSize ?? 10,
    });
    pool.on('connect', runPreparedTextsByName);
    const db = requestScoped(new SchemaScopedPostgresDialect({ pool }), 'postgres');
    pgPoolBehind.set(db, pool);
    return { db, dialect: 'postgres', close: closeOnce(db) };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const sqlite = new SQLite(sqliteFile(opts.dataDir));
  // WAL lets the CLI write while the server runs; busy_timeout makes the two wait instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Issue 28 L2: deleted rows are overwritten with zeros, not left in free pages for anyone who
  // copies the file (erased personal data must be gone, not unlinked). See flushErasedPages too.
  sqlite.pragma('secure_delete = ON');
  reusePreparedStatements(sqlite);
  registerSqliteFunctions(sqlite);
  const db = requestScoped(groupCommitSqliteDialect({ database: sqlite }, sqlite), 'sqlite');
  sqliteBehind.set(db, sqlite);
  if (!opts.checkpointThread) return { db, dialect: 'sqlite', close: closeOnce(db) };
  const checkpoints = WalCheckpointer.start(sqliteFile(opts.dataDir), opts.checkpointThread.onError);
  sqlite.pragma('wal_autocheckpoint = 0');
  const closeDb = closeOnce(db);
  let closing: Promise<void> | null = null;
  // The thread's connection closes first, so this one is the last and takes the final checkpoint.
  return { db, dialect: 'sqlite', close: () => (closing ??= checkpoints.close().then(closeDb)) };
}

/**
 * Issue 28 L2: after an erasure, the pages that held the data leave the WAL: a TRUNCATE checkpoint
 * copies the WAL's pages (zeroed by secure_delete) into the database file and empties the WAL,
 * where the committed old versions would otherwise stay until a later checkpoint reuses them.
 * Best effort, and never waiting: a reader still on an older snapshot (the CLI beside the server)
 * keeps it from finishing, and busy_timeout would have this synchronous call freeze the process
 * for up to 5 s, so it runs with no busy wait and answers `complete: false` for the caller to
 * report; a later checkpoint finishes it. So does a transaction open on the connection.
 * PostgreSQL: nothing here; dead tuples leave with VACUUM, which is the operator's.
 */
export function flushErasedPages(handle: DbHandle): { complete: boolean } {
  if (handle.dialect !== 'sqlite') return { complete: true };
  const sqlite = idleSqlite(handle.db);
  if (!sqlite) return { complete: false };
  const busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma('busy_timeout = 0');
  try {
    const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return { complete: result.busy === 0 };
  } finally {
    sqlite.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

const sqliteBehind = new WeakMap<Kysely<Database>, SQLite.Database>();
const sqliteUnderTransaction = new WeakMap<Transaction<Database>, SQLite.Database>();

/** Records which SQLite connection `trx` (a transaction of `root`, transaction.ts) runs on. */
export function bindTransaction(trx: Transaction<Database>, root: Kysely<Database>): void {
  const sqlite = sqliteBehind.get(root);
  if (sqlite) sqliteUnderTransaction.set(trx, sqlite);
}

/**
 * Issue 35: the SQLite connection of an open transaction, for a prepared statement that may run
 * on it directly, synchronously. The transaction holds the connection (Kysely's lock, or the
 * request scope's, request-transaction.ts) from its BEGIN or SAVEPOINT to its end, so a statement
 * run here is exactly what the same statement through Kysely would be, without the few promises
 * per statement the driver's layers take. Null for a plain handle, PostgreSQL, or a transaction
 * not opened through transaction.ts.
 */
export function transactionSqlite(db: Db): SQLite.Database | null {
  if (!db.isTransaction) return null;
  const sqlite = sqliteUnderTransaction.get(db as Transaction<Database>);
  return sqlite?.open ? sqlite : null;
}
const pgPoolBehind = new WeakMap<Kysely<Database>, pg.Pool>();

/**
 * The PostgreSQL pool behind `db`, for a statement that runs outside any transaction (the pool
 * lends it a connection of its own): null for a transaction, inside a request's open transaction
 * (request-transaction.ts), or for SQLite.
 */
export function idlePgPool(db: Db): pg.Pool | null {
  // D25.6: a request that is one transaction reads and writes on it, never beside it.
  if (db.isTransaction || activeScope()?.opened) return null;
  return pgPoolBehind.get(db as Kysely<Database>) ?? null;
}

/**
 * The SQLite connection behind `db`, for a read that may run on it directly, synchronously: only
 * when `db` is not a transaction and no transaction is open on the connection. Kysely serialises
 * every query through one connection lock (several promises per query); a direct read between
 * transactions sees exactly what a query through Kysely would, committed data only, and nothing
 * can interleave with a synchronous call. Null otherwise (PostgreSQL, a transaction, one open).
 */
export function idleSqlite(db: Db): SQLite.Database | null {
  if (db.isTransaction) return null;
  const sqlite = sqliteBehind.get(db as Kysely<Database>);
  return sqlite && !sqlite.inTransaction && sqlite.open ? sqlite : null;
}
