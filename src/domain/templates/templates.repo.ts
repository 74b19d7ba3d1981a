import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { TemplatesTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

/**
 * D22's templates: an account's own (account_id) and the built-in gallery (account_id null, a
 * builtin_key), which every account sees and none may change.
 */

/** A template the account may use: its own or a built-in one. */
export function findTemplate(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]))
    .executeTakeFirst();
}

/**
 * D6: the built-in gallery first, then the account's own, each by id. Built-ins lead even when a
 * later release adds one (with an id above the account's own templates).
 */
export function pageTemplates(db: Db, accountId: number, page: PageRequest, kind?: string) {
  let base = db.selectFrom('templates').where((eb) => eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]));
  if (kind) base = base.where('kind', '=', kind);
  return pageQuery(base.selectAll().orderBy(sql`case when account_id is null then 0 else 1 end`).orderBy('id', 'asc'), base, page);
}

/** The built-ins as stored, to tell which the code has changed since (builtin-sync.ts). */
export function findBuiltins(db: Db) {
  return db.selectFrom('templates').select(['builtin_key', 'name', 'kind', 'format', 'body', 'compiled_html']).where('account_id', 'is', null).execute();
}

export function insertTemplate(db: Db, values: Insertable<TemplatesTable>) {
  return db.insertInto('templates').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The account's own template only: a built-in one is never changed through here. */
export function updateTemplate(db: Db, accountId: number, id: number, values: Updateable<TemplatesTable>) {
  return db.updateTable('templates').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteTemplate(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('templates').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/**
 * Writes a built-in template as the code has it, keeping its id (campaigns name it by id):
 * inserted the first time, its name, kind, format and body replaced after.
 */
export async function upsertBuiltin(db: Db, values: Insertable<TemplatesTable> & { builtin_key: string }): Promise<void> {
  await db
    .insertInto('templates')
    .values({ ...values, account_id: null })
    .onConflict((oc) =>
      oc.column('builtin_key').doUpdateSet({ name: values.name, kind: values.kind, format: values.format, body: values.body, compiled_html: values.compiled_html, updated_at: values.updated_at }),
    )
    .execute();
}

/**
 * D22: the account's campaigns that still compile their content in the layout `templateId`: any
 * not yet SENT (drafts, scheduled, sending, failed ones that may resume, automations' hidden
 * ones) and not deleted. A SENT campaign keeps its compiled HTML and needs the layout no more.
 */
export function findCampaignsUsingTemplate(db: Db, accountId: number, templateId: number, limit: number) {
  return db
    .selectFrom('campaigns')
    .select(['id', 'name', 'status'])
    .where('account_id', '=', accountId)
    .where('template_id', '=', templateId)
    .where('status', '!=', 'SENT')
    .where('deleted_at', 'is', null)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}
