import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql, type CompiledQuery } from 'kysely';
import type { Logger } from 'pino';
import { FairScheduler } from '../domain/shared/fair-queue.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import type { DbHandle } from './connect.ts';
import type { ReadReply, ReadTask } from './read-worker.ts';

/**
 * issue 28 C2: reads whose cost a tenant shapes (a segment's count and members, an audience
 * estimate, a contact search) run here, never on the HTTP thread, each within a time budget:
 * - SQLite: on `size` read processes (read-worker.ts), each with its own read-only connection to
 *   the server's file (WAL). better-sqlite3 is synchronous, so on the server's own connection a
 *   slow query froze every request. Past the budget the process is killed (a worker thread could
 *   not be: terminating it waits for SQLite to return) and a new one takes its place.
 * - PostgreSQL: on the server's pool, in a transaction whose `statement_timeout` is the budget.
 * Either way at most `size` such reads run at once, taken from one FairQueue by account, at most
 * half of them for one account: one account's slow counts queue behind each other, not in front
 * of everyone else's, and ten of them no longer hold all of PostgreSQL's pooled connections.
 * Past the budget the request is 400 INVALID_REQUEST naming the limit (the caller says which
 * field of the request made the read heavy).
 */
export interface ReadPoolOptions {
  /** reads at once (READ_POOL_SIZE) */
  size: number;
  /** time one read may take once it runs, in ms (READ_BUDGET_MS) */
  budgetMs: number;
  /** the SQLite file, for the read processes; null on PostgreSQL */
  sqliteFile: string | null;
}

/** Anything Kysely can compile: a select builder, a raw `sql` query. */
export interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

/** A query whose rows can be read here or in the pool: a Kysely select builder. */
export interface ReadQuery<R> extends Compilable<R> {
  execute(): Promise<R[]>;
}

/** How a repo's read runs: on the caller's connection (`readHere`), or through the pool (`ReadPool.reader`). */
export type ReadRows = <R>(query: ReadQuery<R>) => Promise<R[]>;

/** On the caller's connection, as any query: reads whose cost no tenant shapes, and transactions. */
export const readHere: ReadRows = (query) => query.execute();

/** One read: its SQL, and what to narrow when it takes too long. */
interface Job {
  compiled: CompiledQuery<unknown>;
  tooLong: string;
}

/** A read process, ready for a task once `ready` resolved. */
interface ReadProcess {
  child: ChildProcess;
  ready: Promise<void>;
  /** the task's callback while one runs */
  pending: ((reply: ReadReply | { exited: string }) => void) | null;
}

/** PostgreSQL's code for a statement cancelled by statement_timeout. */
const PG_QUERY_CANCELED = '57014';

export class ReadPool {
  private readonly reads: FairScheduler;
  private readonly idle: ReadProcess[] = [];
  /** processes alive (idle, reading or starting) */
  private alive = 0;
  /** the spare being started (keepSpare): a read that finds no idle process takes it rather than start another */
  private starting: ReadProcess | null = null;
  private closed = false;

  constructor(
    private readonly handle: DbHandle,
    private readonly options: ReadPoolOptions,
    private readonly logger?: Logger,
  ) {
    if (handle.dialect === 'sqlite' && !options.sqliteFile) throw new Error('ReadPool: SQLite needs the database file');
    // Charged in ms of reading; a turn is a quarter second, so a slow account's reads wait for others' quick ones.
    this.reads = new FairScheduler({ quantum: 250, maxDebt: options.budgetMs * 2, maxInFlightPerAccount: Math.max(1, Math.floor(options.size / 2)), slots: options.size, charge: 'ms' });
  }

  /**
   * The rows of `query`, read for `accountId` within the budget. Past it: 400 whose message is
   * `tooLong` (what to narrow, naming the request's field) and the limit.
   */
  run<R>(accountId: number, query: Compilable<R>, tooLong: string): Promise<R[]> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'));
    const job: Job = { compiled: query.compile() as CompiledQuery<unknown>, tooLong };
    // No waiting cap, so never refused: an account's reads are bounded by its requests (rate limits, HTTP concurrency).
    return this.reads.schedule(accountId, () => this.read(job))! as Promise<R[]>;
  }

  /** `run` for one account's reads of one request, as a repo takes it. */
  reader(accountId: number, tooLong: string): ReadRows {
    return (query) => this.run(accountId, query, tooLong);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reads.drain(new Error('the server is stopping'));
    for (const p of this.idle.splice(0)) p.child.kill('SIGKILL');
    this.takeStarting()?.child.kill('SIGKILL');
  }

  private read(job: Job): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the server is stopping'));
    return this.handle.dialect === 'postgres' ? this.onPostgres(job) : this.onSqlite(job);
  }

  private tooLong(job: Job): ValidationError {
    return new ValidationError(`${job.tooLong} (a read may take at most ${this.options.budgetMs / 1000} s, READ_BUDGET_MS)`);
  }

  private async onPostgres(job: Job): Promise<unknown[]> {
    try {
      return await this.handle.db.transaction().execute(async (trx) => {
        // set_config(..., true) is SET LOCAL: the budget ends with this transaction.
        await sql`select set_config('statement_timeout', ${String(this.options.budgetMs)}, true)`.execute(trx);
        return (await trx.executeQuery(job.compiled)).rows;
      });
    } catch (err) {
      if ((err as { code?: string }).code === PG_QUERY_CANCELED) throw this.tooLong(job);
      throw err;
    }
  }

  private async onSqlite(job: Job): Promise<unknown[]> {
    const proc = this.idle.pop() ?? this.takeStarting() ?? this.spawn();
    this.keepSpare();
    await proc.ready;
    const reply = await new Promise<ReadReply | { exited: string } | { timedOut: true }>((resolve) => {
      // The budget starts when the query does, not while it waited for its turn.
      const timer = setTimeout(() => {
        proc.pending = null;
        proc.child.kill('SIGKILL');
        resolve({ timedOut: true });
      }, this.options.budgetMs);
      proc.pending = (r) => {
        clearTimeout(timer);
        proc.pending = null;
        resolve(r);
      };
      proc.child.send({ sql: job.compiled.sql, parameters: job.compiled.parameters } satisfies ReadTask);
    });
    if ('timedOut' in reply) {
      this.logger?.warn({ budgetMs: this.options.budgetMs }, 'read pool: a read ran past its budget; its process was killed');
      throw this.tooLong(job);
    }
    if ('exited' in reply) throw new Error(`read process ended: ${reply.exited}`);
    if (!this.closed && proc.child.exitCode === null) this.idle.push(proc);
    else proc.child.kill('SIGKILL');
    if ('error' in reply) throw new Error(reply.error);
    if ('rows' in reply) return reply.rows;
    throw new Error('read process answered out of turn');
  }

  /**
   * Starts the next process before a read needs it, while the pool has room: a process takes
   * 0.3-0.5 s to start on a busy machine, which the first read beside another account's used to
   * wait for (bench/RESULTS.md, noisy neighbour). A pool that has never had two reads at once keeps
   * one process and one spare.
   */
  private keepSpare(): void {
    if (this.closed || this.starting || this.idle.length > 0 || this.alive >= this.options.size) return;
    const spare = this.spawn();
    this.starting = spare;
    spare.ready.then(
      () => {
        if (this.starting !== spare) return; // a read took it while it started
        this.starting = null;
        if (!this.closed && spare.child.exitCode === null) this.idle.push(spare);
        else spare.child.kill('SIGKILL');
      },
      () => {
        if (this.starting === spare) this.starting = null;
      },
    );
  }

  private takeStarting(): ReadProcess | null {
    const spare = this.starting;
    this.starting = null;
    return spare;
  }

  private spawn(): ReadProcess {
    const fromSource = import.meta.url.endsWith('.ts');
    const entry = fileURLToPath(new URL(fromSource ? './read-worker-from-source.mjs' : './read-worker.js', import.meta.url));
    const child = fork(entry, [this.options.sqliteFile!], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const proc: ReadProcess = { child, pending: null, ready: Promise.resolve() };
    this.alive++;
    proc.ready = new Promise<void>((ready, failed) => {
      child.on('message', (m: ReadReply) => {
        if ('ready' in m) ready();
        else proc.pending?.(m);
      });
      child.once('exit', (code, signal) => {
        this.alive--;
        const why = signal ? `killed by ${signal}` : `exit code ${code}`;
        failed(new Error(`read process did not start: ${why}`));
        proc.pending?.({ exited: why });
        const at = this.idle.indexOf(proc);
        if (at >= 0) this.idle.splice(at, 1);
      });
    });
    // A process that failed to start is reported to the read that waited for it, never unhandled.
    proc.ready.catch(() => undefined);
    return proc;
  }
}
