import { asciiWords } from '../shared/ascii-words.ts';
import { CUSTOM_FIELD_KEY } from './custom-field-key.ts';

/**
 * D17.6: the one set of rules for contacts in CSV, used by the CLI's `import` and `export` and by
 * the dashboard's import alike (this module is pure: no Node, no database, so the dashboard's
 * bundle imports it too). A CSV row becomes a bulk item of D14 (plus `status`, `lists` and the
 * consent's `consentAt` and `consentIp`), which the same service validates and writes for both.
 *
 * D26.3, no column is lost without saying so: a header that names no field is a custom field (in
 * lower snake case unless it already is a key), and `mapHeader` lists every column it does not
 * keep, with why, for the import's summary.
 *
 * Export then import loses nothing:
 * - `status` is written and read back; import never makes anyone SUBSCRIBED again (the service
 *   applies contact-status.ts), but honours a file's UNSUBSCRIBED, BOUNCED or COMPLAINED;
 * - `tags` and `lists` (list names) hold several values separated by `;` or `,`;
 * - custom fields keep their JSON types: a number or a boolean is written plainly, and a text
 *   that would read back as one (`12`, `true`, or one starting with a double quote) is written as
 *   a JSON string (`"12"`).
 */

export const CSV_FIELDS = ['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists'] as const;
export type CsvField = (typeof CSV_FIELDS)[number] | 'name';

/** Headers other tools write, lower-cased with spaces, dashes and underscores removed. */
const ALIASES: Record<string, CsvField> = {
  email: 'email',
  emailaddress: 'email',
  mail: 'email',
  firstname: 'first_name',
  fname: 'first_name',
  givenname: 'first_name',
  lastname: 'last_name',
  lname: 'last_name',
  surname: 'last_name',
  familyname: 'last_name',
  name: 'name',
  fullname: 'name',
  phone: 'phone',
  phonenumber: 'phone',
  mobile: 'phone',
  status: 'status',
  tags: 'tags',
  tag: 'tags',
  lists: 'lists',
  list: 'lists',
};

/** What other tools' exports (and older ones of ours) hold that Sendwell keeps for itself: not read back, and said so (D26.3). */
const IGNORED = new Set(['id', 'leadscore', 'listids', 'createdat', 'updatedat', 'memberrating', 'lastchanged']);

/**
 * D26.3: Mailchimp's opt-in and confirmation columns, which say when (read as UTC) and from where
 * the person consented: they become the import's consent record, not custom fields.
 */
const CONSENT_COLUMNS: Record<string, ConsentPart> = { optintime: 'optin_time', confirmtime: 'confirm_time', optinip: 'optin_ip', confirmip: 'confirm_ip' };
type ConsentPart = 'optin_time' | 'confirm_time' | 'optin_ip' | 'confirm_ip';

/** A custom field named as such, whatever its key: export writes this for a key a plain header would misread. */
const CUSTOM_HEADER = new RegExp(`^custom_fields\\.(${CUSTOM_FIELD_KEY.source.slice(1, -1)})$`, 'i');
const STATUSES = new Set(['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED']);
/** Mailchimp's and others' words for the same statuses. */
const STATUS_WORDS: Record<string, string> = { CLEANED: 'BOUNCED', BOUNCE: 'BOUNCED', SPAM: 'COMPLAINED', COMPLAINT: 'COMPLAINED', UNSUBSCRIBE: 'UNSUBSCRIBED', OPTOUT: 'UNSUBSCRIBED' };

export type CsvColumn = { kind: 'field'; field: CsvField } | { kind: 'custom'; key: string } | { kind: 'consent'; part: ConsentPart } | { kind: 'ignored'; reason: string };

/** D26.3: a column import does not keep, and why; the import's summary lists every one. */
export interface IgnoredColumn {
  /** the header text as the file has it */
  column: string;
  reason: string;
}

const squash = (header: string) => header.trim().toLowerCase().replace(/[\s_-]+/g, '');

/**
 * D26.3: a header that names no field, as a custom-field key in lower snake case (`Company Name`
 * → `company_name`, `Prénom` → `prenom`), or '' when nothing of it can be a key. What a key cannot
 * start with is dropped (D11: a letter first), and separators at the end; a trailing digit stays,
 * so `Address 2` does not collide with `Address`.
 */
export function snakeCaseKey(header: string): string {
  return asciiWords(header, '_').replace(/^[^a-z]+/, '').slice(0, 64).replace(/_+$/, '');
}

/**
 * `--map 'Header=field,...'`: names columns the aliases do not know. `field` is one of CSV_FIELDS
 * or `custom_fields.<key>`, or `ignore`.
 */
export function parseColumnMap(raw: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const part of raw.split(',')) {
    if (!part.trim()) continue;
    const eq = part.lastIndexOf('=');
    if (eq <= 0) throw new Error(`--map: "${part.trim()}" is not Header=field`);
    const header = part.slice(0, eq).trim();
    const field = part.slice(eq + 1).trim();
    if (!(CSV_FIELDS as readonly string[]).includes(field) && field !== 'name' && field !== 'ignore' && !/^custom_fields\.[A-Za-z][A-Za-z0-9_]{0,63}$/.test(field)) {
      throw new Error(`--map: "${field}" is not a contact field (${CSV_FIELDS.join(', ')}, name, custom_fields.<key> or ignore)`);
    }
    map[squash(header)] = field;
  }
  return map;
}

/** One header's meaning on its own: a map entry, else a known header (any case), else a custom field (D26.3). */
function readHeader(raw: string, position: number, map: Record<string, string>): CsvColumn {
  const key = squash(raw);
  const mapped = map[key];
  if (mapped !== undefined) {
    if (mapped === 'ignore') return { kind: 'ignored', reason: 'ignored by --map' };
    if (mapped.startsWith('custom_fields.')) return { kind: 'custom', key: mapped.slice('custom_fields.'.length) };
    return { kind: 'field', field: mapped as CsvField };
  }
  const named = CUSTOM_HEADER.exec(raw.trim());
  if (named) return { kind: 'custom', key: named[1] };
  if (ALIASES[key]) return { kind: 'field', field: ALIASES[key] };
  if (CONSENT_COLUMNS[key]) return { kind: 'consent', part: CONSENT_COLUMNS[key] };
  if (IGNORED.has(key)) return { kind: 'ignored', reason: 'the exporting tool keeps this for itself (ids, dates, ratings); Sendwell keeps its own' };
  const name = raw.trim();
  // D17.6: a header that already is a key round-trips as it is, case and all.
  if (CUSTOM_FIELD_KEY.test(name)) return { kind: 'custom', key: name };
  const snake = snakeCaseKey(name);
  if (snake) return { kind: 'custom', key: snake };
  return name === '' ? { kind: 'ignored', reason: `column ${position} has no header` } : { kind: 'ignored', reason: 'no custom-field key can be made of it (a key starts with a letter, then letters, digits or _)' };
}

/** What a column fills, so two columns filling the same are found. */
const targetOf = (c: CsvColumn): string | null => (c.kind === 'field' ? `the field ${c.field}` : c.kind === 'custom' ? `the custom field ${c.key}` : c.kind === 'consent' ? `the consent's ${c.part}` : null);

/**
 * Each header's meaning (D17.6, D26.3), and the columns not kept with why. Of two columns with the
 * same header, or filling the same field, the first is kept and the later one ignored.
 */
export function mapHeader(header: string[], map: Record<string, string> = {}): { columns: CsvColumn[]; ignored: IgnoredColumn[] } {
  const taken = new Map<string, number>();
  const columns = header.map((raw, i): CsvColumn => {
    const column = readHeader(raw, i + 1, map);
    const target = targetOf(column);
    if (target === null) return column;
    const first = taken.get(target);
    if (first === undefined) {
      taken.set(target, i);
      return column;
    }
    const same = header[first].trim().toLowerCase() === raw.trim().toLowerCase();
    return { kind: 'ignored', reason: same ? `a duplicate header: the first, column ${first + 1}, is kept` : `column ${first + 1} (${header[first].trim()}) is ${target} already, and the first is kept` };
  });
  const ignored = columns.flatMap((c, i) => (c.kind === 'ignored' ? [{ column: header[i], reason: c.reason }] : []));
  return { columns, ignored };
}

/** Whether the columns can make contacts at all. */
export function hasEmailColumn(columns: CsvColumn[]): boolean {
  return columns.some((c) => c.kind === 'field' && c.field === 'email');
}

/** A custom-field cell: empty is no value; JSON's number, boolean and string forms are read as such; anything else is text. */
export function readCustomValue(cell: string): string | number | boolean | null {
  if (cell === '') return null;
  if (/^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/.test(cell)) return Number(cell);
  if (cell === 'true' || cell === 'false') return cell === 'true';
  if (cell.length >= 2 && cell.startsWith('"') && cell.endsWith('"')) {
    try {
      const value: unknown = JSON.parse(cell);
      if (typeof value === 'string') return value;
    } catch {
      // not a JSON string: the text as it is
    }
  }
  return cell;
}

/** The cell export writes for a custom-field value, which `readCustomValue` reads back as the same value. */
export function writeCustomValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value);
  return readCustomValue(text) === text && text !== '' ? text : JSON.stringify(text);
}

/**
 * Several values in one cell, separated by `;` or `,`. A value may be a JSON string (`"a, b"`),
 * which is how export writes one holding a separator, and how Mailchimp writes its TAGS
 * (`"vip","beta"`); anything else is text up to the next separator.
 */
export function splitCell(cell: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < cell.length) {
    while (i < cell.length && /\s/.test(cell[i])) i++;
    const quoted = cell[i] === '"' ? quotedValue(cell, i) : null;
    let end: number;
    if (quoted) {
      out.push(quoted.value.trim());
      end = quoted.end;
      while (end < cell.length && /\s/.test(cell[end])) end++;
    } else {
      end = i;
      while (end < cell.length && cell[end] !== ';' && cell[end] !== ',') end++;
      out.push(cell.slice(i, end).trim());
    }
    i = end + 1;
  }
  return out.filter(Boolean);
}

/** The JSON string starting at `start` and where it ends, if it is one followed by a separator or the end. */
function quotedValue(cell: string, start: number): { value: string; end: number } | null {
  for (let i = start + 1; i < cell.length; i++) {
    if (cell[i] === '\\') i++;
    else if (cell[i] === '"') {
      let next = i + 1;
      while (next < cell.length && /\s/.test(cell[next])) next++;
      if (next < cell.length && cell[next] !== ';' && cell[next] !== ',') return null;
      try {
        return { value: JSON.parse(cell.slice(start, i + 1)) as string, end: i + 1 };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Values export writes in one cell, `;` between them; one that would not split back as itself is a JSON string. */
export function joinCell(values: string[]): string {
  return values.map((v) => (splitCell(v).length === 1 && splitCell(v)[0] === v ? v : JSON.stringify(v))).join(';');
}

/** A status cell in the words of D11, or other tools' words for the same; anything else is left for the service to refuse. */
function readStatus(cell: string): string {
  const word = cell.trim().toUpperCase().replace(/[\s_-]+/g, '');
  return STATUS_WORDS[word] ?? (STATUSES.has(word) ? word : cell.trim());
}

/** A bulk import item (D14's shape, with `status` and `lists`) from one row. Empty cells give no value. */
export function rowToItem(columns: CsvColumn[], cells: string[]): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  const consent: Partial<Record<ConsentPart, string>> = {};
  columns.forEach((column, i) => {
    const cell = (cells[i] ?? '').trim();
    if (column.kind === 'ignored') return;
    if (column.kind === 'custom') {
      const value = readCustomValue(cell);
      if (value !== null) custom[column.key] = value;
      return;
    }
    if (column.kind === 'consent') {
      if (cell) consent[column.part] = cell;
      return;
    }
    if (column.field === 'email') item.email = cell;
    else if (!cell) return;
    else if (column.field === 'first_name') item.firstName = cell;
    else if (column.field === 'last_name') item.lastName = cell;
    else if (column.field === 'name') item.name = cell;
    else if (column.field === 'phone') item.phone = cell;
    else if (column.field === 'status') item.status = readStatus(cell);
    else if (column.field === 'tags') item.tags = splitCell(cell);
    else if (column.field === 'lists') item.lists = splitCell(cell);
  });
  if (item.email === undefined) item.email = '';
  if (Object.keys(custom).length > 0) item.customFields = custom;
  return { ...item, ...consentOf(consent) };
}

/** Mailchimp's `2024-03-01 10:22:33` in D1's input form, which the service reads as UTC; other text goes on as it is, for the service to accept or refuse. */
const d1Time = (cell: string) => cell.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/, '$1T$2');

/**
 * D26.3: the bulk item's consent (`consentAt`, `consentIp`): the opt-in, or the confirmation when
 * it is later (a double opt-in's consent is given when confirmed), with the address it came from
 * (the other's when that one has none). Times in the same form compare as text.
 */
function consentOf(parts: Partial<Record<ConsentPart, string>>): { consentAt?: string; consentIp?: string } {
  const optin = parts.optin_time === undefined ? undefined : d1Time(parts.optin_time);
  const confirm = parts.confirm_time === undefined ? undefined : d1Time(parts.confirm_time);
  const confirmed = confirm !== undefined && (optin === undefined || confirm > optin);
  const at = confirmed ? confirm : optin;
  const ip = confirmed ? (parts.confirm_ip ?? parts.optin_ip) : (parts.optin_ip ?? parts.confirm_ip);
  return { ...(at === undefined ? {} : { consentAt: at }), ...(ip === undefined ? {} : { consentIp: ip }) };
}

/**
 * The header a custom field is exported under: its key, unless import would read that header as
 * something else (a key such as `status`, `Name`, `mobile` or `id`), then `custom_fields.<key>`.
 */
export function customFieldHeader(key: string): string {
  const [column] = mapHeader([key]).columns;
  return column.kind === 'custom' && column.key === key ? key : `custom_fields.${key}`;
}

/** The header export writes: the contact fields, then the custom-field keys found. */
export function exportHeader(customKeys: string[]): string[] {
  return [...CSV_FIELDS, ...customKeys.map(customFieldHeader)];
}

/** One contact as export writes it, in `exportHeader`'s columns. */
export function contactToRow(
  contact: { email: string; first_name: string | null; last_name: string | null; phone: string | null; status: string; tags: string[]; lists: string[]; custom_fields: Record<string, unknown> },
  customKeys: string[],
): string[] {
  return [
    contact.email,
    contact.first_name ?? '',
    contact.last_name ?? '',
    contact.phone ?? '',
    contact.status,
    joinCell(contact.tags),
    joinCell(contact.lists),
    ...customKeys.map((k) => writeCustomValue(contact.custom_fields[k])),
  ];
}
