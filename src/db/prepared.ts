import { PostgresAdapter, type CompiledQuery, type Compilable } from 'kysely';
import { idlePgPool, idleSqlite, transactionSqlite, type Db, type Dialect } from './connect.ts';
import { NamedStatement, runByNameInTransactions } from './named-statements.ts';

/** Each preparedQuery's statement name on PostgreSQL (names are per connection; this process owns its connections). */
let statementCount = 0;

/** Stand-ins put where the parameters go when the query is built; unique enough to find again. */
const placeholder = (i: number) => `\u0000sendwell-param-${i}\u0000`;

/**
 * A query built and compiled once per dialect, then run with new parameter values on any
 * database handle or transaction of that dialect: building and compiling a Kysely query costs
 * more than running a keyed lookup, so hot paths (every authenticated read) skip it. `build`
 * receives stand-ins for the parameters and must use each only as a bound value (in a where
 * clause, say), never as an identifier or a limit. On SQLite, outside transactions, the query runs
 * on the connection directly (see idleSqlite). On PostgreSQL, outside transactions, it runs as a
 * named prepared statement: each pooled connection parses and plans it once instead of on every
 * request (issue "The API hot path": about 1.5 times the lookups per second on the same machine).
 */
export function preparedQuery<P extends unknown[], R>(arity: P['length'], build: (db: Db, dialect: Dialect, ...params: P) => Compilable<R>) {
  const compiled = new Map<Dialect, { query: CompiledQuery<R>; slots: number[] }>();
  const named = new NamedStatement(`sendwell_q${++statementCount}`);
  return async (db: Db, ...params: P): Promise<R[]> => {
    const dialect = dialectOf(db);
    let entry = compiled.get(dialect);
    if (!entry) {
      const stand = Array.from({ length: arity }, (_, i) => placeholder(i)) as P;
      const query = build(db, dialect, ...stand).compile();
      // For each bound parameter: which of ours it is, or -1 for a constant of the query itself.
      const slots = query.parameters.map((p) => (typeof p === 'string' ? (stand as unknown[]).indexOf(p) : -1));
      if (new Set(slots.filter((s) => s >= 0)).size !== arity) throw new Error('preparedQuery: each parameter must be bound once, as a value');
      entry = { query, slots };
      compiled.set(dialect, entry);
      // In a transaction on PostgreSQL each pooled client sends this text by name (named-statements.ts).
      if (dialect === 'postgres') runByNameInTransactions(query.sql, named);
    }
    const { query, slots } = entry;
    const parameters = slots.map((slot, i) => (slot >= 0 ? params[slot] : query.parameters[i]));
    const sqlite = idleSqlite(db);
    const statement = sqlite?.prepare(query.sql);
    if (statement?.reader) return statement.all(parameters) as R[];
    // Inside a transaction on SQLite, writes too: nothing else can run on the connection meanwhile.
    const held = transactionSqlite(db)?.prepare(query.sql);
    if (held) {
      if (held.reader) return held.all(parameters) as R[];
      held.run(parameters);
      return [];
    }
    const pool = idlePgPool(db);
    if (pool) return named.run<R>(pool, query.sql, parameters);
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}

/** The dialect of a handle or transaction: a prepared query finds it itself, so its callers need not carry it. */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
