import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, sqliteFile, type DbHandle } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { ReadPool } from '../../src/db/read-pool.ts';
import { ValidationError } from '../../src/domain/shared/errors.ts';
import { testDatabase } from '../helpers/database.ts';

/**
 * issue 28 C2: the read pool runs the reads a tenant shapes off the HTTP thread, each within a
 * budget that really stops it (a killed process on SQLite, statement_timeout on PostgreSQL), and
 * takes them by account in turn. Against a real database of each kind.
 */
let handle: DbHandle;
let dataDir: string;
let dropDatabase: () => Promise<void>;
const pools: ReadPool[] = [];

const newPool = (size: number, budgetMs: number) => {
  const pool = new ReadPool(handle, { size, budgetMs, sqliteFile: handle.dialect === 'sqlite' ? sqliteFile(dataDir) : null });
  pools.push(pool);
  return pool;
};

/** Counts to `n` one row at a time: with n = 1e12, a query that never ends. */
const countTo = (n: number) => ({
  compile: () => CompiledQuery.raw(`with recursive c(x) as (select cast(1 as bigint) union all select x + 1 from c where x < ${n}) select count(*) as n from c`) as CompiledQuery<{ n: number }>,
});

/** The read processes this test process started (SQLite). */
const readProcesses = () =>
  execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('read-worker'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-c2-pool-'));
  const database = await testDatabase();
  dropDatabase = database.drop;
  handle = connect({ databaseUrl: database.url, dataDir });
  await migrateToLatest(handle);
  await handle.db.insertInto('accounts').values({ name: 'Pool test', slug: 'pool-test', plan: 'free', created_at: new Date().toISOString() }).execute();
});

afterAll(async () => {
  for (const pool of pools) await pool.close();
  await handle?.close();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('C2: the read pool (issue 28)', () => {
  it('C2: answers a compiled query with its parameters, as the connection would', async () => {
    const pool = newPool(2, 5000);
    const query = handle.db.selectFrom('accounts').select(['name', sql<number>`${41} + 1`.as('answer')]).where('name', '=', 'Pool test');
    expect(await pool.run(1, query, 'x')).toEqual(await query.execute());
    expect((await pool.run(1, query, 'x'))[0]).toMatchObject({ name: 'Pool test' });
    if (handle.dialect === 'sqlite') {
      // The read processes register the server's SQL functions (sql-helpers.ts).
      const lower = { compile: () => CompiledQuery.raw('select sendwell_lower(?) as v', ['ÄBÇ']) as CompiledQuery<{ v: string }> };
      expect(await pool.run(1, lower, 'x')).toEqual([{ v: 'äbç' }]);
    }
    await pool.close();
  });

  it('C2: stops a query that never ends at the budget with a 400 naming the limit, and answers the next read', async () => {
    const pool = newPool(1, 1000);
    await pool.run(1, countTo(3), 'x');
    const before = handle.dialect === 'sqlite' ? readProcesses() : [];
    const endless = pool.run(1, countTo(1e12), 'filter: the count took too long');
    await expect(endless).rejects.toBeInstanceOf(ValidationError);
    await expect(endless).rejects.toThrow(/^filter: the count took too long \(a read may take at most 1 s, READ_BUDGET_MS\)$/);
    if (handle.dialect === 'sqlite') {
      // The process that ran it is gone (a worker thread would still be running the query).
      expect(before).toHaveLength(1);
      await vi.waitFor(() => expect(alive(before[0]!)).toBe(false), { timeout: 5000 });
    }
    expect(await pool.run(1, countTo(1000), 'x')).toEqual([{ n: 1000 }]);
  });

  it("C2: takes reads by account in turn: another account's read runs before the third of one account's queued reads", async () => {
    const pool = newPool(1, 20_000);
    const finished: string[] = [];
    const track = (label: string, account: number, n: number) => pool.run(account, countTo(n), 'x').then(() => finished.push(label));
    await Promise.all([track('A1', 1, 300_000), track('A2', 1, 300_000), track('A3', 1, 300_000), track('B1', 2, 10)]);
    expect(finished.indexOf('B1')).toBeLessThan(finished.indexOf('A3'));
    expect(finished.filter((l) => l.startsWith('A'))).toEqual(['A1', 'A2', 'A3']);
  });

  it('C2: refuses reads once closed, visibly', async () => {
    const pool = newPool(1, 1000);
    await pool.close();
    await expect(pool.run(1, countTo(3), 'x')).rejects.toThrow(/read pool is closed/);
  });
});
