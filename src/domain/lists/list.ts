import type { ListRow } from '../../db/schema.ts';
import { NotFoundError } from '../shared/errors.ts';
import { boundedText, nameWithKey } from '../shared/names.ts';
import { toApiTimestamp } from '../shared/time.ts';

/**
 * A list as the API shows it (D12), its row mapper, its limits and its name rule: pure, so the
 * lists service, the contacts service and the bulk import (which creates lists by name, D17.6)
 * share them without importing one another (issue 15).
 */
export const LIST_LIMITS = { nameMax: 255, descriptionMax: 1000, emailsPerAdd: 1000 } as const;

export interface ContactList {
  id: number;
  name: string;
  description: string | null;
  is_active: boolean;
  contact_count: number;
  created_at: string;
  updated_at: string;
}

export interface ListInput {
  name?: string;
  description?: string | null;
  is_active?: boolean;
}

export const listNotFound = () => new NotFoundError('LIST_NOT_FOUND', 'list not found');

export function toList(row: ListRow): ContactList {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    is_active: row.is_active === 1,
    contact_count: Number(row.contact_count),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The name trimmed and its unique key (D12: names are unique per account ignoring case), or 400. */
export const listName = (raw: string, field = 'name') => nameWithKey(raw, LIST_LIMITS.nameMax, field);

export const listDescription = (value: string | null | undefined) => boundedText(value, LIST_LIMITS.descriptionMax);
