import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D20 and D21: consent.
 * - `lists.opt_in` (`single` | `double`) and `lists.is_public` (shown in the preference centre and
 *   usable by forms); `confirmation_subject` / `confirmation_text`: the list's own confirmation
 *   mail, or null for the default.
 * - `list_members.status`: SUBSCRIBED | UNCONFIRMED | UNSUBSCRIBED. Every existing membership
 *   was made by the API or an import, so it is SUBSCRIBED. `lists.contact_count` keeps counting
 *   SUBSCRIBED memberships only, so the existing counts stay right as they are.
 * - `consents`: one row per subscription by form, API, import or confirmation (D20), deleted
 *   with the contact (D21's erasure removes them).
 * - `forms`: sign-up forms; `uid` is what the public `/f/{uid}` names, unguessable and unique.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  const id = <T extends { addColumn: (...a: any[]) => T }>(table: T): T =>
    dialect === 'postgres' ? table.addColumn('id', 'bigserial', (c: any) => c.primaryKey()) : table.addColumn('id', 'integer', (c: any) => c.primaryKey().autoIncrement());

  await db.schema.alterTable('lists').addColumn('opt_in', 'text', (c) => c.notNull().defaultTo('single')).execute();
  await db.schema.alterTable('lists').addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('lists').addColumn('confirmation_subject', 'text').execute();
  await db.schema.alterTable('lists').addColumn('confirmation_text', 'text').execute();

  await db.schema.alterTable('list_members').addColumn('status', 'text', (c) => c.notNull().defaultTo('SUBSCRIBED')).execute();
  await db.schema.alterTable('list_members').addColumn('status_changed_at', ts).execute();

  await id(db.schema.createTable('consents'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    // FORM | API | IMPORT | CONFIRMATION
    .addColumn('source', 'text', (c) => c.notNull())
    // no reference: a deleted form's consents stay as they were given
    .addColumn('form_id', 'bigint')
    // JSON array of the list ids this consent was for
    .addColumn('list_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('consents_contact_idx').on('consents').columns(['contact_id', 'id']).execute();

  await id(db.schema.createTable('forms'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON array of list ids
    .addColumn('list_ids', 'text', (c) => c.notNull())
    // JSON array of { name, label, required }
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('success_message', 'text')
    .addColumn('redirect_url', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forms_account_created_idx').on('forms').columns(['account_id', 'created_at', 'id']).execute();
}
