import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D25: `messages`, transactional mail. Its indexes serve the sender's claim (the due QUEUED and
 * SCHEDULED rows, oldest due first), the API's newest-first pages per account, and a bounce or
 * click naming one message by id.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let table = db.schema.createTable('messages');
  table = dialect === 'postgres' ? table.addColumn('id', 'bigserial', (c) => c.primaryKey()) : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await table
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('to_email', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'bigint', (c) => c.references('contacts.id').onDelete('set null'))
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('reply_to', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('subject_template', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('template_id', 'bigint')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('attachments', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('mime', dialect === 'postgres' ? 'bytea' : 'blob')
    .addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('links', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('scheduled_at', ts)
    .addColumn('due_at', ts, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_until', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('sent_at', ts)
    .addColumn('opened_at', ts)
    .addColumn('clicked_at', ts)
    .addColumn('bounced_at', ts)
    .execute();
  // The sender's lane: only rows it may still take are in this index, so a million sent messages cost the claim nothing.
  await db.schema
    .createIndex('messages_due_idx')
    .on('messages')
    .column('due_at')
    .where(() => sql<boolean>`status in ('QUEUED', 'SCHEDULED')`)
    .execute();
  await db.schema.createIndex('messages_account_idx').on('messages').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('messages_account_to_idx').on('messages').columns(['account_id', 'to_email', 'id']).execute();
  await db.schema.createIndex('messages_account_status_idx').on('messages').columns(['account_id', 'status', 'id']).execute();
}
