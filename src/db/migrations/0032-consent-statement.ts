import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Issue 34 item 8: `consents.statement`, the words the consent was given on, kept with the record:
 * for an import from the dashboard, what the importer confirmed ("These people agreed to hear from
 * us"), and for a form's consent checkbox (0031) the words the person ticked. Records written before
 * it have none (null).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('consents').addColumn('statement', 'text').execute();
}
