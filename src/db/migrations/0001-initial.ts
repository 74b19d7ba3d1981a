import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

// Shipped migrations are never edited; a change is a new migration.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations build tables the Database type does not know yet
type Table = CreateTableBuilder<any, any>;

function columns(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    id: (t: Table) =>
      dialect === 'postgres'
        ? t.addColumn('id', 'bigserial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    ref: (t: Table, name: string, table: string, onDelete: 'cascade' | 'set null' = 'cascade') =>
      t.addColumn(name, 'bigint', (c) => {
        const col = c.references(`${table}.id`).onDelete(onDelete);
        return onDelete === 'cascade' ? col.notNull() : col;
      }),
    ts: (t: Table, name: string, build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder = (c) => c) =>
      t.addColumn(name, sql.raw(ts), build),
  };
}

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const c = columns(dialect);
  const text = 'text' as const;

  let t: Table = db.schema.createTable('accounts');
  t = c.id(t).addColumn('name', text, (col) => col.notNull()).addColumn('plan', text, (col) => col.notNull());
  await c.ts(t, 'created_at', (col) => col.notNull()).execute();

  t = c.ref(c.id(db.schema.createTable('api_keys')), 'account_id', 'accounts')
    .addColumn('name', text, (col) => col.notNull())
    .addColumn('description', text)
    .addColumn('key_hash', text, (col) => col.notNull().unique())
    .addColumn('masked_key', text, (col) => col.notNull())
    .addColumn('permissions', text, (col) => col.notNull())
    .addColumn('status', text, (col) => col.notNull())
    .addColumn('permanently_revoked', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('request_count', 'bigint', (col) => col.notNull().defaultTo(0));
  t = c.ts(t, 'last_used_at');
  t = c.ts(t, 'created_at', (col) => col.notNull());
  t = c.ts(t, 'updated_at', (col) => col.notNull());
  await c.ts(t, 'expires_at').execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'id']).execute();

  await c
    .ref(db.schema.createTable('api_key_endpoint_usage'), 'key_id', 'api_keys')
    .addColumn('method', text, (col) => col.notNull())
    .addColumn('route', text, (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('api_key_endpoint_usage_pk', ['key_id', 'method', 'route'])
    .execute();

  t = c.ref(c.id(db.schema.createTable('contacts')), 'account_id', 'accounts')
    .addColumn('email', text, (col) => col.notNull())
    .addColumn('first_name', text)
    .addColumn('last_name', text)
    .addColumn('phone', text)
    .addColumn('tags', text, (col) => col.notNull().defaultTo('[]'))
    .addColumn('custom_fields', text, (col) => col.notNull().defaultTo('{}'))
    .addColumn('lead_score', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('status', text, (col) => col.notNull());
  t = c.ts(t, 'created_at', (col) => col.notNull());
  await c.ts(t, 'updated_at', (col) => col.notNull()).addUniqueConstraint('contacts_account_email_uq', ['account_id', 'email']).execute();
  await db.schema.createIndex('contacts_account_created_idx').on('contacts').columns(['account_id', 'created_at', 'id']).execute();

  t = c.ref(c.id(db.schema.createTable('lists')), 'account_id', 'accounts')
    .addColumn('name', text, (col) => col.notNull())
    .addColumn('name_key', text, (col) => col.notNull())
    .addColumn('description', text)
    .addColumn('is_active', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('contact_count', 'integer', (col) => col.notNull().defaultTo(0));
  t = c.ts(t, 'created_at', (col) => col.notNull());
  await c.ts(t, 'updated_at', (col) => col.notNull()).addUniqueConstraint('lists_account_name_uq', ['account_id', 'name_key']).execute();
  await db.schema.createIndex('lists_account_created_idx').on('lists').columns(['account_id', 'created_at', 'id']).execute();

  t = c.ref(c.ref(db.schema.createTable('list_members'), 'list_id', 'lists'), 'contact_id', 'contacts');
  await c.ts(t, 'created_at', (col) => col.notNull()).addPrimaryKeyConstraint('list_members_pk', ['list_id', 'contact_id']).execute();
  await db.schema.createIndex('list_members_contact_idx').on('list_members').columns(['contact_id']).execute();

  t = c.ref(c.id(db.schema.createTable('campaigns')), 'account_id', 'accounts')
    .addColumn('name', text, (col) => col.notNull())
    .addColumn('subject', text)
    .addColumn('from_name', text)
    .addColumn('from_email', text)
    .addColumn('reply_to', text)
    .addColumn('preheader', text)
    .addColumn('html', text)
    .addColumn('text', text)
    .addColumn('list_ids', text, (col) => col.notNull().defaultTo('[]'))
    .addColumn('tags', text, (col) => col.notNull().defaultTo('[]'))
    .addColumn('status', text, (col) => col.notNull());
  t = c.ts(t, 'scheduled_at').addColumn('total_recipients', 'integer', (col) => col.notNull().defaultTo(0));
  t = c.ts(t, 'sent_at').addColumn('error', text);
  t = c.ts(t, 'created_at', (col) => col.notNull());
  await c.ts(t, 'updated_at', (col) => col.notNull()).execute();
  await db.schema.createIndex('campaigns_account_created_idx').on('campaigns').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('campaigns_status_scheduled_idx').on('campaigns').columns(['status', 'scheduled_at']).execute();

  t = c.ref(c.ref(c.id(db.schema.createTable('campaign_recipients')), 'campaign_id', 'campaigns'), 'contact_id', 'contacts', 'set null')
    .addColumn('email', text, (col) => col.notNull())
    .addColumn('status', text, (col) => col.notNull())
    .addColumn('message_id', text)
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0));
  t = c.ts(t, 'next_attempt_at');
  t = c.ts(t, 'claimed_until').addColumn('last_error', text);
  for (const name of ['sent_at', 'opened_at', 'clicked_at', 'bounced_at', 'complained_at', 'unsubscribed_at']) t = c.ts(t, name);
  await t.addUniqueConstraint('campaign_recipients_campaign_email_uq', ['campaign_id', 'email']).execute();
  await db.schema.createIndex('campaign_recipients_campaign_status_idx').on('campaign_recipients').columns(['campaign_id', 'status']).execute();
  // Deleting a contact nulls its recipient rows; without this index that would scan every recipient.
  await db.schema.createIndex('campaign_recipients_contact_idx').on('campaign_recipients').columns(['contact_id']).execute();
}
