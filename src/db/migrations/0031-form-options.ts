import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 34 items 12 and 13: what a sign-up form and the preference centre let people see and do.
 * - `forms.button_text`, `forms.button_color`: the submit button's words and colour (null: the defaults).
 * - `forms.consent_text`: the words of a consent checkbox the person must tick (null: no checkbox).
 * - `forms.confirm_redirect_url`: where a person is sent once they confirm a double opt-in by mail.
 * - The consent checkbox's words, as the person ticked them, are kept in `consents.statement`,
 *   added by 0032 for an import's confirmation too: one column for the words consent was given on.
 * - `custom_field_definitions`: what an account says about one of its custom field keys: its type,
 *   its label and whether the contact may edit it in the preference centre. Contacts keep their
 *   values in `contacts.custom_fields` as before; a key without a definition is simply not editable.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  for (const column of ['button_text', 'button_color', 'consent_text', 'confirm_redirect_url']) {
    await db.schema.alterTable('forms').addColumn(column, 'text').execute();
  }

  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let table = db.schema.createTable('custom_field_definitions');
  table = dialect === 'postgres' ? table.addColumn('id', 'bigserial', (c) => c.primaryKey()) : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await table
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('editable_by_contact', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('custom_field_definitions_account_key_uq', ['account_id', 'key'])
    .execute();
}
