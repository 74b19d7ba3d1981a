import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { DbHandle, Dialect } from './connect.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0002 from './migrations/0002-dev-inbox.ts';
import * as m0003 from './migrations/0003-campaign-stats.ts';
import * as m0004 from './migrations/0004-outbound-webhooks.ts';
import * as m0005 from './migrations/0005-automations.ts';
import * as m0006 from './migrations/0006-dashboard-users.ts';
import * as m0007 from './migrations/0007-automation-guards.ts';
import * as m0008 from './migrations/0008-test-sends.ts';
import * as m0009 from './migrations/0009-signup-requests.ts';
import * as m0010 from './migrations/0010-campaign-deleted.ts';
import * as m0011 from './migrations/0011-segments.ts';
import * as m0012 from './migrations/0012-suppressions.ts';
import * as m0013 from './migrations/0013-contact-documents.ts';
import * as m0014 from './migrations/0014-engagement-kinds.ts';
import * as m0015 from './migrations/0015-sending-domains.ts';
import * as m0016 from './migrations/0016-ab-tests.ts';
import * as m0017 from './migrations/0017-send-pacing.ts';
import * as m0018 from './migrations/0018-consent.ts';
import * as m0019 from './migrations/0019-content.ts';
import * as m0020 from './migrations/0020-consent.ts';
import * as m0021 from './migrations/0021-automation-budgets.ts';
import * as m0022 from './migrations/0022-complaint-reporters.ts';
import * as m0023 from './migrations/0023-held-campaigns.ts';
import * as m0024 from './migrations/0024-messages.ts';
import * as m0025 from './migrations/0025-message-engagement.ts';
import * as m0026 from './migrations/0026-idempotency-keys.ts';
import * as m0027 from './migrations/0027-teams.ts';
import * as m0028 from './migrations/0028-message-lane-accounts.ts';
import * as m0030 from './migrations/0030-account-time-zone.ts';
import * as m0031 from './migrations/0031-form-options.ts';
import * as m0032 from './migrations/0032-consent-statement.ts';
import * as m0033 from './migrations/0033-contact-timeline.ts';

interface DialectMigration {
  up(db: Parameters<Migration['up']>[0], dialect: Dialect): Promise<void>;
}

/** Listed explicitly, in order: no directory scanning, so the set that runs is the set reviewed. */
const migrations: Record<string, DialectMigration> = {
  '0001-initial': m0001,
  '0002-dev-inbox': m0002,
  '0003-campaign-stats': m0003,
  '0004-outbound-webhooks': m0004,
  '0005-automations': m0005,
  '0006-dashboard-users': m0006,
  '0007-automation-guards': m0007,
  '0008-test-sends': m0008,
  '0009-signup-requests': m0009,
  '0010-campaign-deleted': m0010,
  '0011-segments': m0011,
  '0012-suppressions': m0012,
  '0013-contact-documents': m0013,
  '0014-engagement-kinds': m0014,
  '0015-sending-domains': m0015,
  '0016-ab-tests': m0016,
  '0017-send-pacing': m0017,
  '0018-consent': m0018,
  '0019-content': m0019,
  '0020-consent': m0020,
  '0021-automation-budgets': m0021,
  '0022-complaint-reporters': m0022,
  '0023-held-campaigns': m0023,
  '0024-messages': m0024,
  '0025-message-engagement': m0025,
  '0026-idempotency-keys': m0026,
  '0027-teams': m0027,
  '0028-message-lane-accounts': m0028,
  '0030-account-time-zone': m0030,
  '0031-form-options': m0031,
  '0032-consent-statement': m0032,
  '0033-contact-timeline': m0033,
};

class ListedMigrations implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      Object.entries(migrations).map(([name, m]) => [name, { up: (db) => m.up(db, this.dialect) }]),
    );
  }
}

/** Migrates up to and including `name` only: what an older release left, for tests of the step after it. */
export async function migrateTo(handle: DbHandle, name: string): Promise<void> {
  if (!(name in migrations)) throw new Error(`no migration ${name}`);
  await runMigrations(handle, (migrator) => migrator.migrateTo(name));
}

export async function migrateToLatest(handle: DbHandle): Promise<void> {
  await runMigrations(handle, (migrator) => migrator.migrateToLatest());
}

async function runMigrations(handle: DbHandle, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<void> {
  // Kysely looks for its bookkeeping tables across every schema; naming ours keeps two
  // installations in one PostgreSQL database (or parallel test schemas) from seeing each other's.
  const schema =
    handle.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0].schema : undefined;
  const migrator = new Migrator({ db: handle.db, provider: new ListedMigrations(handle.dialect), migrationTableSchema: schema });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? 'unknown error'}`);
  }
}
