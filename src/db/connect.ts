import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';
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
}

/** Closing twice is harmless (a failed start and a shutdown may both try). */
function closeOnce(db: Kysely<Database>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => (closing ??= db.destroy());
}

export function connect(opts: ConnectOptions): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.pgPoolSize ?? 10,
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: closeOnce(db) };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const sqlite = new SQLite(join(opts.dataDir, 'sendwell.db'));
  // WAL lets the CLI write while the server runs; busy_timeout makes the two wait instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', close: closeOnce(db) };
}
