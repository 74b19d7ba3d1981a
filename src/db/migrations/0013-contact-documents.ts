import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D18 on PostgreSQL: a contact's `tags` and `custom_fields` become `jsonb` (SQLite keeps JSON text,
 * which its json functions read in place).
 * - As text, every segment test parsed the row's document again (the custom-field comparison three
 *   times per row), and the planner had no statistics for what the tests keep, so it ran them over
 *   every contact before the selective sets: 3 s for issue 16's five-condition segment over
 *   1,000,000 contacts. As `jsonb` a test reads the stored binary document, and `ANALYZE` keeps
 *   statistics the planner's JSON operators use (bench/RESULTS.md).
 * - `contacts_tag_keys_idx`: a GIN index over the lower-cased tags. Tags match ignoring case (D11)
 *   but keep their first spelling, so the index is over the expression the tag test uses
 *   (`lower(tags::text)::jsonb ?| array['vip']`, which needs GIN's default `jsonb_ops`): a tag
 *   condition reads its contacts from the index, and ANALYZE keeps statistics for the expression.
 * The rewrite of the table happens once, here; reads take the parsed values (`readJson`).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table contacts alter column tags drop default, alter column custom_fields drop default`.execute(db);
  await sql`alter table contacts alter column tags type jsonb using tags::jsonb, alter column custom_fields type jsonb using custom_fields::jsonb`.execute(db);
  await sql`alter table contacts alter column tags set default '[]'::jsonb, alter column custom_fields set default '{}'::jsonb`.execute(db);
  await sql`create index contacts_tag_keys_idx on contacts using gin ((lower(tags::text)::jsonb))`.execute(db);
}
