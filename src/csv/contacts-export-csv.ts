import { pipeline, Readable } from 'node:stream';
import type { ContactExport } from '../domain/contacts/contacts-export.ts';
import { contactToRow, exportHeader } from '../domain/contacts/csv-columns.ts';
import { spreadsheetCsv } from './spreadsheet-csv.ts';

/**
 * D17.6 export as CSV, for `sendwell export` (and its `--list`) and GET /api/v1/contacts/export
 * alike: the columns import reads (status, tags, list names and typed custom fields, so export
 * then import loses nothing), each cell made safe for spreadsheets (spreadsheetCsv). A readable
 * stream: the next page of contacts is read only when the reader has taken the last, so any
 * number of contacts streams in bounded memory, at the reader's pace.
 */
export function contactsCsv(source: ContactExport): Readable {
  async function* rows() {
    for await (const page of source.pages()) for (const c of page) yield contactToRow(c, source.customKeys);
  }
  // pipeline, not pipe: a failed read ends the file with that error, and a reader that goes away stops the paging.
  return pipeline(Readable.from(rows()), spreadsheetCsv(exportHeader(source.customKeys)), () => {});
}

