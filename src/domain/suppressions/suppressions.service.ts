import type { DbHandle } from '../../db/connect.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { suppressionNotFound, suppressionReason, suppressionValue, toSuppression, type Suppression, type SuppressionSource } from './suppression.ts';
import * as repo from './suppressions.repo.ts';

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
   */
  async add(accountId: number, input: { value: string; reason?: string | null }, source: SuppressionSource = 'MANUAL'): Promise<{ suppression: Suppression; created: boolean }> {
    const value = suppressionValue(input.value);
    const reason = suppressionReason(input.reason);
    const { row, created } = await repo.addSuppression(this.handle.db, { account_id: accountId, value, reason, source, created_at: nowIso() });
    return { suppression: toSuppression(row), created };
  }

  async delete(accountId: number, id: number): Promise<void> {
    if (!(await repo.findSuppression(this.handle.db, accountId, id))) throw suppressionNotFound();
    await repo.deleteSuppression(this.handle.db, accountId, id);
  }
}
