import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D25.6: `idempotency_keys`, the answer of each request that succeeded (2xx) with an
 * Idempotency-Key, for 24 hours, per account. Its primary key is what decides between two
 * instances that ran the same key at once: the row is written in the request's own transaction,
 * so the second to commit finds the first's row and rolls its effects back. `fingerprint` is the
 * SHA-256 (hex) of the method, the path and the body as canonical JSON; `expires_at` is indexed
 * for the sweep of expired rows.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
}
