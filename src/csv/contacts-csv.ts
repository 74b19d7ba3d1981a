import { SYSTEM_ACTING } from '../domain/shared/actor.ts';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Core } from '../core.ts';
import { findList } from '../domain/lists/lists.repo.ts';
import { listNotFound } from '../domain/lists/list.ts';
import { NotFoundError } from '../domain/shared/errors.ts';
import { findAccount } from '../domain/accounts/accounts.repo.ts';
import { contactExport, type ContactExport } from '../domain/contacts/contacts-export.ts';
import { readHere } from '../db/read-pool.ts';
import { hasEmailColumn, mapHeader, rowToItem, type CsvColumn, type IgnoredColumn } from '../domain/contacts/csv-columns.ts';
import { csvRecords } from './csv-records.ts';
import { contactsCsv } from './contacts-export-csv.ts';

/** Failed lines kept in the summary; past it they are only counted (bounded memory for 1M rows). */
const ERRORS_KEPT = 1000;
const BATCH = 1000;

export interface ImportSummary {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  /** by line number (the header is line 1) */
  errors: { line: number; email: string | null; message: string }[];
  /** failed lines beyond the first 1000, counted but not listed */
  errors_not_listed: number;
  /** D26.3: the columns not imported, with why */
  ignored_columns: IgnoredColumn[];
}

export interface ImportOptions {
  accountId: number;
  file: string;
  listId?: number;
  /** update existing contacts with the file's values (D14 skipDuplicates: false) */
  update?: boolean;
  /** D17.6 `--map`: header (any case) to contact field, for columns the known headers do not cover */
  map?: Record<string, string>;
  /** called after each batch with the bytes read so far and the file's size */
  onProgress?: (bytesRead: number, rows: number) => void;
}

/**
 * `sendwell import`: streams the file (readline over a read stream; the next batch is read only
 * after the last one is written), parses it with csv-parse, and writes batches of 1000 through
 * the same service as POST /v1/contacts/bulk. Malformed lines (unbalanced quotes, a wrong number
 * of columns, an invalid e-mail...) are reported by line number and skipped.
 */
export async function importContactsCsv({ handle, bulkImport: service }: Pick<Core, 'handle' | 'bulkImport'>, opts: ImportOptions): Promise<ImportSummary> {
  if (!(await findAccount(handle.db, opts.accountId))) throw new NotFoundError('ACCOUNT_NOT_FOUND', `account ${opts.accountId} not found`);
  if (opts.listId !== undefined && !(await findList(handle.db, opts.accountId, opts.listId))) throw listNotFound();

  const summary: ImportSummary = { created: 0, updated: 0, skipped: 0, failed: 0, errors: [], errors_not_listed: 0, ignored_columns: [] };
  const fail = (line: number, email: string | null, message: string) => {
    summary.failed++;
    if (summary.errors.length < ERRORS_KEPT) summary.errors.push({ line, email, message });
    else summary.errors_not_listed++;
  };

  const stream = createReadStream(opts.file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let columns: CsvColumn[] | null = null;
  let rows = 0;
  for await (const records of csvRecords(lines, BATCH)) {
    const items: Record<string, unknown>[] = [];
    const itemLines: number[] = [];
    for (const record of records) {
      if ('error' in record) {
        fail(record.line, null, record.error);
        continue;
      }
      if (columns === null) {
        // D17.6: the same header rules as the dashboard's import (csv-columns.ts); D26.3: the summary says which columns are not kept.
        const mapping = mapHeader(record.fields, opts.map);
        columns = mapping.columns;
        summary.ignored_columns = mapping.ignored;
        if (!hasEmailColumn(columns)) throw new Error(`line ${record.line}: the header has no e-mail column (email, Email Address, E-mail...; or name it with --map 'Header=email')`);
        continue;
      }
      rows++;
      if (record.fields.length !== columns.length) {
        fail(record.line, null, `expected ${columns.length} columns, found ${record.fields.length}`);
        continue;
      }
      items.push(rowToItem(columns, record.fields));
      itemLines.push(record.line);
    }
    if (items.length > 0) {
      // A file is imported by the CLI: the system acts (D24.8).
      const result = await service.import(SYSTEM_ACTING, opts.accountId, { listId: opts.listId, contacts: items, skipDuplicates: !opts.update });
      summary.created += result.created;
      summary.updated += result.updated;
      summary.skipped += result.skipped;
      for (const e of result.errors) fail(itemLines[e.index], e.email, e.message);
    }
    opts.onProgress?.(stream.bytesRead, rows);
  }
  summary.errors.sort((a, b) => a.line - b.line);
  return summary;
}

/** `sendwell export`: the account's contacts (or a list's) to `out`; the number written. */
export async function exportContactsCsv({ handle }: Pick<Core, 'handle'>, opts: { accountId: number; listId?: number }, out: Writable): Promise<number> {
  if (opts.listId !== undefined && !(await findList(handle.db, opts.accountId, opts.listId))) throw listNotFound();
  const source = await contactExport(handle, opts.accountId, opts.listId === undefined ? {} : { list_id: opts.listId }, readHere);
  let count = 0;
  const counted: ContactExport = {
    customKeys: source.customKeys,
    async *pages() {
      for await (const page of source.pages()) {
        count += page.length;
        yield page;
      }
    },
  };
  // pipeline() waits on the slowest stage, so a slow reader of stdout slows the paging, not memory.
  await pipeline(contactsCsv(counted), out, { end: out !== process.stdout });
  return count;
}
