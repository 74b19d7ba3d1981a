/** The one place JSON documents are read and written: JSON text, or (a contact's `jsonb` columns on PostgreSQL, migration 0013) the value the driver already parsed. */
export function readJson<T>(text: string | object | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return typeof text === 'string' ? (JSON.parse(text) as T) : (text as T);
}

export function writeJson(value: unknown): string {
  return JSON.stringify(value);
}
