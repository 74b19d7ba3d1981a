import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 14 L5: a sign-up (after the first, the operator's, on an empty instance) waits here until
 * the link mailed to its address is followed; only then are its account and user created. `id` is
 * the SHA-256 of the link's random token (the token itself is never stored), as for sessions.
 * Several may wait for one address (anyone may ask); following one link settles them all.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  await db.schema
    .createTable('signup_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Normalised (trimmed, lower-cased), as users.email is.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('account_name', 'text')
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signup_requests_email_idx').on('signup_requests').column('email').execute();
  await db.schema.createIndex('signup_requests_expires_idx').on('signup_requests').column('expires_at').execute();
}
