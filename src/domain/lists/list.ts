import type { ListRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
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
export function listName(raw: string, field = 'name'): { name: string; nameKey: string } {
  const name = raw.trim();
  const length = [...name].length;
  if (length < 1 || length > LIST_LIMITS.nameMax) throw new ValidationError(`${field} must be 1-${LIST_LIMITS.nameMax} characters`);
  return { name, nameKey: name.toLowerCase() };
}

export function listDescription(value: string | null | undefined): string | null | undefined {
  if (typeof value === 'string' && [...value].length > LIST_LIMITS.descriptionMax) {
    throw new ValidationError(`description must be at most ${LIST_LIMITS.descriptionMax} characters`);
  }
  return value;
}
