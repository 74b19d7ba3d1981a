import Papa from 'papaparse';
import { contacts as contactsApi, type BulkContact } from './api.ts';
import { hasEmailColumn, mapHeader, rowToItem, type IgnoredColumn } from '../../src/domain/contacts/csv-columns.ts';
import { fromSpreadsheetCell } from '../../src/csv/formula-cells.ts';

type BulkAnswer = Awaited<ReturnType<typeof contactsApi.bulk>>;
/** The bulk answers' counts added up; an error names the file's row (header is row 1) instead of the item's index in its chunk. */
export type ImportTotals = Pick<BulkAnswer, 'created' | 'updated' | 'skipped' | 'failed'> & { errors: (Omit<BulkAnswer['errors'][number], 'index'> & { row: number })[] };

const CHUNK = 500;

/** A file as the import sends it: its rows as bulk items, and the columns not kept with why (D26.3). */
export interface CsvContacts {
  contacts: BulkContact[];
  ignoredColumns: IgnoredColumn[];
}

/**
 * D17.6: the dashboard reads a file by the same rules as the CLI's `sendwell import`
 * (csv-columns.ts): other tools' headers, status, tags and lists split on `;` or `,`, typed custom
 * fields. Its rows, header first, each cell as `sendwell export` meant it (issue 28 L3: a quote in
 * front of a formula character comes off); the import dialog maps the columns (import-mapping.ts)
 * and sends the rows through POST /v1/contacts/bulk.
 */
export function readCsv(file: File): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(file, {
      header: false,
      skipEmptyLines: 'greedy',
      complete: (result) => resolve(result.data.map((cells) => cells.map(fromSpreadsheetCell))),
      error: (err) => reject(new Error(`The file could not be read as CSV: ${err.message}`)),
    });
  });
}

/** A file's rows, header first, as bulk items by csv-columns.ts; a header without an e-mail column is refused, as `sendwell import` refuses it. */
export function rowsToContacts(data: string[][]): CsvContacts {
  // Issue 28 L3: cells as `sendwell export` meant them (a quote in front of a formula character comes off).
  const [header, ...rows] = data.map((cells) => cells.map(fromSpreadsheetCell));
  const { columns, ignored } = mapHeader(header ?? []);
  if (!hasEmailColumn(columns)) throw new Error('The file has no e-mail column (email, Email Address, E-mail...).');
  // csv-columns.ts makes items of the bulk endpoint's shape (the CLI sends the same); a bad one is reported by row (D14).
  return { contacts: rows.map((cells) => rowToItem(columns, cells) as BulkContact), ignoredColumns: ignored };
}

/** Sends the contacts in chunks through POST /v1/contacts/bulk, reporting progress after each. */
export async function importContacts(
  contacts: BulkContact[],
  opts: { listId: string | null; updateExisting: boolean; /** issue 34: what the importer confirmed, kept in each consent record */ consentStatement?: string },
  onProgress: (done: number, totals: ImportTotals) => void): Promise<ImportTotals> {
  const totals: ImportTotals = { created: 0, updated: 0, skipped: 0, failed: 0, errors: [] };
  for (let start = 0; start < contacts.length; start += CHUNK) {
    const chunk = contacts.slice(start, start + CHUNK);
    const res = await contactsApi.bulk({ contacts: chunk, skipDuplicates: !opts.updateExisting, ...(opts.listId ? { listId: opts.listId } : {}), ...(opts.consentStatement ? { consentStatement: opts.consentStatement } : {}) });
    totals.created += res.created;
    totals.updated += res.updated;
    totals.skipped += res.skipped;
    totals.failed += res.failed;
    for (const e of res.errors) totals.errors.push({ row: start + e.index + 2, email: e.email, message: e.message });
    onProgress(Math.min(start + CHUNK, contacts.length), { ...totals });
  }
  return totals;
}
