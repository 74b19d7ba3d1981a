import Papa from 'papaparse';
import { request } from './api.ts';

/** The bulk endpoint's item (D14) and answer. */
export interface BulkContact {
  email: string;
  firstName?: string;
  lastName?: string;
  name?: string;
  phone?: string;
  tags?: string[];
  customFields?: Record<string, string>;
}
export interface ImportTotals {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  errors: { row: number; email: string; message: string }[];
}

const CHUNK = 500;
const COLUMN: Record<string, keyof BulkContact> = {
  email: 'email',
  'e-mail': 'email',
  first_name: 'firstName',
  firstname: 'firstName',
  last_name: 'lastName',
  lastname: 'lastName',
  name: 'name',
  phone: 'phone',
  tags: 'tags',
};
const CUSTOM_KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** A CSV row as a bulk item: known columns by name (any case), other valid column names as custom fields. */
export function toBulkContact(row: Record<string, string>): BulkContact {
  const contact: BulkContact = { email: '' };
  const custom: Record<string, string> = {};
  for (const [header, raw] of Object.entries(row)) {
    const value = (raw ?? '').trim();
    const field = COLUMN[header.trim().toLowerCase()];
    if (field === 'tags') {
      const tags = value.split(/[;,|]/).map((t) => t.trim()).filter(Boolean);
      if (tags.length) contact.tags = tags;
    } else if (field) {
      if (value) (contact as unknown as Record<string, string>)[field] = value;
    } else if (value && CUSTOM_KEY.test(header.trim())) {
      custom[header.trim()] = value;
    }
  }
  if (Object.keys(custom).length) contact.customFields = custom;
  return contact;
}

export function parseCsv(file: File): Promise<BulkContact[]> {
  return new Promise((resolve, reject) => {
    Papa.parse<Record<string, string>>(file, {
      header: true,
      skipEmptyLines: 'greedy',
      complete: (result) => resolve(result.data.map(toBulkContact)),
      error: (err) => reject(new Error(`The file could not be read as CSV: ${err.message}`)),
    });
  });
}

/** Sends the contacts in chunks through POST /v1/contacts/bulk, reporting progress after each. */
export async function importContacts(contacts: BulkContact[], opts: { listId: string | null; updateExisting: boolean }, onProgress: (done: number, totals: ImportTotals) => void): Promise<ImportTotals> {
  const totals: ImportTotals = { created: 0, updated: 0, skipped: 0, failed: 0, errors: [] };
  for (let start = 0; start < contacts.length; start += CHUNK) {
    const chunk = contacts.slice(start, start + CHUNK);
    const res = await request<any>('POST', '/v1/contacts/bulk', { contacts: chunk, skipDuplicates: !opts.updateExisting, ...(opts.listId ? { listId: opts.listId } : {}) });
    totals.created += res.created;
    totals.updated += res.updated;
    totals.skipped += res.skipped;
    totals.failed += res.failed;
    for (const e of res.errors ?? []) totals.errors.push({ row: start + e.index + 2, email: e.email, message: e.message });
    onProgress(Math.min(start + CHUNK, contacts.length), { ...totals });
  }
  return totals;
}
