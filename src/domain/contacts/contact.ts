import { NotFoundError } from '../shared/errors.ts';
import { readJson } from '../shared/json.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { ContactStatus, CustomFields } from './contact-fields.ts';
import type { ContactWithLists } from './contacts.repo.ts';

/**
 * A contact as the API shows it (D11), and the mapper from its row: pure, so the contacts and
 * lists services both use it without importing each other (issue 15: they did).
 */
export interface Contact {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  tags: string[];
  custom_fields: CustomFields;
  lead_score: number;
  status: ContactStatus;
  list_ids: number[];
  created_at: string;
  updated_at: string;
}

export const contactNotFound = () => new NotFoundError('CONTACT_NOT_FOUND', 'contact not found');

export function toContact(row: ContactWithLists): Contact {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    tags: readJson<string[]>(row.tags, []),
    custom_fields: readJson<CustomFields>(row.custom_fields, {}),
    lead_score: row.lead_score,
    status: row.status as ContactStatus,
    list_ids: readJson<number[]>(row.list_ids, []),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

