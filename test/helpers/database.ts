import { randomBytes } from 'node:crypto';
import pg from 'pg';

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Which database a test server uses. Without TEST_DATABASE_URL: SQLite (nothing to prepare).
 * With it: a fresh PostgreSQL schema per server, so test files run in parallel and never see
 * each other's rows; it is dropped on close. The schema travels in the URL (`options=-c
 * search_path=...`), so a CLI process given the same DATABASE_URL sees the same tables.
 * `reuseUrl` adopts the schema of an earlier server (a restart), taking over dropping it.
 */
export async function testDatabase(reuseUrl?: string): Promise<{ url: string | null; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return { url: null, drop: async () => undefined };
  let url = reuseUrl;
  if (!url) {
    const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    await run(base, `create schema ${schema}`);
    const scoped = new URL(base);
    scoped.searchParams.set('options', `-c search_path=${schema}`);
    url = scoped.toString();
  }
  const schema = /search_path=(t_[a-z0-9_]+)/.exec(decodeURIComponent(url))?.[1];
  return {
    url,
    drop: async () => {
      if (schema) await run(base, `drop schema if exists ${schema} cascade`);
    },
  };
}
