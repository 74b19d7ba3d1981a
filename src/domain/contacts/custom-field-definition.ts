import type { CustomFieldDefinitionsTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';
import { ValidationError } from '../shared/errors.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { CONTACT_LIMITS, type CustomValue } from './contact-fields.ts';
import { CUSTOM_FIELD_KEY } from './custom-field-key.ts';

/**
 * Issue 34 item 13: what an account says about one of its custom field keys (D11): the type its
 * values have, a label for people, and whether the contact may edit it in the preference centre
 * (D20). Values stay where D11 keeps them (`contacts.custom_fields`); a key with no definition is
 * simply not editable. Pure, so the schemas, the preference centre and the dashboard share it.
 */
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const CUSTOM_FIELD_DEFINITION_LIMITS = { labelMax: 100, definitionsMax: CONTACT_LIMITS.customFieldsMax * 4, perRequestMax: 100 } as const;

export interface CustomFieldDefinition {
  key: string;
  type: CustomFieldType;
  label: string | null;
  editable_by_contact: boolean;
  created_at: string;
  updated_at: string;
}

export interface CustomFieldDefinitionInput {
  key: string;
  type: CustomFieldType;
  label?: string | null;
  editable_by_contact?: boolean;
}

export function toCustomFieldDefinition(row: Selectable<CustomFieldDefinitionsTable>): CustomFieldDefinition {
  return {
    key: row.key,
    type: (CUSTOM_FIELD_TYPES as readonly string[]).includes(row.type) ? (row.type as CustomFieldType) : 'text',
    label: row.label,
    editable_by_contact: row.editable_by_contact === 1,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export function definitionKey(raw: string, field = 'key'): string {
  if (!CUSTOM_FIELD_KEY.test(raw)) throw new ValidationError(`${field} must be a letter, then up to 63 letters, digits or _ (D11)`);
  return raw;
}

/** Blank is none (the key is shown in words); at most 100 characters, one line. */
export function definitionLabel(raw: string | null | undefined, field = 'label'): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const label = raw.replace(/\s+/g, ' ').trim();
  if (label === '') return null;
  if ([...label].length > CUSTOM_FIELD_DEFINITION_LIMITS.labelMax) throw new ValidationError(`${field} must be at most ${CUSTOM_FIELD_DEFINITION_LIMITS.labelMax} characters`);
  return label;
}

/** What a field is called for the person: its label, else its key in words (`company_size`: "Company size"). */
export function fieldLabel(definition: Pick<CustomFieldDefinition, 'key' | 'label'>): string {
  if (definition.label) return definition.label;
  const words = definition.key.replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The prefix of a custom field's name in the preference centre's form, as in a sign-up form's (D20). */
export const DETAIL_CUSTOM_PREFIX = 'custom_fields.';
export const DETAIL_NAME_FIELDS = ['first_name', 'last_name'] as const;

/** What the person's own form changes: names (null: cleared) and custom fields (null: removed). Omitted: unchanged. */
export interface ContactDetailsChange {
  first_name?: string | null;
  last_name?: string | null;
  custom_fields: Record<string, CustomValue>;
}

export type ContactDetailsReading = { kind: 'valid'; change: ContactDetailsChange } | { kind: 'invalid'; problems: Map<string, string> };

/** The longest name the answer repeats of a field it refuses (a crafted one can be as long as the body). */
const shown = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}...` : name);

/**
 * The preference centre's "Your details" form, read against what the account lets the contact
 * edit: first and last name (D11's limits), and the custom fields whose definition says
 * `editable_by_contact`, each as its type requires (a number written as one, a yes/no as
 * `true`/`false`; a checkbox posts a hidden `false` before its `true`, so the last value wins).
 * Any other name (the address, the status, a field the account keeps to itself) is refused by
 * name: nothing of such a POST is stored. `values` are the form's pairs in order, `action` aside.
 */
export function readContactDetails(values: [string, string][], editable: readonly Pick<CustomFieldDefinition, 'key' | 'type'>[]): ContactDetailsReading {
  const byKey = new Map(editable.map((d) => [d.key, d]));
  const problems = new Map<string, string>();
  const change: ContactDetailsChange = { custom_fields: {} };
  const seen = new Map<string, string[]>();
  for (const [name, value] of values) seen.set(name, [...(seen.get(name) ?? []), value]);

  for (const [name, given] of seen) {
    if (name === 'action') continue;
    const key = name.startsWith(DETAIL_CUSTOM_PREFIX) ? name.slice(DETAIL_CUSTOM_PREFIX.length) : null;
    const definition = key === null ? undefined : byKey.get(key);
    const isName = (DETAIL_NAME_FIELDS as readonly string[]).includes(name);
    if (!isName && !definition) {
      if (problems.size < 10) problems.set(shown(name), 'cannot be changed here');
      continue;
    }
    if (given.some((v) => v.includes('\u0000'))) {
      problems.set(name, 'must not contain the NUL character');
      continue;
    }
    if (definition?.type === 'boolean') {
      const last = given.at(-1)!;
      if (last !== 'true' && last !== 'false') problems.set(name, 'must be true or false');
      else change.custom_fields[definition.key] = last === 'true';
      continue;
    }
    if (given.length > 1) {
      problems.set(name, 'must be a single value');
      continue;
    }
    const text = given[0].trim();
    if (isName) {
      if ([...text].length > CONTACT_LIMITS.nameMax) problems.set(name, `must be at most ${CONTACT_LIMITS.nameMax} characters`);
      else change[name as 'first_name' | 'last_name'] = text === '' ? null : text;
      continue;
    }
    if (text === '') change.custom_fields[definition!.key] = null;
    else if (definition!.type === 'number') {
      const number = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(number)) problems.set(name, 'must be a number');
      else change.custom_fields[definition!.key] = number;
    } else if ([...text].length > CONTACT_LIMITS.customStringMax) problems.set(name, `must be at most ${CONTACT_LIMITS.customStringMax} characters`);
    else change.custom_fields[definition!.key] = text;
  }
  return problems.size > 0 ? { kind: 'invalid', problems } : { kind: 'valid', change };
}
