import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from './connect.ts';
import { transaction, type AfterCommitLog, type Tx } from './transaction.ts';

let dataDir: string;
let handle: DbHandle;
let logged: { details: object; message: string }[];
const log: AfterCommitLog = { error: (details, message) => logged.push({ details, message }) };

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sendwell-tx-'));
  handle = connect({ databaseUrl: null, dataDir });
  logged = [];
  await sql`create table t (v text)`.execute(handle.db);
});
afterEach(async () => {
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const insert = (trx: Tx, v: string) => sql`insert into t values (${v})`.execute(trx);
const values = async () => (await sql<{ v: string }>`select v from t order by rowid`.execute(handle.db)).rows.map((r) => r.v);

describe('transaction: after-commit work belongs to the transaction', () => {
  it('runs the work after the commit, in the order registered, and answers what the transaction did', async () => {
    const seen: string[][] = [];
    const answer = await transaction(handle.db, log, async (trx) => {
      await insert(trx, 'a');
      trx.onCommit(async () => seen.push(['first', ...(await values())]));
      trx.onCommit(() => seen.push(['second']));
      // Registered work has not run while the transaction is open.
      expect(seen).toEqual([]);
      return 42;
    });
    expect(answer).toBe(42);
    // The first piece already sees the committed row: it ran after the commit, not before.
    expect(seen).toEqual([['first', 'a'], ['second']]);
    expect(logged).toEqual([]);
  });

  it('runs nothing after a rollback, and the error reaches the caller', async () => {
    let ran = false;
    await expect(
      transaction(handle.db, log, async (trx) => {
        await insert(trx, 'a');
        trx.onCommit(() => (ran = true));
        throw new Error('the caller failed');
      }),
    ).rejects.toThrow('the caller failed');
    expect(ran).toBe(false);
    expect(await values()).toEqual([]);
  });

  it('logs a failing piece, runs the rest, and keeps the committed answer', async () => {
    const ran: number[] = [];
    const answer = await transaction(handle.db, log, async (trx) => {
      await insert(trx, 'kept');
      trx.onCommit(() => ran.push(1));
      trx.onCommit(async () => {
        throw new Error('the mail server is down');
      });
      trx.onCommit(() => ran.push(3));
      return 'committed';
    });
    expect(answer).toBe('committed');
    expect(ran).toEqual([1, 3]);
    expect(await values()).toEqual(['kept']);
    expect(logged).toHaveLength(1);
    expect(logged[0].message).toMatch(/after-commit work failed/);
    expect(logged[0].details).toMatchObject({ err: expect.objectContaining({ message: 'the mail server is down' }), index: 1, of: 3 });
  });

  it('a gate wraps the transaction alone: the after-commit work runs once the gate has let go', async () => {
    const order: string[] = [];
    const gate = async <R>(open: () => Promise<R>) => {
      order.push('gate in');
      const answer = await open();
      order.push('gate out');
      return answer;
    };
    await transaction(handle.db, log, async (trx) => trx.onCommit(() => order.push('work')), gate);
    expect(order).toEqual(['gate in', 'gate out', 'work']);
  });

  it('refuses work registered once the transaction has ended, instead of dropping it', async () => {
    let kept: Tx | undefined;
    await transaction(handle.db, log, async (trx) => {
      kept = trx;
    });
    expect(() => kept!.onCommit(() => undefined)).toThrow(/after the transaction ended/);
  });
});
