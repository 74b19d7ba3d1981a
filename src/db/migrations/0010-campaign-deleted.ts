import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D17.3: deleting a campaign that has sent mail keeps its row (and its recipients) with
 * `deleted_at` set: the API answers 404 for it, but every link in mail already delivered (the
 * unsubscribe page, one-click, clicks, the pixel) reads its recipient and keeps working.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  await db.schema.alterTable('campaigns').addColumn('deleted_at', ts).execute();
}
