import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Dashboard sign-in: people (users) who belong to an account, and their sessions. A session's id
 * is the SHA-256 of the cookie's random token, so a copy of the table opens no session.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  let users = db.schema.createTable('users');
  users = dialect === 'postgres' ? users.addColumn('id', 'bigserial', (c) => c.primaryKey()) : users.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await users
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Stored normalised (trimmed, lower-cased), so uniqueness is case-insensitive.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_account_idx').on('users').column('account_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
}
