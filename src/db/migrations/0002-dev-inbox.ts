import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/** Mail captured instead of sent while no SMTP_URL is configured. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let t = db.schema.createTable('dev_inbox');
  t = dialect === 'postgres' ? t.addColumn('id', 'bigserial', (c) => c.primaryKey()) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await t
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('campaign_id', 'bigint')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dev_inbox_account_idx').on('dev_inbox').columns(['account_id', 'id']).execute();
}
