import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { connect, flushErasedPages, withoutJit } from './connect.ts';

describe('withoutJit: PostgreSQL sessions start without JIT compiling', () => {
  it('adds the option to a URL without options', () => {
    expect(new URL(withoutJit('postgres://u:p@db:5432/sendwell')).searchParams.get('options')).toBe('-c jit=off');
  });

  it("keeps the operator's own options and credentials", () => {
    const url = new URL(withoutJit('postgres://u:s%40cret@db/sendwell?options=-c%20search_path%3Dtenant&sslmode=require'));
    expect(url.searchParams.get('options')).toBe('-c search_path=tenant -c jit=off');
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect(url.password).toBe('s%40cret');
  });

  it('leaves a URL that already sets jit, or is not a URL, as it is', () => {
    expect(withoutJit('postgres://db/sendwell?options=-c%20jit%3Don')).toBe('postgres://db/sendwell?options=-c%20jit%3Don');
    expect(withoutJit('host=db dbname=sendwell')).toBe('host=db dbname=sendwell');
  });
});

describe('issue 28 L2: flushErasedPages empties the SQLite WAL without waiting', () => {
  it('reports an incomplete checkpoint while a reader holds an older snapshot, and empties the WAL once it is gone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sendwell-wal-'));
    const handle = connect({ databaseUrl: null, dataDir });
    try {
      await sql`create table t (v text)`.execute(handle.db);
      await sql`insert into t values ('first')`.execute(handle.db);
      const reader = new SQLite(join(dataDir, 'sendwell.db'), { readonly: true });
      reader.exec('begin');
      reader.prepare('select count(*) from t').get(); // the reader's snapshot starts here
      await sql`insert into t values ('second')`.execute(handle.db);

      expect(flushErasedPages(handle)).toEqual({ complete: false });
      expect(statSync(join(dataDir, 'sendwell.db-wal')).size).toBeGreaterThan(0);
      // The wait was skipped, not switched off for good.
      expect((await sql<{ timeout: number }>`pragma busy_timeout`.execute(handle.db)).rows[0]).toEqual({ timeout: 5000 });

      reader.exec('commit');
      reader.close();
      expect(flushErasedPages(handle)).toEqual({ complete: true });
      expect(statSync(join(dataDir, 'sendwell.db-wal')).size).toBe(0);
    } finally {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('issue 28 (noisy neighbour): the server checkpoints the WAL on a thread of its own', () => {
  const pagesOf = (dataDir: string) => statSync(join(dataDir, 'sendwell.db')).size;

  it('turns automatic checkpoints off on the connection, and the thread copies the WAL into the database file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sendwell-wal-'));
    const errors: string[] = [];
    const handle = connect({ databaseUrl: null, dataDir, checkpointThread: { onError: (m) => errors.push(m) } });
    try {
      expect((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db)).rows[0]).toEqual({ wal_autocheckpoint: 0 });
      await sql`create table t (v text)`.execute(handle.db);
      const before = pagesOf(dataDir);
      // About 2 MB of rows: far more than fits the database file as it was.
      await sql`insert into t select hex(randomblob(1000)) from (with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000) select i from n)`.execute(handle.db);
      await vi.waitFor(() => expect(pagesOf(dataDir)).toBeGreaterThan(before + 1_000_000), { timeout: 10_000, interval: 50 });
      expect(errors).toEqual([]);
    } finally {
      await handle.close();
    }
    // The connection closed last and took the final checkpoint: nothing is left in a WAL.
    const reopened = new SQLite(join(dataDir, 'sendwell.db'), { readonly: true });
    expect(reopened.prepare('select count(*) as n from t').get()).toEqual({ n: 1000 });
    reopened.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps automatic checkpoints on a connection that did not ask for the thread (the CLI)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sendwell-wal-'));
    const handle = connect({ databaseUrl: null, dataDir });
    try {
      expect((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db)).rows[0]).toEqual({ wal_autocheckpoint: 1000 });
    } finally {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
