import SQLite from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { runCommand } from './proc.ts';

/**
 * Environment for every `sendwell` process the benchmarks start: embedded SQLite in `dataDir`,
 * no Redis, and the operator defaults for everything else (a DATABASE_URL or REDIS_URL from the
 * calling shell must not leak in).
 */
export function sendwellEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', USAGE_FLUSH_MS: '', LOG_LEVEL: 'info', ...extra };
}

export interface Seed {
  dataDir: string;
  accountId: number;
  keyId: number;
  key: string;
  contacts: number;
}

/** The i-th seeded contact's e-mail (1-based). */
export const seededEmail = (i: number) => `contact-${String(i).padStart(6, '0')}@bench.example`;

/**
 * A migrated database with one enterprise account (no rate limit), one `*` key, and `contacts`
 * contacts. Account and key come from the CLI, as an operator would make them; the contacts are
 * inserted in one transaction straight into the migrated tables, because creating 100k through
 * the API would take longer than the benchmark itself.
 */
/**
 * Migrates the database `env` names and creates an enterprise account (no rate limit) with one
 * `*` key, through the CLI as an operator would.
 */
export async function createBenchAccount(repoDir: string, env: NodeJS.ProcessEnv, name = 'Bench'): Promise<{ accountId: number; keyId: number; key: string }> {
  const cli = (...args: string[]) => runCommand('./bin/sendwell', args, { cwd: repoDir, env });
  await cli('migrate');
  const account = JSON.parse(await cli('accounts', 'create', '--name', name, '--plan', 'enterprise')) as { id: number };
  const key = JSON.parse(await cli('keys', 'create', '--account', String(account.id), '--name', 'bench', '--permissions', '*')) as { id: number; key: string };
  return { accountId: account.id, keyId: key.id, key: key.key };
}

export async function seedDataDir(repoDir: string, dataDir: string, contacts: number): Promise<Seed> {
  const created = await createBenchAccount(repoDir, sendwellEnv(dataDir));
  const account = { id: created.accountId };
  const key = { id: created.keyId, key: created.key };

  const db = new SQLite(join(dataDir, 'sendwell.db'));
  try {
    const insert = db.prepare(
      `insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, lead_score, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const start = Date.parse('2025-01-01T00:00:00Z');
    db.transaction(() => {
      for (let i = 1; i <= contacts; i++) {
        const at = new Date(start + i * 60_000).toISOString();
        insert.run(
          account.id,
          seededEmail(i),
          `First${i}`,
          `Last${i}`,
          i % 3 === 0 ? '+1 555 0100' : null,
          i % 2 === 0 ? '["bench","even"]' : '["bench"]',
          `{"n":${i},"source":"seed"}`,
          i % 100,
          'SUBSCRIBED',
          at,
          at,
        );
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return { dataDir, accountId: account.id, keyId: key.id, key: key.key, contacts };
}

/** Reads a key's stored request counter (D9), e.g. after the server has flushed on shutdown. */
export function storedRequestCount(dataDir: string, keyId: number): number {
  const db = new SQLite(join(dataDir, 'sendwell.db'), { readonly: true });
  try {
    const row = db.prepare('select request_count from api_keys where id = ?').get(keyId) as { request_count: number } | undefined;
    return row?.request_count ?? 0;
  } finally {
    db.close();
  }
}

/**
 * The same data as seedDataDir, made in the PostgreSQL database `databaseUrl` names: account and
 * key through the CLI, the contacts in one INSERT ... SELECT.
 */
export async function seedPostgres(repoDir: string, cliDataDir: string, databaseUrl: string, contacts: number): Promise<Omit<Seed, 'dataDir'>> {
  const created = await createBenchAccount(repoDir, { ...sendwellEnv(cliDataDir), DATABASE_URL: databaseUrl });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, lead_score, status, created_at, updated_at)
       select $1, 'contact-' || lpad(i::text, 6, '0') || '@bench.example', 'First' || i, 'Last' || i,
              case when i % 3 = 0 then '+1 555 0100' end,
              (case when i % 2 = 0 then '["bench","even"]' else '["bench"]' end)::jsonb,
              ('{"n":' || i || ',"source":"seed"}')::jsonb, i % 100, 'SUBSCRIBED',
              timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute', timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute'
       from generate_series(1, $2::int) as i`,
      [created.accountId, contacts],
    );
    // Issue 35: the seed's dead tuples and dirty pages are dealt with now, not by autovacuum and a
    // checkpoint during the first measured rounds (one run's PostgreSQL create went 191 -> 338
    // req/s across its rounds as they finished).
    await client.query('vacuum analyze');
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
  if (seededEmail(1) !== 'contact-000001@bench.example') throw new Error('the PostgreSQL seed no longer matches seededEmail()');
  return { ...created, contacts };
}

/** A key's stored request counter (D9) in a PostgreSQL database. */
export async function storedRequestCountPg(databaseUrl: string, keyId: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ request_count: string }>('select request_count from api_keys where id = $1', [keyId]);
    return Number(rows[0]?.request_count ?? 0);
  } finally {
    await client.end();
  }
}
