/**
 * issue 28 C2: one read process of the read pool (read-pool.ts). It opens the server's SQLite file
 * read-only (WAL lets it read beside the server's writes), runs one compiled query at a time and
 * answers with its rows. A process, not a worker thread: terminating a thread does not stop a
 * query running inside SQLite (the thread ends only once sqlite3_step returns, which may be never),
 * while a killed process stops at once, so the pool's time budget really ends the work.
 */
import SQLite from 'better-sqlite3';
import { registerSqliteFunctions } from './sql-helpers.ts';

export interface ReadTask {
  sql: string;
  parameters: readonly unknown[];
}
export type ReadReply = { ready: true } | { rows: unknown[] } | { error: string };

const file = process.argv[2];
if (!file || !process.send) throw new Error('read-worker: start it with the database file, over IPC (read-pool.ts)');
const send = process.send.bind(process);

const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');
registerSqliteFunctions(sqlite);

// The same filter shapes come back (a saved segment counted on every list), so statements are
// kept by SQL text, a bounded number of them.
const statements = new Map<string, SQLite.Statement>();
function prepare(source: string): SQLite.Statement {
  let stmt = statements.get(source);
  if (!stmt) {
    if (statements.size >= 100) statements.clear();
    stmt = sqlite.prepare(source);
    statements.set(source, stmt);
  }
  return stmt;
}

process.on('message', (task: ReadTask) => {
  let reply: ReadReply;
  try {
    const stmt = prepare(task.sql);
    if (!stmt.reader) throw new Error('the read pool runs queries that return rows only');
    reply = { rows: stmt.all(...(task.parameters as unknown[])) };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  send(reply);
});
// The parent's channel closing (the server stopped or died) ends this process too.
process.on('disconnect', () => process.exit(0));
send({ ready: true } satisfies ReadReply);
