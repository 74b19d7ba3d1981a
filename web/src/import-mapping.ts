import { CSV_FIELDS, mapHeader, snakeCaseKey, type CsvColumn, type CsvField, type IgnoredColumn } from '../../src/domain/contacts/csv-columns.ts';
import { CUSTOM_FIELD_KEY } from '../../src/domain/contacts/custom-field-key.ts';

/**
 * Issue 34 item 8: the import dialog's mapping step. Each column of the file goes to a contact
 * field, a custom field (one that exists, or a new one named here), Mailchimp's consent columns,
 * or nowhere. The first guess is the CLI's (csv-columns.ts mapHeader, D17.6 and D26.3: `Email
 * Address` is the e-mail, an unknown header a custom field in lower snake case); the person's
 * choices then make the columns rowToItem reads, so the rows go to POST /v1/contacts/bulk as the
 * CLI sends them. Pure: no React, no requests.
 */

type ConsentPart = Extract<CsvColumn, { kind: 'consent' }>['part'];
const CONSENT_PARTS: readonly ConsentPart[] = ['optin_time', 'confirm_time', 'optin_ip', 'confirm_ip'];

/** Where a column goes: a contact field, `custom` (with its key), a part of the consent, or `ignore`. */
export type Target = CsvField | 'custom' | `consent.${ConsentPart}` | 'ignore';

export interface ColumnChoice {
  target: Target;
  /** the custom field's key when `target` is `custom`; otherwise the key offered if the person picks custom */
  key: string;
  /** why the first guess does not import it (D26.3: an empty or repeated header...) */
  reason?: string;
}

/** The choices the dialog offers, in its words. */
export const TARGET_LABELS: Record<Target, string> = {
  email: 'E-mail address',
  first_name: 'First name',
  last_name: 'Last name',
  name: 'Full name (split at the first space)',
  phone: 'Phone',
  status: 'Status',
  tags: 'Tags (separated by ; or ,)',
  lists: 'Lists by name (created when missing)',
  custom: 'Custom field',
  'consent.optin_time': 'Consent: opt-in time (UTC)',
  'consent.confirm_time': 'Consent: confirmation time (UTC)',
  'consent.optin_ip': 'Consent: opt-in IP address',
  'consent.confirm_ip': 'Consent: confirmation IP address',
  ignore: 'Do not import',
};

export const TARGETS: readonly Target[] = [...CSV_FIELDS.slice(0, 3), 'name', ...CSV_FIELDS.slice(3), 'custom', ...CONSENT_PARTS.map((p) => `consent.${p}` as const), 'ignore'];

function choiceOf(column: CsvColumn, header: string): ColumnChoice {
  const offered = snakeCaseKey(header);
  if (column.kind === 'field') return { target: column.field, key: offered };
  if (column.kind === 'custom') return { target: 'custom', key: column.key };
  if (column.kind === 'consent') return { target: `consent.${column.part}`, key: offered };
  return { target: 'ignore', key: offered, reason: column.reason };
}

/** What one header is taken for on its own, as `sendwell import` would take it (`Email Address` → email, `Favourite colour` → custom favourite_colour). */
export function guessColumn(header: string): ColumnChoice {
  return choiceOf(mapHeader([header]).columns[0], header);
}

/** The first guess for a whole header line: as `sendwell import` reads it, a repeated or empty header not imported. */
export function guessMapping(header: string[]): ColumnChoice[] {
  return mapHeader(header).columns.map((column, i) => choiceOf(column, header[i]));
}

/** A target's meaning for `rowToItem`. */
function columnOf(choice: ColumnChoice): CsvColumn {
  if (choice.target === 'ignore') return { kind: 'ignored', reason: choice.reason ?? 'you chose not to import it' };
  if (choice.target === 'custom') return { kind: 'custom', key: choice.key.trim() };
  if (choice.target.startsWith('consent.')) return { kind: 'consent', part: choice.target.slice('consent.'.length) as ConsentPart };
  return { kind: 'field', field: choice.target as CsvField };
}

/** What fills the same place, so two columns filling it are found. */
const placeOf = (choice: ColumnChoice) => (choice.target === 'ignore' ? null : choice.target === 'custom' ? `custom field “${choice.key.trim()}”` : TARGET_LABELS[choice.target]);

/**
 * The columns the choices make, and what stops the import, in words: no e-mail column, a custom
 * field key that is not one (D11), two columns filling the same field.
 */
export function columnsOf(header: string[], choices: ColumnChoice[]): { columns: CsvColumn[]; problems: string[] } {
  const problems: string[] = [];
  const name = (i: number) => `“${header[i]?.trim() || `column ${i + 1}`}”`;
  if (!choices.some((c) => c.target === 'email')) problems.push('Choose the column that holds the e-mail address.');
  const filled = new Map<string, number>();
  choices.forEach((choice, i) => {
    if (choice.target === 'custom' && !CUSTOM_FIELD_KEY.test(choice.key.trim())) {
      problems.push(`${name(i)}: a custom field's name starts with a letter, then letters, digits or _ (at most 64).`);
      return;
    }
    const place = placeOf(choice);
    if (place === null) return;
    const first = filled.get(place);
    if (first === undefined) filled.set(place, i);
    else problems.push(`${name(first)} and ${name(i)} both go to ${place}: choose one, or do not import the other.`);
  });
  return { columns: choices.map(columnOf), problems };
}

/** D26.3: the columns not imported, with why, for the summary. */
export function ignoredColumns(header: string[], columns: CsvColumn[]): IgnoredColumn[] {
  return columns.flatMap((c, i) => (c.kind === 'ignored' ? [{ column: header[i] ?? '', reason: c.reason }] : []));
}

/** Up to `count` values of a column from the rows under the header, empty cells left out, for the preview. */
export function sampleValues(rows: string[][], index: number, count = 3): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const cell = (row[index] ?? '').trim();
    if (cell) out.push(cell);
    if (out.length === count) break;
  }
  return out;
}
