import type { Db } from '../../db/connect.ts';

/** Issue 34: the account's custom field definitions, by key. */
export function definitionsOf(db: Db, accountId: number, opts: { editableOnly?: boolean } = {}) {
  let query = db.selectFrom('custom_field_definitions').selectAll().where('account_id', '=', accountId);
  if (opts.editableOnly) query = query.where('editable_by_contact', '=', 1);
  return query.orderBy('key').execute();
}

export function findDefinition(db: Db, accountId: number, key: string) {
  return db.selectFrom('custom_field_definitions').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();
}

export function countDefinitions(db: Db, accountId: number) {
  return db.selectFrom('custom_field_definitions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
}

export function insertDefinition(db: Db, values: { account_id: number; key: string; type: string; label: string | null; editable_by_contact: number; created_at: string; updated_at: string }) {
  return db.insertInto('custom_field_definitions').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateDefinition(db: Db, accountId: number, key: string, values: { type: string; label?: string | null; editable_by_contact?: number; updated_at: string }) {
  return db.updateTable('custom_field_definitions').set(values).where('account_id', '=', accountId).where('key', '=', key).returningAll().executeTakeFirstOrThrow();
}
