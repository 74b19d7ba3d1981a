import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
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
