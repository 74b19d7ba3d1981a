import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, openRequestScope, type DbHandle } from './connect.ts';
import { runInRequestScope } from './request-transaction.ts';
import { transaction, type AfterCommitLog, type Tx } from './transaction.ts';

/** D25.6: a request's scope makes its transactions one (SQLite; PostgreSQL is covered through HTTP). */

let dataDir: string;
let handle: DbHandle;
const log: AfterCommitLog = { error: () => undefined };

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-scope-'));
  handle = connect({ databaseUrl: null, dataDir });
  await sql`create table t (v text)`.execute(handle.db);
});
afterEach(async () => {
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const insert = (trx: Tx, v: string) => sql`insert into t values (${v})`.execute(trx);
const values = async () => (await sql<{ v: string }>`select v from t order by rowid`.execute(handle.db)).rows.map((r) => r.v);

describe('a request scope (D25.6)', () => {
  it('commits nothing until the scope ends, and runs after-commit work only then', async () => {
    const scope = openRequestScope(handle);
    const ran: string[] = [];
    await runInRequestScope(scope, async () => {
      await transaction(handle.db, log, async (trx) => {
        await insert(trx, 'a');
        trx.onCommit(() => ran.push('a committed'));
      });
      await transaction(handle.db, log, (trx) => insert(trx, 'b'));
      // A plain query of the request sees its own writes: it runs on the same transaction.
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db)).rows[0].n).toBe(2);
    });
    expect(ran).toEqual([]);
    const work = await scope.end('commit');
    expect(await values()).toEqual(['a', 'b']);
    for (const piece of work) await piece();
    expect(ran).toEqual(['a committed']);
  });

  it('undoes a failed transaction of the request and nothing else, first or later', async () => {
    const scope = openRequestScope(handle);
    await runInRequestScope(scope, async () => {
      await expect(transaction(handle.db, log, async (trx) => {
        await insert(trx, 'first, failed');
        throw new Error('no');
      })).rejects.toThrow('no');
      await transaction(handle.db, log, (trx) => insert(trx, 'kept'));
      await expect(transaction(handle.db, log, async (trx) => {
        await insert(trx, 'later, failed');
        throw new Error('no');
      })).rejects.toThrow('no');
      await transaction(handle.db, log, (trx) => insert(trx, 'kept too'));
    });
    await scope.end('commit');
    expect(await values()).toEqual(['kept', 'kept too']);
  });

  it('drops the effects and their after-commit work when the scope rolls back', async () => {
    const scope = openRequestScope(handle);
    const ran: string[] = [];
    await runInRequestScope(scope, () =>
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'a');
        trx.onCommit(() => ran.push('a'));
      }),
    );
    expect(await scope.end('rollback')).toEqual([]);
    expect(await values()).toEqual([]);
    expect(ran).toEqual([]);
  });

  it('is ignored once ended: work that inherited it runs on its own', async () => {
    const scope = openRequestScope(handle);
    let later: Promise<void> = Promise.resolve();
    let go!: () => void;
    const ended = new Promise<void>((resolve) => (go = resolve));
    await runInRequestScope(scope, async () => {
      await transaction(handle.db, log, (trx) => insert(trx, 'in the request'));
      // Registered inside the scope, run after it ended (a timer's or a callback's work).
      later = ended.then(async () => void (await transaction(handle.db, log, (trx) => insert(trx, 'after it'))));
    });
    await scope.end('commit');
    go();
    await later;
    expect(await values()).toEqual(['in the request', 'after it']);
  });
});
