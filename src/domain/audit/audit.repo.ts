import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { pageQuery } from '../../db/page-query.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { AuditLogTable } from '../../db/schema.ts';

/** D24.8: the audit log's SQL. Rows are only inserted here and swept by age; nothing updates them. */

export type AuditRow = Required<Omit<Insertable<AuditLogTable>, 'id'>>;

const AUDIT_COLUMNS = ['account_id', 'at', 'actor_type', 'actor_id', 'actor_label', 'action', 'target_type', 'target_id', 'ip', 'user_agent'] as const satisfies readonly (keyof AuditRow)[];

// Built once (db/prepared.ts): an entry is written beside most changes, a contact's create among them (issue 35).
const auditInsert = preparedQuery(AUDIT_COLUMNS.length, (db, _dialect, ...values: unknown[]) =>
  db.insertInto('audit_log').values(Object.fromEntries(AUDIT_COLUMNS.map((column, i) => [column, values[i]])) as AuditRow),
);

export async function insertAuditEntry(db: Db, row: AuditRow): Promise<void> {
  await auditInsert(db, ...AUDIT_COLUMNS.map((column) => row[column]));
}

export interface AuditFilter {
  action?: string;
  actor_type?: string;
  actor_id?: string;
  target_type?: string;
  target_id?: string;
  since?: string;
  until?: string;
}

export function pageAuditEntries(db: Db, accountId: number, filter: AuditFilter, page: { page: number; size: number }) {
  let base = db.selectFrom('audit_log').where('account_id', '=', accountId);
  if (filter.action !== undefined) base = base.where('action', '=', filter.action);
  if (filter.actor_type !== undefined) base = base.where('actor_type', '=', filter.actor_type);
  if (filter.actor_id !== undefined) base = base.where('actor_id', '=', filter.actor_id);
  if (filter.target_type !== undefined) base = base.where('target_type', '=', filter.target_type);
  if (filter.target_id !== undefined) base = base.where('target_id', '=', filter.target_id);
  if (filter.since !== undefined) base = base.where('at', '>=', filter.since);
  if (filter.until !== undefined) base = base.where('at', '<', filter.until);
  return pageQuery(base.selectAll().orderBy('id', 'desc'), base, page);
}

/** The retention sweep: entries older than `before`, at most `limit` per call so it never holds the database long. */
export async function deleteAuditEntriesBefore(db: Db, before: string, limit: number): Promise<number> {
  const doomed = db.selectFrom('audit_log').select('id').where('at', '<', before).orderBy('id').limit(limit);
  const result = await db.deleteFrom('audit_log').where('id', 'in', doomed).executeTakeFirst();
  return Number(result.numDeletedRows);
}
