import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 34 item 3: `accounts.time_zone`, the IANA zone the dashboard shows dates in and offers
 * for scheduling (time-zone.ts checks it). Every account has one: existing accounts get UTC,
 * which is what D1's timestamps already are.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('time_zone', 'text', (col) => col.notNull().defaultTo('UTC'))
    .execute();
}
