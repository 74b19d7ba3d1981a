import pg from 'pg';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The HTTP suites run twice: on embedded SQLite, and on PostgreSQL (each file in its own schema).
 * Without a reachable PostgreSQL the second run is skipped with one line saying so; under CI it
 * must run, so an unreachable server fails the run instead.
 */
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default defineConfig(async () => {
  const projects: TestProjectInlineConfiguration[] = [
    { extends: true, test: { name: 'sqlite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], env: { TEST_DATABASE_URL: '' } } },
  ];
  const wantPostgres = process.env.TEST_POSTGRES !== 'off';
  if (wantPostgres && (await postgresReachable())) {
    projects.push({ extends: true, test: { name: 'postgres', include: ['test/**/*.test.ts'], env: { TEST_DATABASE_URL: pgUrl } } });
  } else if (process.env.CI === 'true') {
    throw new Error(`CI: PostgreSQL suites must run, but no PostgreSQL answers at ${pgUrl.replace(/\/\/[^@]*@/, '//')}`);
  } else {
    console.warn(`PostgreSQL suites skipped: no PostgreSQL answers at ${pgUrl.replace(/\/\/[^@]*@/, '//')} (set TEST_DATABASE_URL to run them).`);
  }
  return {
    test: {
      projects,
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
});
