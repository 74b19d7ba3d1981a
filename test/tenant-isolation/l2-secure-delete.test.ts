/**
 * Issue 28 L2: an erased person's data stayed in SQLite's free pages and in the WAL (no
 * secure_delete, no checkpoint), readable by anyone with a copy of the files. Now deleted content
 * is zeroed (secure_delete) and an erasure ends with a TRUNCATE checkpoint. SQLite only: on
 * PostgreSQL dead tuples leave with VACUUM, which is the operator's to run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant } from '../sending/send-helpers.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(onPostgres)('issue 28 L2: erased data leaves the SQLite files (PostgreSQL: VACUUM is the operator\'s)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const ADDRESS = 'l2-zq7x-erase-me@secret-l2.test';
  const NAME = 'Quintessa-L2-Marker';
  const files = () => ['sendwell.db', 'sendwell.db-wal'].map((f) => join(server.core.config.dataDir, f)).filter(existsSync);
  const holding = (text: string) => files().filter((f) => readFileSync(f).includes(Buffer.from(text, 'utf8')));

  it('L2: after an erasure the address and name are in neither sendwell.db nor sendwell.db-wal', async () => {
    const t = await tenant(server);
    const list = await t.list('Newsletter');
    await t.contact({ email: ADDRESS, first_name: NAME, custom_fields: { note: NAME }, list_id: list });
    // A few other rows around it, so its pages are shared and reused, not only dropped.
    for (let i = 0; i < 20; i++) await t.contact({ email: `neighbour${i}@l2.test`, first_name: `Neighbour ${i}` });
    expect(holding(ADDRESS).length).toBeGreaterThan(0); // the search finds it while it is there

    const erased = await t.call('POST', `/api/v1/contacts/${encodeURIComponent(ADDRESS)}/erase`);
    expect(erased.status, erased.text).toBe(200);

    expect(holding(ADDRESS)).toEqual([]);
    expect(holding(NAME)).toEqual([]);
    expect((await t.getContact('neighbour7@l2.test')).first_name).toBe('Neighbour 7');
  });
});
