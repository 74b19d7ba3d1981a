import { CompiledQuery, SqliteDriver, type DatabaseConnection, type QueryResult } from 'kysely';
import { activeScope } from './request-transaction.ts';

/**
 * Issue 35: SQLite group commit. A write transaction's fixed cost on SQLite is its BEGIN
 * IMMEDIATE (the file locks that let the CLI write beside the server) and its COMMIT (the WAL
 * frames of every page it touched), together more than the statements between them for a small
 * write such as a contact's create (bench/RESULTS.md, the write path). Transactions that run one
 * after another in the same turn of the event loop (the requests one poll of the sockets
 * delivered) therefore share one: the first opens it with BEGIN IMMEDIATE, each runs inside a
 * SAVEPOINT of it, and it commits once, when the loop reaches its check phase (setImmediate) or
 * as soon as anything other than a transaction wants the connection.
 *
 * What each caller sees is what its own transaction gave it:
 * - its `transaction().execute()` returns only after the shared COMMIT (the wait is in
 *   releaseConnection, after the connection is handed on), so no answer is sent, and no
 *   after-commit work runs, for a change that is not durable;
 * - a transaction that fails is rolled back to its savepoint: the others keep what they did;
 * - a COMMIT that fails fails every transaction that shared it (each caller gets the error, as it
 *   would have from its own COMMIT); so does an error after which SQLite rolled the whole
 *   transaction back (SQLITE_FULL, SQLITE_IOERR), which leaves no savepoint to roll back to;
 * - a plain query (outside any transaction) runs after the COMMIT, never inside the open
 *   transaction, so it reads committed data and its own write is committed when it returns;
 *   idleSqlite's direct reads see `inTransaction` and go through the driver, which commits first;
 * - a request's scope (D25.6) joins no group already open: it holds the connection until the
 *   request ends, turns later, so the group open when it begins is committed first.
 * The write lock is held at most until the end of the loop's turn longer than before.
 */
export class GroupCommitSqliteDriver extends SqliteDriver {
  private group: OpenGroup | null = null;
  /** inside a member's savepoint (the connection's holder is a transaction) */
  private inMember = false;
  /** the commit the connection's current holder must wait for once it has handed the connection on */
  private owed: Promise<void> | null = null;
  private flushScheduled = false;

  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    /** whether SQLite still has the transaction open (false after it rolled everything back itself) */
    private readonly inTransaction: () => boolean,
    /** the database file, to know whether another connection of this process writes to it */
    private readonly file: string,
  ) {
    super(config);
  }

  override async init(): Promise<void> {
    await super.init();
    driversOn.set(this.file, (driversOn.get(this.file) ?? 0) + 1);
  }

  /**
   * Another connection of this process writes to the same file (two servers of a test, or a
   * command run in-process beside one): its BEGIN IMMEDIATE would wait, synchronously and so
   * holding the only thread, for a group that only this thread can commit. Each transaction then
   * commits at once, as without groups.
   */
  private get sharesFile(): boolean {
    return (driversOn.get(this.file) ?? 0) > 1;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupMemberConnection(await super.acquireConnection(), this);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const raw = rawOf(connection);
    // This is a request scope's transaction opening (its later ones are savepoints that never
    // reach this driver). Joined to the group, it would keep the transactions before it unanswered
    // until the whole request ended, and for ever if the request waited for one of them.
    if (this.group !== null && activeScope()?.driver.inner === this) await this.commitGroup(raw);
    if (this.group === null) {
      await raw.executeQuery(statement('begin immediate'));
      this.group = openGroup();
      this.scheduleFlush();
    }
    await raw.executeQuery(statement(`savepoint ${MEMBER_SAVEPOINT}`));
    this.inMember = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const group = this.group!;
    await rawOf(connection).executeQuery(statement(`release savepoint ${MEMBER_SAVEPOINT}`));
    this.inMember = false;
    this.owed = group.committed;
    if (this.sharesFile) await this.commitGroup(rawOf(connection));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.inMember = false;
    const group = this.group;
    if (group === null) return;
    if (!this.inTransaction()) {
      // SQLite ended the whole transaction itself: the members released before are undone too.
      this.group = null;
      group.fail(new Error('the shared transaction was rolled back by SQLite after an error in another request'));
      return;
    }
    const raw = rawOf(connection);
    await raw.executeQuery(statement(`rollback to savepoint ${MEMBER_SAVEPOINT}`));
    await raw.executeQuery(statement(`release savepoint ${MEMBER_SAVEPOINT}`));
  }

  override async releaseConnection(): Promise<void> {
    const owed = this.owed;
    this.owed = null;
    await super.releaseConnection();
    if (owed) await owed;
  }

  override async destroy(): Promise<void> {
    await this.flush();
    const left = (driversOn.get(this.file) ?? 1) - 1;
    if (left > 0) driversOn.set(this.file, left);
    else driversOn.delete(this.file);
    await super.destroy();
  }

  /** Commits the open group, if any, while holding the connection. */
  async commitGroup(raw: DatabaseConnection): Promise<void> {
    const group = this.group;
    if (group === null) return;
    this.group = null;
    try {
      await raw.executeQuery(statement('commit'));
      group.succeed();
    } catch (err) {
      if (this.inTransaction()) await raw.executeQuery(statement('rollback')).catch(() => undefined);
      group.fail(err);
    }
  }

  get memberRunning(): boolean {
    return this.inMember;
  }

  get groupOpen(): boolean {
    return this.group !== null;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.group === null) return;
    const raw = await super.acquireConnection();
    try {
      await this.commitGroup(raw);
    } finally {
      await super.releaseConnection();
    }
  }
}

const MEMBER_SAVEPOINT = 'group_member';

/** Open drivers of this process by database file. */
const driversOn = new Map<string, number>();

const statement = (text: string) => CompiledQuery.raw(text);

interface OpenGroup {
  /** settles when the group's COMMIT has run: resolved when it committed, rejected when not */
  committed: Promise<void>;
  succeed(): void;
  fail(err: unknown): void;
}

function openGroup(): OpenGroup {
  let succeed!: () => void;
  let fail!: (err: unknown) => void;
  const committed = new Promise<void>((resolve, reject) => {
    succeed = resolve;
    fail = reject;
  });
  // A group whose members all rolled back has no one waiting: its failure is nobody's to hear.
  committed.catch(() => undefined);
  return { committed, succeed, fail };
}

/**
 * The driver's one connection as its holder sees it: a plain query while a group is open (and the
 * holder is not one of its transactions) commits the group first.
 */
class GroupMemberConnection implements DatabaseConnection {
  constructor(
    readonly raw: DatabaseConnection,
    private readonly driver: GroupCommitSqliteDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.driver.groupOpen && !this.driver.memberRunning) await this.driver.commitGroup(this.raw);
    return this.raw.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.driver.groupOpen && !this.driver.memberRunning) await this.driver.commitGroup(this.raw);
    yield* this.raw.streamQuery<R>(query, chunkSize);
  }
}

const rawOf = (connection: DatabaseConnection) => (connection instanceof GroupMemberConnection ? connection.raw : connection);
