import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { sql } from 'kysely';
import type { DbHandle } from '../db/connect.ts';
import { BulkImportService } from '../domain/contacts/bulk-import.service.ts';
import { findList } from '../domain/lists/lists.repo.ts';
import { listNotFound } from '../domain/lists/lists.service.ts';
import { NotFoundError } from '../domain/shared/errors.ts';
import { readJson } from '../domain/shared/json.ts';
import { csvRecords } from './csv-records.ts';

/** The columns import reads and export writes; any other column is a custom field. */
const FIELD_COLUMNS = ['email', 'first_name', 'last_name', 'phone', 'tags'] as const;
/** Export-only or read-only contact properties: never taken as custom fields on import. */
const IGNORED_COLUMNS = new Set(['id', 'status', 'lead_score', 'list_ids', 'created_at', 'updated_at']);
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
}

/**
 * A cell of a custom-field column: empty is "no value"; integers and decimals written plainly
 * (no leading zero, so postcodes stay text) become numbers, true/false booleans; anything else text.
 */
function customValue(cell: string): string | number | boolean | null {
  if (cell === '') return null;
  if (/^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/.test(cell)) return Number(cell);
  if (cell === 'true' || cell === 'false') return cell === 'true';
  return cell;
}

/** A CSV row as a bulk-import item (D14 shape), so it is validated exactly as the API's. */
function toItem(header: string[], fields: string[]): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  header.forEach((column, i) => {
    const cell = (fields[i] ?? '').trim();
    switch (column) {
      case 'email':
        item.email = cell;
        break;
      case 'first_name':
        if (cell) item.firstName = cell;
        break;
      case 'last_name':
        if (cell) item.lastName = cell;
        break;
      case 'phone':
        if (cell) item.phone = cell;
        break;
      case 'tags':
        if (cell) item.tags = cell.split(/[;,]/).map((t) => t.trim()).filter(Boolean);
        break;
      default: {
        if (IGNORED_COLUMNS.has(column)) break;
        const value = customValue(cell);
        if (value !== null) custom[column] = value;
      }
    }
  });
  if (Object.keys(custom).length > 0) item.customFields = custom;
  return item;
}

export interface ImportOptions {
  accountId: number;
  file: string;
  listId?: number;
  /** update existing contacts with the file's values (D14 skipDuplicates: false) */
  update?: boolean;
  /** called after each batch with the bytes read so far and the file's size */
  onProgress?: (bytesRead: number, rows: number) => void;
}

/**
 * `sendwell import`: streams the file (readline over a read stream; the next batch is read only
 * after the last one is written), parses it with csv-parse, and writes batches of 1000 through
 * the same service as POST /v1/contacts/bulk. Malformed lines (unbalanced quotes, a wrong number
 * of columns, an invalid e-mail...) are reported by line number and skipped.
 */
export async function importContactsCsv(handle: DbHandle, opts: ImportOptions): Promise<ImportSummary> {
  const account = await handle.db.selectFrom('accounts').select('id').where('id', '=', opts.accountId).executeTakeFirst();
  if (!account) throw new NotFoundError('ACCOUNT_NOT_FOUND', `account ${opts.accountId} not found`);
  if (opts.listId !== undefined && !(await findList(handle.db, opts.accountId, opts.listId))) throw listNotFound();

  const service = new BulkImportService(handle);
  const summary: ImportSummary = { created: 0, updated: 0, skipped: 0, failed: 0, errors: [], errors_not_listed: 0 };
  const fail = (line: number, email: string | null, message: string) => {
    summary.failed++;
    if (summary.errors.length < ERRORS_KEPT) summary.errors.push({ line, email, message });
    else summary.errors_not_listed++;
  };

  const stream = createReadStream(opts.file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let header: string[] | null = null;
  let rows = 0;
  for await (const records of csvRecords(lines, BATCH)) {
    const items: Record<string, unknown>[] = [];
    const itemLines: number[] = [];
    for (const record of records) {
      if ('error' in record) {
        fail(record.line, null, record.error);
        continue;
      }
      if (header === null) {
        header = record.fields.map((h) => h.trim().toLowerCase());
        if (!header.includes('email')) throw new Error(`line ${record.line}: the header has no email column`);
        continue;
      }
      rows++;
      if (record.fields.length !== header.length) {
        fail(record.line, null, `expected ${header.length} columns, found ${record.fields.length}`);
        continue;
      }
      items.push(toItem(header, record.fields));
      itemLines.push(record.line);
    }
    if (items.length > 0) {
      const result = await service.import(opts.accountId, { listId: opts.listId, contacts: items, skipDuplicates: !opts.update });
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

async function customFieldKeys(handle: DbHandle, accountId: number, listId: number | undefined): Promise<string[]> {
  const inList = listId === undefined ? sql`` : sql`and c.id in (select contact_id from list_members where list_id = ${listId})`;
  const rows =
    handle.dialect === 'postgres'
      ? await sql<{ key: string }>`select distinct k.key from contacts c, json_object_keys(c.custom_fields::json) as k(key) where c.account_id = ${accountId} ${inList} order by 1`.execute(handle.db)
      : await sql<{ key: string }>`select distinct j.key as key from contacts c, json_each(c.custom_fields) j where c.account_id = ${accountId} ${inList} order by 1`.execute(handle.db);
  return rows.rows.map((r) => r.key).filter((k) => !(FIELD_COLUMNS as readonly string[]).includes(k) && !IGNORED_COLUMNS.has(k));
}

/**
 * `sendwell export`: the account's contacts (or a list's) as CSV, in the columns import reads,
 * paged by id (keyset) and written with backpressure, so any number of contacts streams in
 * bounded memory. Tags are joined with ';'.
 */
export async function exportContactsCsv(handle: DbHandle, opts: { accountId: number; listId?: number }, out: Writable): Promise<number> {
  if (opts.listId !== undefined && !(await findList(handle.db, opts.accountId, opts.listId))) throw listNotFound();
  const custom = await customFieldKeys(handle, opts.accountId, opts.listId);
  let count = 0;
  async function* rows() {
    for (let after = 0; ; ) {
      let q = handle.db
        .selectFrom('contacts')
        .select(['id', 'email', 'first_name', 'last_name', 'phone', 'tags', 'custom_fields'])
        .where('account_id', '=', opts.accountId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(1000);
      if (opts.listId !== undefined) {
        const listId = opts.listId;
        q = q.where('id', 'in', (eb) => eb.selectFrom('list_members').select('contact_id').where('list_id', '=', listId));
      }
      const page = await q.execute();
      if (page.length === 0) return;
      for (const c of page) {
        const fields = readJson<Record<string, unknown>>(c.custom_fields, {});
        yield [c.email, c.first_name ?? '', c.last_name ?? '', c.phone ?? '', readJson<string[]>(c.tags, []).join(';'), ...custom.map((k) => fields[k] ?? '')];
      }
      count += page.length;
      after = page[page.length - 1].id;
    }
  }
  // pipeline() waits on the slowest stage, so a slow reader of stdout slows the paging, not memory.
  await pipeline(rows(), stringify({ header: true, columns: [...FIELD_COLUMNS, ...custom] }), out, { end: out !== process.stdout });
  return count;
}
