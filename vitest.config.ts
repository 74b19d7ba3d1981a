import pg from 'pg';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The HTTP suites run twice: as one process on embedded SQLite with in-memory limits, and in the
 * scale-out setup on PostgreSQL (each test server in its own schema) with Redis (each under its
 * own key prefix). Without a reachable PostgreSQL and Redis the second run is skipped with one
 * line saying so; under CI it must run, so an unreachable service fails the run instead.
 */
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

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

async function redisReachable(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const hideCredentials = (url: string) => url.replace(/\/\/[^@]*@/, '//');

// Projects that extend this config load it again; the skip notice should still appear once.
function warnOnce(message: string): void {
  const seen = globalThis as { sendwellSkipNoticeShown?: boolean };
  if (seen.sendwellSkipNoticeShown) return;
  seen.sendwellSkipNoticeShown = true;
  console.warn(message);
}

/**
 * Files whose checks measure one account's effect on another (fairness, floods, the HTTP thread's
 * share, time budgets) or run several server processes at once. They run after the rest, one
 * file per database at a time (the SQLite and the PostgreSQL file side by side, two servers on
 * two cores), so that a neighbour's load is not what they measure.
 */
const SERIAL = [
  'test/scale/*.test.ts',
  ...['c1-content-checks', 'c2-read-pool', 'c2-segment-filter', 'h1-compile-fairness', 'h2-webview-flood', 'h3-automation-fanout', 'http-thread-share', 'm1-domain-keys', 'webhook-fairness'].map(
    (name) => `test/tenant-isolation/${name}.test.ts`,
  ),
];
/** The event loop's own slices, measured in fractions of a millisecond: alone on the machine, last. */
const EVENT_LOOP = ['src/polling-loop.test.ts'];
/**
 * How these run: one file at a time in their project, after the other projects (groups run in
 * order; projects of one group side by side), each file in a fresh process (`isolate`), so that
 * nothing another file left running in a shared worker (a timer, a thread) takes their turns.
 */
const alone = (groupOrder: number) => ({ fileParallelism: false, isolate: true, sequence: { groupOrder } });
// Unit tests beside the code: they touch no database, so they run once.
const UNIT = ['src/**/*.test.ts', 'web/src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/lib/**/*.test.ts'];
// The dashboard in a real browser: its store does not matter to it, so SQLite only.
const BROWSER = ['test/browser/**'];

export default defineConfig(async () => {
  const sqlite = { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' };
  const projects: TestProjectInlineConfiguration[] = [
    { extends: true, test: { name: 'sqlite', include: [...UNIT, 'test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SERIAL, ...EVENT_LOOP], env: sqlite } },
    { extends: true, test: { name: 'sqlite serial', include: SERIAL, env: sqlite, ...alone(1) } },
    { extends: true, test: { name: 'event loop', include: EVENT_LOOP, env: sqlite, ...alone(2) } },
  ];
  const missing = [];
  if (!(await postgresReachable())) missing.push(`PostgreSQL at ${hideCredentials(pgUrl)} (TEST_DATABASE_URL)`);
  if (!(await redisReachable())) missing.push(`Redis at ${hideCredentials(redisUrl)} (TEST_REDIS_URL)`);
  if (process.env.TEST_SCALE_OUT === 'off' && process.env.CI !== 'true') {
    warnOnce('PostgreSQL and Redis suites skipped: TEST_SCALE_OUT=off.');
  } else if (missing.length === 0) {
    const scaleOut = { TEST_DATABASE_URL: pgUrl, TEST_REDIS_URL: redisUrl };
    projects.push(
      { extends: true, test: { name: 'postgres+redis', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...BROWSER, ...SERIAL], env: scaleOut } },
      { extends: true, test: { name: 'postgres+redis serial', include: SERIAL, env: scaleOut, ...alone(1) } },
    );
  } else if (process.env.CI === 'true') {
    throw new Error(`CI: the PostgreSQL and Redis suites must run, but nothing answers for ${missing.join(' and ')}`);
  } else {
    warnOnce(`PostgreSQL and Redis suites skipped: nothing answers for ${missing.join(' and ')}.`);
  }
  return {
    test: {
      projects,
      // One test file per core: a file mostly waits on its server, its child processes and the
      // network, so two at a time keep both cores busy (one at a time left one idle).
      maxWorkers: 2,
      // A worker keeps the modules it has loaded from one test file to the next (about 0.8 s of
      // imports per file otherwise). The app keeps no state in modules that one test's server
      // could leave to another's: every server gets its own core (createCore).
      isolate: false,
      // Builds the dashboard (web/dist) when it is missing: the server serves it, the browser tests drive it.
      globalSetup: ['test/build-web.global-setup.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // expect.poll waits up to 1 s by default. A page's first read that an account shapes (a
      // count, an estimate, a contact search) starts a read process (read-pool.ts), which from
      // the sources takes about 1 s alone and more on a busy machine: the dashboard tests failed
      // on that wait, not on what they check. A poll that succeeds returns as soon as it does.
      expect: { poll: { timeout: 10_000 } },
    },
  };
});
