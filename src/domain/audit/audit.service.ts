import type { Db, DbHandle } from '../../db/connect.ts';
import type { ActingContext, Actor } from '../shared/actor.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, parseInputTimestamp, toApiTimestamp } from '../shared/time.ts';
import { USER_AGENT_MAX, type AuditAction, type AuditEntry, type AuditTarget } from './audit-entry.ts';
import * as repo from './audit.repo.ts';

/**
 * D24.8: the one way an entry is written. Every service calls it with the handle of the
 * transaction that makes the change, so the entry and the change commit or roll back together; a
 * route never writes one. The actor, IP and browser are who acts (`acting`, shared/actor.ts: the
 * request's, or the system's); `actor` overrides the actor where the request has none yet
 * (sign-in, a reset, an invitation accepted): the person the service has just identified.
 */
export async function recordAudit(db: Db, acting: ActingContext, accountId: number, action: AuditAction, target: AuditTarget | null, actor?: Actor): Promise<void> {
  const who = actor ?? acting.actor ?? { type: 'system' as const, id: null, label: 'system' };
  await repo.insertAuditEntry(db, {
    account_id: accountId,
    at: nowIso(),
    actor_type: who.type,
    actor_id: who.id,
    actor_label: who.label,
    action,
    target_type: target?.type ?? null,
    target_id: target === null ? null : String(target.id),
    ip: acting.ip,
    user_agent: acting.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
  });
}

type AuditRow = Awaited<ReturnType<typeof repo.pageAuditEntries>>['rows'][number];

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: toApiTimestamp(row.at),
    actor: { type: row.actor_type as AuditEntry['actor']['type'], id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id ?? '' },
    ip: row.ip,
    user_agent: row.user_agent,
  };
}

export class AuditLogService {
  constructor(
    private readonly handle: DbHandle,
    private readonly retentionDays: number,
  ) {}

  /** D24.8: newest first; `since` and `until` are D1 timestamps (else 400 naming the field). */
  async page(accountId: number, filter: repo.AuditFilter, page: PageRequest) {
    const bounds = {
      since: filter.since === undefined ? undefined : parseInputTimestamp('since', filter.since),
      until: filter.until === undefined ? undefined : parseInputTimestamp('until', filter.until),
    };
    const { rows, total } = await repo.pageAuditEntries(this.handle.db, accountId, { ...filter, ...bounds }, page);
    return toPage('entries', rows.map(toEntry), total, page);
  }

  /** Deletes entries past AUDIT_RETENTION_DAYS, a thousand at a time; returns how many went. */
  async sweep(now = Date.now()): Promise<number> {
    const before = new Date(now - this.retentionDays * 86_400_000).toISOString();
    let removed = 0;
    for (;;) {
      const n = await repo.deleteAuditEntriesBefore(this.handle.db, before, 1000);
      removed += n;
      if (n < 1000) return removed;
    }
  }
}
