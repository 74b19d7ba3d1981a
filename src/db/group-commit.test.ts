import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, idleSqlite, openRequestScope, sqliteFile, type DbHandle } from './connect.ts';
import { runInRequestScope } from './request-transaction.ts';
import { transaction, type AfterCommitLog, type Tx } from './transaction.ts';

/**
 * Issue 35: the transactions of one turn of the event loop share one BEGIN IMMEDIATE and one
 * COMMIT (group-commit.ts). Everything here goes through connect() on a real file, and what is
 * committed is read by a second, independent connection to that file: a row it sees is in the
 * database, not merely in the open transaction of the connection that wrote it.
 */

let dataDir: string;
let handle: DbHandle;
/** the second connection: it sees committed rows only */
let other: SQLite.Database;
/** every SQL text the handle's connection prepared, in order (Kysely prepares each query it runs) */
let statements: string[];
const log: AfterCommitLog = { error: () => undefined };

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-group-'));
  handle = connect({ databaseUrl: null, dataDir });
  // UNIQUE, so that a member can fail on a constraint (and a value written twice would show).
  await sql`create table t (v text not null unique)`.execute(handle.db);
  other = new SQLite(sqliteFile(dataDir));
  // This test's list: a connection an earlier test left behind must not write into it.
  const seen: string[] = (statements = []);
  // The connection is reachable while no transaction is open; its `prepare` (connect.ts's caching
  // wrapper) is looked up on every query, so a wrapper put over it sees every statement.
  const sqlite = idleSqlite(handle.db)!;
  const prepare = sqlite.prepare;
  sqlite.prepare = ((source: string) => {
    seen.push(source);
    return prepare.call(sqlite, source);
  }) as typeof sqlite.prepare;
});
afterEach(async () => {
  other.close();
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const insert = (trx: Tx, v: string) => sql`insert into t values (${v})`.execute(trx);
/** The rows as the second connection sees them: committed ones only. */
const committed = () => other.prepare('select v from t order by rowid').pluck().all() as string[];
/** How many times the handle's connection ran `text` (a transaction-control statement). */
const ran = (text: string) => statements.filter((s) => s === text).length;
const control = () => statements.filter((s) => /^(begin|commit|rollback|savepoint|release)\b/.test(s));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** `promise`, or a failure naming `what` if it has not settled within `ms` (instead of a hung test). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('group commit: transactions of one turn share one commit', () => {
  it('commits every transaction started in the same turn, with one BEGIN IMMEDIATE and one COMMIT for them all', async () => {
    const n = 6;
    /** what the second connection saw as each transaction began: an earlier member's row, if it had its own commit */
    const seenAtStart: string[][] = [];
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        transaction(handle.db, log, async (trx) => {
          seenAtStart.push(committed());
          await insert(trx, `r${i}`);
          return i;
        }),
      ),
    );
    expect(answers).toEqual([0, 1, 2, 3, 4, 5]);
    // Proven by behaviour: when each later transaction ran, the earlier ones had finished their
    // work, yet none of their rows was committed: they were all still in one open transaction.
    expect(seenAtStart).toEqual(Array.from({ length: n }, () => []));
    expect(committed()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    // Proven by count: one BEGIN IMMEDIATE and one COMMIT, each transaction a savepoint inside.
    expect(ran('begin immediate')).toBe(1);
    expect(ran('commit')).toBe(1);
    expect(ran('savepoint group_member')).toBe(n);
    expect(ran('release savepoint group_member')).toBe(n);

    // The next turn's transactions are the next group: its own BEGIN and COMMIT.
    await Promise.all([transaction(handle.db, log, (trx) => insert(trx, 'next 1')), transaction(handle.db, log, (trx) => insert(trx, 'next 2'))]);
    expect(ran('begin immediate')).toBe(2);
    expect(ran('commit')).toBe(2);
    expect(committed()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'next 1', 'next 2']);
  });

  it('returns from execute() and transaction() only once the row is visible to another connection', async () => {
    // Each caller looks at the other connection the moment its own promise settles: the commit
    // runs later in the turn (setImmediate), so a caller answered before it would see nothing.
    const seenOnReturn = await Promise.all([
      handle.db.transaction().execute((trx) => sql`insert into t values ('a')`.execute(trx)).then(() => committed()),
      transaction(handle.db, log, (trx) => insert(trx, 'b')).then(() => committed()),
      handle.db.transaction().execute((trx) => sql`insert into t values ('c')`.execute(trx)).then(() => committed()),
    ]);
    for (const seen of seenOnReturn) expect(seen).toEqual(['a', 'b', 'c']);

    // Alone in its turn too.
    await handle.db.transaction().execute((trx) => sql`insert into t values ('alone')`.execute(trx));
    expect(committed()).toEqual(['a', 'b', 'c', 'alone']);
  });

  it('undoes a transaction that throws, alone: the others of the turn keep their rows, it rejects with its own error', async () => {
    const failure = new Error('the middle transaction failed');
    const results = await Promise.allSettled([
      transaction(handle.db, log, (trx) => insert(trx, 'before')),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'thrower 1');
        await insert(trx, 'thrower 2');
        throw failure;
      }),
      transaction(handle.db, log, (trx) => insert(trx, 'after')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(failure);
    expect(committed()).toEqual(['before', 'after']);
    // Rolled back to its savepoint, inside the one shared transaction that then committed.
    expect(control()).toEqual([
      'begin immediate',
      'savepoint group_member',
      'release savepoint group_member',
      'savepoint group_member',
      'rollback to savepoint group_member',
      'release savepoint group_member',
      'savepoint group_member',
      'release savepoint group_member',
      'commit',
    ]);
  });

  it('fails only the member that breaks a unique constraint, its earlier rows with it', async () => {
    await transaction(handle.db, log, (trx) => insert(trx, 'taken'));
    const results = await Promise.allSettled([
      transaction(handle.db, log, (trx) => insert(trx, 'x')),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'mine');
        await insert(trx, 'taken');
      }),
      transaction(handle.db, log, (trx) => insert(trx, 'y')),
      // Written by an earlier member of the same group, not yet committed: still taken, as it
      // would be had that member committed on its own first.
      transaction(handle.db, log, (trx) => insert(trx, 'x')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const failed of [results[1], results[3]] as PromiseRejectedResult[]) {
      expect(failed.reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    }
    expect(committed()).toEqual(['taken', 'x', 'y']);
    expect(ran('commit')).toBe(2);
  });

  it('commits the open group before a plain query runs: the query reads committed data and, once it returns, the rows are durable', async () => {
    let issue!: (query: Promise<{ rows: string[]; seenByOther: string[] }>) => void;
    const plain = new Promise<{ rows: string[]; seenByOther: string[] }>((resolve) => (issue = resolve));
    const members = Promise.all([
      transaction(handle.db, log, (trx) => insert(trx, 'a')),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'b');
        // Issued by the turn's last transaction, not awaited: it waits for the connection, and
        // gets it once this transaction is done, while the group is still open.
        issue(
          sql<{ v: string }>`select v from t order by rowid`
            .execute(handle.db)
            .then((result) => ({ rows: result.rows.map((r) => r.v), seenByOther: committed() })),
        );
      }),
    ]);
    const { rows, seenByOther } = await plain;
    expect(rows).toEqual(['a', 'b']);
    // As the plain query returned, the rows were committed: it committed the group itself.
    expect(seenByOther).toEqual(['a', 'b']);
    await members;
    // The COMMIT ran just before the plain query, and never after (the turn's flush found nothing open).
    const select = statements.findIndex((s) => s.startsWith('select v from t'));
    expect(statements.lastIndexOf('commit')).toBe(select - 1);
    expect(ran('commit')).toBe(1);

    // A plain write outside any transaction is committed when it returns, open group or not.
    let write!: (query: Promise<string[]>) => void;
    const plainWrite = new Promise<string[]>((resolve) => (write = resolve));
    await transaction(handle.db, log, async (trx) => {
      await insert(trx, 'c');
      write(sql`insert into t values ('plain')`.execute(handle.db).then(() => committed()));
    });
    expect(await plainWrite).toEqual(['a', 'b', 'c', 'plain']);
  });

  it('runs after-commit work once the row is visible to another connection, and never for a member that rolled back', async () => {
    const work: { of: string; seenByOther: string[] }[] = [];
    const results = await Promise.allSettled([
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'a');
        trx.onCommit(() => work.push({ of: 'a', seenByOther: committed() }));
      }),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'rolled back');
        trx.onCommit(() => work.push({ of: 'rolled back', seenByOther: committed() }));
        throw new Error('no');
      }),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'c');
        trx.onCommit(() => work.push({ of: 'c', seenByOther: committed() }));
        // Not yet: the group is open until the end of the turn.
        expect(work).toEqual([]);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(work.sort((x, y) => x.of.localeCompare(y.of))).toEqual([
      { of: 'a', seenByOther: ['a', 'c'] },
      { of: 'c', seenByOther: ['a', 'c'] },
    ]);
  });

  it('fails every member that shared a transaction SQLite rolled back whole, and the next transactions run on', async () => {
    // INSERT OR ROLLBACK ends the whole transaction on a conflict, as SQLITE_FULL or SQLITE_IOERR
    // may: there is no savepoint left to roll back to, and the members released before are gone.
    const results = await Promise.allSettled([
      transaction(handle.db, log, (trx) => insert(trx, 'a')),
      transaction(handle.db, log, (trx) => sql`insert or rollback into t values ('a')`.execute(trx)),
      transaction(handle.db, log, (trx) => insert(trx, 'c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason.message).toMatch(/shared transaction was rolled back/);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(committed()).toEqual(['c']);
    await transaction(handle.db, log, (trx) => insert(trx, 'a'));
    expect(committed()).toEqual(['c', 'a']);
  });

  it('keeps a request scope (D25.6) working beside ordinary transactions of the same turn: it commits at its end', async () => {
    const scope = openRequestScope(handle);
    const scopedWork: string[] = [];
    const before = transaction(handle.db, log, (trx) => insert(trx, 'ordinary before'));
    const request = runInRequestScope(scope, async () => {
      await transaction(handle.db, log, async (trx) => {
        await insert(trx, 'scoped 1');
        trx.onCommit(() => scopedWork.push('scoped 1'));
      });
      await transaction(handle.db, log, (trx) => insert(trx, 'scoped 2'));
      // The request reads its own writes.
      return (await sql<{ v: string }>`select v from t where v like 'scoped%' order by rowid`.execute(handle.db)).rows.map((r) => r.v);
    });
    const after = transaction(handle.db, log, (trx) => insert(trx, 'ordinary after'));
    expect(await request).toEqual(['scoped 1', 'scoped 2']);
    // Nothing of the request is committed before its scope ends.
    expect(committed()).not.toContain('scoped 1');
    // Ended before the ordinary transaction after it is awaited: that one waits for the
    // connection, which the scope holds until it ends.
    const work = await scope.end('commit');
    expect(committed()).toEqual(expect.arrayContaining(['ordinary before', 'scoped 1', 'scoped 2']));
    await Promise.all([before, after]);
    expect([...committed()].sort()).toEqual(['ordinary after', 'ordinary before', 'scoped 1', 'scoped 2']);
    for (const piece of work) await piece();
    expect(scopedWork).toEqual(['scoped 1']);
  });

  it('answers the transactions before a request scope in the turn without waiting for the request to end', async () => {
    const scope = openRequestScope(handle);
    let request!: Promise<void>;
    const ordinary: Promise<void> = transaction(handle.db, log, async (trx) => {
      await insert(trx, 'ordinary');
      // A keyed request begins in the same turn, right behind this transaction. Its handler then
      // waits for this transaction's answer (a shared in-flight write, say) before it ends: had
      // its scope joined the group, this commit would wait for the scope's end, and both for ever.
      request = runInRequestScope(scope, async () => {
        await transaction(handle.db, log, (trx2) => insert(trx2, 'scoped'));
        await ordinary;
      });
    });
    try {
      await within(ordinary, 2000, "the ordinary transaction's commit");
      await within(request, 2000, 'the request waiting for the ordinary transaction');
      // Committed without the request's row: the scope is still open.
      expect(committed()).toEqual(['ordinary']);
      await scope.end('commit');
      expect(committed()).toEqual(['ordinary', 'scoped']);
      expect(ran('commit')).toBe(2);
    } finally {
      // A failed check leaves the scope holding the connection; the handle could not close.
      await scope.end('rollback');
    }
  });

  it("undoes a request scope's rows alone when it ends with a rollback", async () => {
    const scope = openRequestScope(handle);
    const before = transaction(handle.db, log, (trx) => insert(trx, 'ordinary before'));
    const request = runInRequestScope(scope, async () => {
      await transaction(handle.db, log, (trx) => insert(trx, 'scoped 1'));
      await transaction(handle.db, log, (trx) => insert(trx, 'scoped 2'));
    });
    const after = transaction(handle.db, log, (trx) => insert(trx, 'ordinary after'));
    await request;
    expect(await scope.end('rollback')).toEqual([]);
    await Promise.all([before, after]);
    expect([...committed()].sort()).toEqual(['ordinary after', 'ordinary before']);
  });

  it('commits an open group when the handle closes', async () => {
    let close!: (closed: Promise<void>) => void;
    const closing = new Promise<void>((resolve) => (close = resolve));
    const members = Promise.all([
      transaction(handle.db, log, (trx) => insert(trx, 'a')),
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'b');
        // The server stops while the turn's group is open.
        close(handle.close());
      }),
    ]);
    await closing;
    // Both callers were answered: their commit was the close's.
    await members;
    expect(committed()).toEqual(['a', 'b']);
    handle = connect({ databaseUrl: null, dataDir });
    expect((await sql<{ v: string }>`select v from t order by rowid`.execute(handle.db)).rows.map((r) => r.v)).toEqual(['a', 'b']);
  });

  it('loses no row over many turns, groups overlapping their predecessors\' commits, some members failing', async () => {
    const batches = 10;
    const perBatch = 20;
    const pending: Promise<unknown>[] = [];
    const expected: string[] = [];
    for (let b = 0; b < batches; b++) {
      for (let i = 0; i < perBatch; i++) {
        const v = `b${b}-${i}`;
        const fails = (b * perBatch + i) % 7 === 3;
        if (!fails) expected.push(v);
        pending.push(
          transaction(handle.db, log, async (trx) => {
            await insert(trx, v);
            if (fails) throw new Error(`${v} fails`);
            return v;
          }).then(
            // Each caller, once answered, finds its row committed (or, failed, absent).
            () => expect(committed()).toContain(v),
            () => expect(committed()).not.toContain(v),
          ),
        );
      }
      // Half the batches start before the previous one is answered; the others after.
      if (b % 2 === 0) await nextTurn();
      else await Promise.all(pending);
    }
    await Promise.all(pending);
    const rows = committed();
    expect(rows).toHaveLength(expected.length);
    expect([...rows].sort()).toEqual([...expected].sort());
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db)).rows[0].n).toBe(expected.length);
    // Shared: far fewer commits than transactions, and never more than one per batch.
    expect(ran('commit')).toBeGreaterThanOrEqual(1);
    expect(ran('commit')).toBeLessThanOrEqual(batches);
    expect(ran('begin immediate')).toBe(ran('commit'));
  });
});
