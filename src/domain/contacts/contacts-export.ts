import type { DbHandle } from '../../db/connect.ts';
import type { ReadRows } from '../../db/read-pool.ts';
import { readJson } from '../shared/json.ts';
import type { ContactFilter } from './contacts.repo.ts';
import { customFieldKeysStep, exportPage } from './contacts-export.repo.ts';

/** Issue 34: how many contacts one step of an export reads: for the header's keys, and per page of rows. */
export const EXPORT_STEPS = { keysChunk: 5000, page: 1000 } as const;

/** One contact as the CSV export writes it (csv-columns.ts contactToRow). */
export interface ExportContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  tags: string[];
  lists: string[];
  custom_fields: Record<string, unknown>;
}

/** What an export writes: the custom-field keys for its header, then its contacts page by page. */
export interface ContactExport {
  customKeys: string[];
  pages(): AsyncGenerator<ExportContact[]>;
}

/**
 * D17.6: the contacts `filter` keeps, for `sendwell export` and GET /contacts/export alike. The
 * header's keys are gathered first, in steps of 5,000 contacts (an error such as a read past its
 * budget comes before any of the file is written); the rows follow in pages of 1,000 by id, each
 * read only when the one before has been written. `read` runs each step: the read pool for the
 * HTTP API (issue 28 C2), the CLI's own connection for the operator.
 */
export async function contactExport(handle: DbHandle, accountId: number, filter: ContactFilter, read: ReadRows): Promise<ContactExport> {
  const keys = new Set<string>();
  for (let after: number | null = 0; after !== null; ) {
    const step = await customFieldKeysStep(handle.db, handle.dialect, accountId, filter, after, EXPORT_STEPS.keysChunk, read);
    for (const key of step.keys) keys.add(key);
    after = step.last;
  }
  return {
    // Every key, those named like a contact field too (exportHeader gives them a header import reads back as custom).
    customKeys: [...keys].sort(),
    async *pages() {
      for (let after = 0; ; ) {
        const page = await exportPage(handle.db, handle.dialect, accountId, filter, after, EXPORT_STEPS.page, read);
        if (page.length === 0) return;
        yield page.map((c) => ({
          email: c.email,
          first_name: c.first_name,
          last_name: c.last_name,
          phone: c.phone,
          status: c.status,
          tags: readJson<string[]>(c.tags, []),
          lists: c.list_names ? String(c.list_names).split('\u001f').sort((a, b) => a.localeCompare(b)) : [],
          custom_fields: readJson<Record<string, unknown>>(c.custom_fields, {}),
        }));
        after = Number(page[page.length - 1].id);
      }
    },
  };
}
