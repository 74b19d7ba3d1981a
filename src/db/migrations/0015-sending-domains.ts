import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D23: an account's sending domains and their warm-up.
 * - `sending_domains`: one row per domain and account (unique), with its DKIM key pair (the
 *   private key never leaves the database except to sign), what the last verification found, and
 *   the warm-up plan. The (account_id, domain) index is also what signing looks a From domain up by.
 * - `warmup_days`: per domain and UTC day, how many messages were claimed for sending; the claim
 *   and this count move in one transaction, so the day's cap holds across sender processes.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let domains = db.schema.createTable('sending_domains');
  domains = dialect === 'postgres' ? domains.addColumn('id', 'bigserial', (c) => c.primaryKey()) : domains.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await domains
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // lower-cased hostname
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('selector', 'text', (c) => c.notNull())
    .addColumn('dkim_private_key', 'text', (c) => c.notNull())
    // base64 SPKI, as the TXT record's p= holds it
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    .addColumn('dkim_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spf_ok', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dmarc_ok', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checked_at', ts)
    .addColumn('found_dkim', 'text')
    .addColumn('found_spf', 'text')
    .addColumn('found_dmarc', 'text')
    .addColumn('warmup_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('warmup_start', 'integer', (c) => c.notNull())
    .addColumn('warmup_factor', sql.raw(dialect === 'postgres' ? 'double precision' : 'real'), (c) => c.notNull())
    .addColumn('warmup_started_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('sending_domains_account_domain_uq', ['account_id', 'domain'])
    .execute();

  await db.schema
    .createTable('warmup_days')
    .addColumn('domain_id', 'bigint', (c) => c.notNull().references('sending_domains.id').onDelete('cascade'))
    // YYYY-MM-DD, UTC
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('claimed', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('warmup_days_pk', ['domain_id', 'day'])
    .execute();
}
