import { SYSTEM_ACTING } from '../domain/shared/actor.ts';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Core } from '../core.ts';
import { findAccount } from '../domain/accounts/accounts.repo.ts';
import { NotFoundError } from '../domain/shared/errors.ts';
import { SUPPRESSION_SOURCES, toSuppression, type SuppressionSource } from '../domain/suppressions/suppression.ts';
import { suppressionsAfter } from '../domain/suppressions/suppressions.repo.ts';
import { csvRecords } from './csv-records.ts';
import { spreadsheetCsv } from './spreadsheet-csv.ts';

const HEADER = ['value', 'reason', 'source', 'created_at'] as const;
const ERRORS_KEPT = 1000;

export interface SuppressionImportSummary {
  added: number;
  already_listed: number;
  failed: number;
  errors: { line: number; value: string | null; message: string }[];
}

/**
 * `sendwell suppressions import FILE`: one value per record, in the first column or the one headed
 * `value` (or `email`); `reason` and `source` columns are read when present (export's own columns,
 * so export then import loses nothing). A header row is recognised by those names. Bad lines are
 * reported by number and skipped.
 */
export async function importSuppressionsCsv({ handle, suppressions: service }: Pick<Core, 'handle' | 'suppressions'>, opts: { accountId: number; file: string }): Promise<SuppressionImportSummary> {
  if (!(await findAccount(handle.db, opts.accountId))) throw new NotFoundError('ACCOUNT_NOT_FOUND', `account ${opts.accountId} not found`);
  const summary: SuppressionImportSummary = { added: 0, already_listed: 0, failed: 0, errors: [] };
  let columns: { value: number; reason: number; source: number } | null = null;
  const lines = createInterface({ input: createReadStream(opts.file), crlfDelay: Infinity });
  for await (const records of csvRecords(lines)) {
    for (const record of records) {
      const fail = (value: string | null, message: string) => {
        summary.failed++;
        if (summary.errors.length < ERRORS_KEPT) summary.errors.push({ line: record.line, value, message });
      };
      if ('error' in record) {
        fail(null, record.error);
        continue;
      }
      const fields = record.fields.map((f) => f.trim());
      if (columns === null) {
        const names = fields.map((f) => f.toLowerCase());
        const at = (...n: string[]) => names.findIndex((x) => n.includes(x));
        columns = { value: Math.max(at('value', 'email', 'email address'), 0), reason: at('reason'), source: at('source') };
        if (at('value', 'email', 'email address') >= 0) continue; // a header row
      }
      if (fields.every((f) => f === '')) continue;
      const value = fields[columns.value] ?? '';
      const rawSource = columns.source >= 0 ? (fields[columns.source] ?? '').toUpperCase() : '';
      if (rawSource && !(SUPPRESSION_SOURCES as readonly string[]).includes(rawSource)) {
        fail(value, `source must be one of ${SUPPRESSION_SOURCES.join(', ')}`);
        continue;
      }
      try {
        // A file is imported by the CLI: the system acts (D24.8).
        const { created } = await service.add(SYSTEM_ACTING, opts.accountId, { value, reason: columns.reason >= 0 ? fields[columns.reason] : null }, (rawSource || 'MANUAL') as SuppressionSource, false);
        if (created) summary.added++;
        else summary.already_listed++;
      } catch (err) {
        fail(value, (err as Error).message);
      }
    }
  }
  // D24.8: one entry for the file, not one per address.
  if (summary.added > 0) await service.recordImport(SYSTEM_ACTING, opts.accountId);
  return summary;
}

/** `sendwell suppressions export`: every entry of the account as CSV, oldest first, paged by id. */
export async function exportSuppressionsCsv({ handle }: Pick<Core, 'handle'>, opts: { accountId: number }, out: Writable): Promise<number> {
  if (!(await findAccount(handle.db, opts.accountId))) throw new NotFoundError('ACCOUNT_NOT_FOUND', `account ${opts.accountId} not found`);
  let count = 0;
  async function* rows() {
    for (let after = 0; ; ) {
      const page = await suppressionsAfter(handle.db, opts.accountId, after, 1000);
      if (page.length === 0) return;
      for (const row of page) {
        const s = toSuppression(row);
        yield [s.value, s.reason ?? '', s.source, s.created_at];
      }
      count += page.length;
      after = page[page.length - 1].id;
    }
  }
  await pipeline(rows(), spreadsheetCsv(HEADER), out, { end: out !== process.stdout });
  return count;
}
