import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D24, teams. Every user gets a role; users that exist before this migration become owners
 * (D24.1), so no account is left without one. Sessions learn where they came from (D24.5) and get
 * a public id that is not derived from the cookie. Invitations, password resets, two-factor
 * challenges and recovery codes keep only the SHA-256 of their tokens. The audit log (D24.8) is
 * append-only for the API: rows leave only by the retention sweep.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const id = (t: ReturnType<Kysely<any>['schema']['createTable']>) =>
    dialect === 'postgres' ? t.addColumn('id', 'bigserial', (c) => c.primaryKey()) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());

  await db.schema.alterTable('users').addColumn('role', 'text', (c) => c.notNull().defaultTo('owner')).execute();
  await db.schema.alterTable('users').addColumn('last_sign_in_at', ts).execute();
  // Base32 TOTP secret: set by setup, live once `totp_enabled_at` is set.
  await db.schema.alterTable('users').addColumn('totp_secret', 'text').execute();
  await db.schema.alterTable('users').addColumn('totp_enabled_at', ts).execute();
  // The last 30-second step whose code was accepted: a code of that step or an earlier one is a replay.
  await db.schema.alterTable('users').addColumn('totp_last_step', 'bigint').execute();

  await db.schema.alterTable('sessions').addColumn('public_id', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('last_seen_at', ts).execute();
  await sql`update sessions set public_id = substr(id, 1, 24), last_seen_at = created_at`.execute(db);
  await db.schema.createIndex('sessions_public_id_idx').on('sessions').column('public_id').unique().execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await id(db.schema.createTable('invitations'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    // PENDING until accepted or revoked; a resend replaces token_hash and expires_at.
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('PENDING'))
    .execute();
  await db.schema.createIndex('invitations_account_idx').on('invitations').columns(['account_id', 'status']).execute();
  await db.schema.createIndex('invitations_email_idx').on('invitations').columns(['email', 'status']).execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_user_idx').on('password_resets').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('totp_challenges')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', ts)
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();

  await id(db.schema.createTable('audit_log'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('at', ts, (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('audit_log_account_idx').on('audit_log').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
}
