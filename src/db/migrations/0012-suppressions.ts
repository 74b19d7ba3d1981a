import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D19: the suppression list and the ledger's per-link report.
 * - `suppressions`: addresses and `@domains` an account never mails, whatever a contact's status;
 *   one row per value and account (the unique index is also what the audience's NOT EXISTS reads).
 * - `link_clicks`: one row per recipient and link with its click count, so a link's report is its
 *   clicks (the sum) and unique clicks (the rows) without a log of every click.
 * - `campaign_recipients (campaign_id, id)`: the ledger pages a campaign's recipients by id.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let suppressions = db.schema.createTable('suppressions');
  suppressions =
    dialect === 'postgres' ? suppressions.addColumn('id', 'bigserial', (c) => c.primaryKey()) : suppressions.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await suppressions
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // a lower-cased address, or `@` and a lower-cased domain
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('suppressions_account_value_uq', ['account_id', 'value'])
    .execute();
  await db.schema.createIndex('suppressions_account_created_idx').on('suppressions').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('link_clicks')
    .addColumn('recipient_id', 'bigint', (c) => c.notNull().references('campaign_recipients.id').onDelete('cascade'))
    .addColumn('campaign_id', 'bigint', (c) => c.notNull())
    .addColumn('link_index', 'integer', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('first_clicked_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_clicks_pk', ['recipient_id', 'link_index'])
    .execute();
  await db.schema.createIndex('link_clicks_campaign_idx').on('link_clicks').columns(['campaign_id', 'link_index']).execute();

  await db.schema.createIndex('campaign_recipients_campaign_id_idx').on('campaign_recipients').columns(['campaign_id', 'id']).execute();
}
