/**
 * Several installations in one PostgreSQL database, each in a schema of its own (as the test
 * servers are), migrate while the others create and drop theirs. Kysely's own introspector read
 * every schema's tables, resolving names as it went, and failed with "schema ... does not exist"
 * or "column ... does not exist" when another schema changed under it; ours reads the
 * connection's schema alone (src/db/current-schema-introspector.ts).
 */
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { testDatabase } from '../helpers/database.ts';

describe.runIf(process.env.TEST_DATABASE_URL)('migrating beside other schemas that come and go (PostgreSQL)', () => {
  it('lists only its own schema, and every migration succeeds while other schemas are created, migrated and dropped', { timeout: 120_000 }, async () => {
    const migrateAndDrop = async () => {
      const database = await testDatabase();
      const handle = connect({ databaseUrl: database.url!, dataDir: '' });
      try {
        await migrateToLatest(handle);
        const tables = await handle.db.introspection.getTables();
        const schemas = new Set(tables.map((table) => table.schema));
        expect(schemas.size).toBe(1);
        expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['contacts', 'campaigns', 'kysely_migration']));
      } finally {
        await handle.close();
        await database.drop();
      }
    };
    // Three at a time, so each one's migration overlaps another's creating, migrating or dropping.
    for (let round = 0; round < 4; round++) await Promise.all([migrateAndDrop(), migrateAndDrop(), migrateAndDrop()]);
  });
});
