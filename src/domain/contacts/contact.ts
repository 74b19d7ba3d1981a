import { NotFoundError } from '../shared/errors.ts';
import { readJson } from '../shared/json.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { MembershipStatus } from '../../db/schema.ts';
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
  /** D20: the lists whose membership is SUBSCRIBED (what mail and contact_count follow) */
  list_ids: number[];
  /** D20: every membership with its status */
  memberships: { list_id: number; status: MembershipStatus }[];
  created_at: string;
  updated_at: string;
}

export const contactNotFound = () => new NotFoundError('CONTACT_NOT_FOUND', 'contact not found');

export function toContact(row: ContactWithLists): Contact {
  const memberships = readJson<{ list_id: number | string; status: MembershipStatus }[]>(row.memberships, []).map((m) => ({ list_id: Number(m.list_id), status: m.status }));
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
    list_ids: memberships.filter((m) => m.status === 'SUBSCRIBED').map((m) => m.list_id),
    memberships,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

