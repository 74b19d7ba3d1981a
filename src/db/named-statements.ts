import type pg from 'pg';

/** PostgreSQL's answer when a table a prepared statement reads changed shape (a migration since it was prepared). */
const CACHED_PLAN_CHANGED = /cached plan must not change result type/;

/**
 * One statement run by name. When a migration from another process changes a table under it,
 * PostgreSQL refuses the old plan once per connection; the statement then takes a new name, so
 * every connection prepares it afresh, and the query is tried again (it changed nothing: it failed).
 */
export class NamedStatement {
  private generation = 0;
  constructor(private readonly base: string) {}

  async run<R>(pool: pg.Pool, text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await pool.query({ name: this.name(), text, values })).rows as R[];
    } catch (err) {
      if (!CACHED_PLAN_CHANGED.test((err as Error).message)) throw err;
      this.generation++;
      return (await pool.query({ name: this.name(), text, values })).rows as R[];
    }
  }

  /**
   * The same inside a transaction (`send` is its client's query). It cannot be tried again there:
   * the failure aborted the transaction, so the caller's fails, and the next use takes the new name.
   */
  async runIn(send: (config: pg.QueryConfig) => Promise<pg.QueryResult>, text: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      return await send({ name: this.name(), text, values });
    } catch (err) {
      if (CACHED_PLAN_CHANGED.test((err as Error).message)) this.generation++;
      throw err;
    }
  }

  private name() {
    return this.generation === 0 ? this.base : `${this.base}_${this.generation}`;
  }
}

/** Texts of prepared queries (prepared.ts) that ran inside a transaction, with their statement. */
const inTransactions = new Map<string, NamedStatement>();

export function runByNameInTransactions(text: string, statement: NamedStatement): void {
  if (!inTransactions.has(text)) inTransactions.set(text, statement);
}

/**
 * Issue 35: a prepared query inside a transaction runs through Kysely, whose PostgreSQL connection
 * sends the bare text, which the server parses and plans again each time (a contact's create runs
 * several such statements, and PostgreSQL's backends share the cores with the API). Each client
 * of the pool runs a text registered above as its named statement instead, as queries outside
 * transactions already do: each connection parses and plans it once.
 */
export function runPreparedTextsByName(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const statement = typeof config === 'string' && Array.isArray(values) && callback === undefined ? inTransactions.get(config) : undefined;
    return statement ? statement.runIn((named) => query(named), config as string, values as unknown[]) : query(config, values, callback);
  };
}
