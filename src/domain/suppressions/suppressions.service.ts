import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { suppressionNotFound, suppressionReason, suppressionValue, toSuppression, type Suppression, type SuppressionSource } from './suppression.ts';
import * as repo from './suppressions.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** D19: the account's list of addresses and domains that are never mailed. */
export class SuppressionService {
  constructor(private readonly handle: DbHandle) {}

  async page(accountId: number, search: string | undefined, page: PageRequest) {
    const { rows, total } = await repo.pageSuppressions(this.handle.db, accountId, search?.trim() || undefined, page);
    return toPage('suppressions', rows.map(toSuppression), total, page);
  }

  /**
   * Adds a value (source MANUAL unless an import says otherwise). Adding one that is there already
   * changes nothing and answers the entry as it is, with `created` false: a list is idempotent.
   * D24.8: an entry added is recorded by its id, never its value (an address); the CLI's import
   * (`audited` false) records one `suppressions.imported` for the file instead (recordImport).
   */
  async add(acting: ActingContext, accountId: number, input: { value: string; reason?: string | null }, source: SuppressionSource = 'MANUAL', audited = true): Promise<{ suppression: Suppression; created: boolean }> {
    const value = suppressionValue(input.value);
    const reason = suppressionReason(input.reason);
    const { row, created } = await this.handle.db.transaction().execute(async (trx) => {
      const added = await repo.addSuppression(trx, { account_id: accountId, value, reason, source, created_at: nowIso() });
      if (added.created && audited) await recordAudit(trx, acting, accountId, 'suppression.added', { type: 'suppression', id: added.row.id });
      return added;
    });
    return { suppression: toSuppression(row), created };
  }

  /** D24.8: `sendwell suppressions import` is one entry (no target) once its rows are in, if it added any. */
  async recordImport(acting: ActingContext, accountId: number): Promise<void> {
    await this.handle.db.transaction().execute((trx) => recordAudit(trx, acting, accountId, 'suppressions.imported', null));
  }

  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      if (!(await repo.findSuppression(trx, accountId, id))) throw suppressionNotFound();
      await repo.deleteSuppression(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'suppression.removed', { type: 'suppression', id });
    });
  }
}
