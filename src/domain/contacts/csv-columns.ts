import { CUSTOM_FIELD_KEY } from './custom-field-key.ts';

/**
 * D17.6: the one set of rules for contacts in CSV, used by the CLI's `import` and `export` and by
 * the dashboard's import alike (this module is pure: no Node, no database, so the dashboard's
 * bundle imports it too). A CSV row becomes a bulk item of D14 (plus `status` and `lists`), which
 * the same service validates and writes for both.
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

/** What export writes that is not read back (the service decides these). */
const IGNORED = new Set(['id', 'leadscore', 'listids', 'createdat', 'updatedat', 'memberrating', 'optintime', 'confirmtime', 'lastchanged']);

/** A custom field named as such, whatever its key: export writes this for a key a plain header would misread. */
const CUSTOM_HEADER = new RegExp(`^custom_fields\\.(${CUSTOM_FIELD_KEY.source.slice(1, -1)})$`, 'i');
const STATUSES = new Set(['SUBSCRIBED', 'UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED']);
/** Mailchimp's and others' words for the same statuses. */
const STATUS_WORDS: Record<string, string> = { CLEANED: 'BOUNCED', BOUNCE: 'BOUNCED', SPAM: 'COMPLAINED', COMPLAINT: 'COMPLAINED', UNSUBSCRIBE: 'UNSUBSCRIBED', OPTOUT: 'UNSUBSCRIBED' };

export type CsvColumn = { kind: 'field'; field: CsvField } | { kind: 'custom'; key: string } | { kind: 'ignored' };

const squash = (header: string) => header.trim().toLowerCase().replace(/[\s_-]+/g, '');

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

/** Each header's meaning: a map entry, else a known alias (any case), else a custom field if its name can be one. */
export function mapHeader(header: string[], map: Record<string, string> = {}): CsvColumn[] {
  return header.map((raw): CsvColumn => {
    const key = squash(raw);
    const mapped = map[key];
    if (mapped !== undefined) {
      if (mapped === 'ignore') return { kind: 'ignored' };
      if (mapped.startsWith('custom_fields.')) return { kind: 'custom', key: mapped.slice('custom_fields.'.length) };
      return { kind: 'field', field: mapped as CsvField };
    }
    const named = CUSTOM_HEADER.exec(raw.trim());
    if (named) return { kind: 'custom', key: named[1] };
    if (ALIASES[key]) return { kind: 'field', field: ALIASES[key] };
    if (IGNORED.has(key)) return { kind: 'ignored' };
    const name = raw.trim();
    return CUSTOM_FIELD_KEY.test(name) ? { kind: 'custom', key: name } : { kind: 'ignored' };
  });
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
  columns.forEach((column, i) => {
    const cell = (cells[i] ?? '').trim();
    if (column.kind === 'ignored') return;
    if (column.kind === 'custom') {
      const value = readCustomValue(cell);
      if (value !== null) custom[column.key] = value;
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
  return item;
}

/**
 * The header a custom field is exported under: its key, unless import would read that header as
 * something else (a key such as `status`, `Name`, `mobile` or `id`), then `custom_fields.<key>`.
 */
export function customFieldHeader(key: string): string {
  const [column] = mapHeader([key]);
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
